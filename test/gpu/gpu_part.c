/* gpu_part: partitioned communication on device buffers, in a ring: each
 * rank sends 8 partitions of 1000 ints to its right neighbour, which
 * receives them as 4 partitions of 2000, for every pair of memory kinds
 * (device to device, host to device, device to host), 5 rounds each with
 * new data. The sender marks the partitions in reverse, one by one; the
 * receiver polls MPI_Parrived until every partition has arrived, then
 * MPI_Wait; the whole buffer is checked on the host (the partitions' data
 * went through the library's device path, message by message). */
#include "gpu_test.h"

#include <stdio.h>

enum { SEND_PARTS = 8, RECV_PARTS = 4, INTS = 8000, ROUNDS = 5, TAG = 3 };

static void run(enum gt_mem send_mem, enum gt_mem recv_mem)
{
    int right = (gt_rank + 1) % gt_size, left = (gt_rank + gt_size - 1) % gt_size;
    size_t bytes = INTS * sizeof(int);
    void *sbuf = gt_alloc(send_mem, bytes), *rbuf = gt_alloc(recv_mem, bytes);
    MPI_Request send, recv;
    gt_check_rc("MPI_Psend_init", MPI_Psend_init(sbuf, SEND_PARTS, INTS / SEND_PARTS, MPI_INT,
                                                 right, TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                 &send));
    gt_check_rc("MPI_Precv_init", MPI_Precv_init(rbuf, RECV_PARTS, INTS / RECV_PARTS, MPI_INT,
                                                 left, TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                 &recv));
    for (int round = 0; round < ROUNDS; round++) {
        unsigned seed = (unsigned)(round * 131 + send_mem * 17 + recv_mem * 5);
        gt_put_pattern(send_mem, sbuf, bytes, seed + (unsigned)gt_rank * 1000u);
        gt_set(recv_mem, rbuf, 0xee, bytes);
        MPI_Request both[2] = {recv, send};
        gt_check_rc("MPI_Startall", MPI_Startall(2, both));
        for (int p = SEND_PARTS - 1; p >= 0; p--)
            gt_check_rc("MPI_Pready", MPI_Pready(p, send));
        for (int p = 0; p < RECV_PARTS; p++)
            for (int flag = 0; !flag;)
                gt_check_rc("MPI_Parrived", MPI_Parrived(recv, p, &flag));
        gt_check_rc("MPI_Waitall", MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        char what[80];
        snprintf(what, sizeof(what), "%s to %s, round %d", gt_mem_name(send_mem),
                 gt_mem_name(recv_mem), round);
        gt_check_buffer(what, recv_mem, rbuf, bytes, seed + (unsigned)left * 1000u);
    }
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
    gt_free(send_mem, sbuf);
    gt_free(recv_mem, rbuf);
}

int main(int argc, char **argv)
{
    gt_init("gpu_part", &argc, &argv);
    run(GT_DEVICE, GT_DEVICE);
    run(GT_HOST, GT_DEVICE);
    run(GT_DEVICE, GT_HOST);
    return gt_finish();
}
