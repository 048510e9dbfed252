/* gpu_bad_input: a device pointer into an allocation that was freed must
 * give an error, never a silent transfer. Rank 0 sends to rank 1 (other
 * ranks wait). Each pointer is first used while valid (so that the library
 * has seen it and cached what it is), then its allocation is freed and the
 * same pointer used again, with no allocation in between (so the address
 * cannot have become valid memory again: the outcome is deterministic).
 *   gpu_bad_input           MPI_ERRORS_RETURN: MPI_Send from freed memory
 *                           (100 B and 1 MiB, at an offset into the
 *                           allocation) and MPI_Mrecv into freed memory must
 *                           return an error; no message may be delivered
 *   gpu_bad_input fatal     the default handler: MPI_Send from freed memory
 *                           must end the job with a message that names the
 *                           call (the script checks for "MPI_Send") */
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"

#define OFFSET 4096
#define TAG_DATA 1
#define TAG_REPORT 2

static void error_text(int rc, char *text)
{
    int len = 0;
    text[0] = '\0';
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, text, &len);
}

/* A device allocation of `bytes` + OFFSET that carries one correct message
 * first, then is freed; returns the (now dangling) pointer at OFFSET. */
static char *used_then_freed(MPI_Comm comm, size_t bytes)
{
    char *base = gt_alloc(GT_DEVICE, bytes + OFFSET);
    if (gt_rank == 0) {
        gt_put_pattern(GT_DEVICE, base + OFFSET, bytes, (unsigned)bytes);
        MPI_Send(base + OFFSET, (int)bytes, MPI_BYTE, 1, TAG_DATA, comm);
    } else {
        MPI_Recv(base + OFFSET, (int)bytes, MPI_BYTE, 0, TAG_DATA, comm, MPI_STATUS_IGNORE);
        gt_check_buffer("message from valid device memory (before the free)", GT_DEVICE,
                        base + OFFSET, bytes, (unsigned)bytes);
    }
    gt_free(GT_DEVICE, base);
    return base + OFFSET;
}

/* Sender: MPI_Send from freed memory must fail; tells the receiver. */
static void send_from_freed(MPI_Comm comm, size_t bytes)
{
    char *dangling = used_then_freed(comm, bytes), text[MPI_MAX_ERROR_STRING];
    int rc;

    if (gt_rank == 0) {
        rc = MPI_Send(dangling, (int)bytes, MPI_BYTE, 1, TAG_DATA, comm);
        error_text(rc, text);
        if (rc == MPI_SUCCESS)
            gt_fail("a send of %zu bytes from freed device memory returned success", bytes);
        else
            printf("gpu_bad_input: send of %zu bytes from freed device memory: error %d: %s\n",
                   bytes, rc, text);
        MPI_Send(&rc, 1, MPI_INT, 1, TAG_REPORT, MPI_COMM_WORLD);
    } else {
        char host[1 << 20];
        MPI_Request req;
        MPI_Status st;
        int sender_rc, cancelled = 0;

        MPI_Irecv(host, (int)bytes, MPI_BYTE, 0, TAG_DATA, comm, &req);
        MPI_Recv(&sender_rc, 1, MPI_INT, 0, TAG_REPORT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (sender_rc != MPI_SUCCESS)
            MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled)
            gt_fail("a message of %zu bytes from freed device memory was delivered%s", bytes,
                    sender_rc == MPI_SUCCESS ? "" : " although the send returned an error");
    }
    /* Until the receive is cancelled, the next message of the same tag may
     * rightly match it: rank 0 sends that only after the cancel. */
    MPI_Barrier(comm);
}

/* Receiver: MPI_Mrecv into freed memory must fail. The message is matched
 * by MPI_Mprobe first, so an error leaves nothing pending. */
static void mrecv_into_freed(MPI_Comm comm, size_t bytes)
{
    char *dangling = used_then_freed(comm, bytes), text[MPI_MAX_ERROR_STRING];

    if (gt_rank == 0) {
        char host[1 << 20];
        gt_fill(host, bytes, 99);
        MPI_Send(host, (int)bytes, MPI_BYTE, 1, TAG_DATA, comm);
    } else {
        MPI_Message msg;
        int rc;
        MPI_Mprobe(0, TAG_DATA, comm, &msg, MPI_STATUS_IGNORE);
        rc = MPI_Mrecv(dangling, (int)bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        error_text(rc, text);
        if (rc == MPI_SUCCESS)
            gt_fail("a receive of %zu bytes into freed device memory returned success", bytes);
        else
            printf("gpu_bad_input: receive of %zu bytes into freed device memory: error %d: %s\n",
                   bytes, rc, text);
    }
}

int main(int argc, char **argv)
{
    int fatal = argc > 1 && strcmp(argv[1], "fatal") == 0;
    MPI_Comm comm;

    gt_init("gpu_bad_input", &argc, &argv);
    MPI_Comm_split(MPI_COMM_WORLD, gt_rank < 2 ? 0 : MPI_UNDEFINED, gt_rank, &comm);
    if (comm != MPI_COMM_NULL) {
        if (fatal) {
            char *dangling = used_then_freed(comm, 100);
            if (gt_rank == 0) {
                MPI_Send(dangling, 100, MPI_BYTE, 1, TAG_DATA, comm);
                gt_fail("a send of 100 bytes from freed device memory returned (success) under "
                        "MPI_ERRORS_ARE_FATAL");
            }
            /* rank 1 waits in the barrier below until the job is ended */
        } else {
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            send_from_freed(comm, 100);
            send_from_freed(comm, 1 << 20);
            mrecv_into_freed(comm, 100);
            mrecv_into_freed(comm, 1 << 20);
        }
        MPI_Comm_free(&comm);
    }
    return gt_finish();
}
