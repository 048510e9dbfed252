/* p2p_shm_moved: blocking MPI_Sends of 4 KiB to 64 KiB complete without
 * their receives, and deliver the bytes they had when they were sent.
 *
 * On one host such a send above 8 KiB goes by address (below it through the
 * ring); when its receiver does not take
 * it at once, the sender copies it aside and returns (pt2pt/shm_copy.h),
 * and the receiver copies it from there later. So:
 * 1. Every rank sends ROUNDS messages of each size in SIZES to every other
 *    rank, rewriting its one send buffer after each MPI_Send, before it
 *    receives any (unsafe MPI up to 64 KiB, which ompi-lite buffers and
 *    must keep doing: it hangs otherwise). More messages than a rank has
 *    slots to move, so some go over UCX between moved ones: each sender's
 *    order, sizes and bytes are checked.
 * 2. Each rank sends such messages to itself, then receives them.
 * 3. Rank 0 sends LAST messages to every other rank and calls MPI_Finalize
 *    at once, while the others compute for PAUSE_MS (no MPI call) before
 *    they receive: rank 0's copies must outlive its sends, until received.
 *    The last rank prints the verdict. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>

enum {
    ROUNDS = 12,
    LAST = 4,
    TAG = 5,
    PAUSE_MS = 200,
};

/* By address from 8193 bytes (P2P_SHM_CMA_BYTES), movable up to 65536;
 * 4097 and 8192 go through the ring, between them (also where the kernel
 * reads cheaply: a blocking send of up to 8 KiB goes by address only while
 * a receive of its rank is posted, and here none is). */
static const int SIZES[] = {4097, 8193, 8192, 12345, 32768, 65536};
#define NSIZES ((int)(sizeof SIZES / sizeof SIZES[0]))
#define MAX_BYTES 65536

static unsigned seed_of(int part, int src, int dst, int seq)
{
    return shm_msg_seed((unsigned)part, src, dst, seq);
}

/* The messages of one sender to dst, in order: every size, `rounds` times. */
static void send_series(unsigned char *buf, int part, int dst, int rounds)
{
    for (int seq = 0; seq < rounds * NSIZES; seq++) {
        int bytes = SIZES[seq % NSIZES];
        shm_make(buf, (size_t)bytes, seed_of(part, p2p_rank, dst, seq));
        p2p_check_ok("MPI_Send", MPI_Send(buf, bytes, MPI_BYTE, dst, TAG, MPI_COMM_WORLD));
    }
}

static void receive_series(unsigned char *buf, int part, int src, int rounds)
{
    for (int seq = 0; seq < rounds * NSIZES; seq++) {
        int bytes = SIZES[seq % NSIZES];
        MPI_Status st;
        char what[96];
        snprintf(what, sizeof what, "part %d: message %d (%d B) of rank %d", part, seq, bytes,
                 src);
        shm_guard_set(buf + bytes);
        p2p_check_ok("MPI_Recv", MPI_Recv(buf, MAX_BYTES, MPI_BYTE, src, TAG, MPI_COMM_WORLD,
                                          &st));
        p2p_check_status(what, &st, src, TAG, MPI_BYTE, bytes);
        shm_check(what, buf, (size_t)bytes, seed_of(part, src, p2p_rank, seq));
        shm_guard_check(what, buf + bytes);
    }
}

static void part1_exchange(unsigned char *buf)
{
    for (int j = 1; j < p2p_size; j++)
        send_series(buf, 1, (p2p_rank + j) % p2p_size, ROUNDS);
    for (int j = 1; j < p2p_size; j++)
        receive_series(buf, 1, (p2p_rank + p2p_size - j) % p2p_size, ROUNDS);
}

static void part2_self(unsigned char *buf)
{
    send_series(buf, 2, p2p_rank, 1);
    receive_series(buf, 2, p2p_rank, 1);
}

static void part3_send_and_finalize(unsigned char *buf)
{
    if (p2p_rank == 0) {
        for (int dst = 1; dst < p2p_size; dst++)
            send_series(buf, 3, dst, LAST);
        MPI_Finalize();
        return;
    }
    shm_spin_us(1000.0 * PAUSE_MS);
    receive_series(buf, 3, 0, LAST);
    if (p2p_rank == p2p_size - 1)
        printf("p2p_shm_moved: %d ranks OK\n", p2p_size);
    fflush(stdout);
    MPI_Finalize();
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_moved", &argc, &argv, MPI_THREAD_SINGLE);
    unsigned char *buf = shm_malloc(MAX_BYTES + SHM_GUARD);
    part1_exchange(buf);
    part2_self(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    part3_send_and_finalize(buf);
    free(buf);
    return 0;
}
