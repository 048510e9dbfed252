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
 *                           call (the script checks for "MPI_Send")
 * Where the script made the driver unusable for the library though the
 * program allocates device memory with it (gpu_unusable_driver.sh):
 *   gpu_bad_input unusable  MPI_ERRORS_RETURN: MPI_Send from valid device
 *                           memory, MPI_Mrecv into it and MPI_Allreduce on
 *                           it must return MPI_ERR_BUFFER on every rank (no
 *                           rank left waiting), no message delivered
 *   gpu_bad_input unusable-fatal  the default handler: MPI_Send from device
 *                           memory must end the job (the script checks the
 *                           message) */
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

/* An error of class MPI_ERR_BUFFER where `buffer_class` asks for it, else
 * any error; a failure otherwise. */
static void expect_error(int rc, int buffer_class, const char *what, size_t bytes,
                         const char *memory)
{
    char text[MPI_MAX_ERROR_STRING];
    int class = MPI_SUCCESS;
    error_text(rc, text);
    MPI_Error_class(rc, &class);
    if (rc == MPI_SUCCESS)
        gt_fail("%s of %zu bytes %s returned success", what, bytes, memory);
    else if (buffer_class && class != MPI_ERR_BUFFER)
        gt_fail("%s of %zu bytes %s: error %d (%s), expected MPI_ERR_BUFFER", what, bytes,
                memory, rc, text);
    else
        printf("gpu_bad_input: %s of %zu bytes %s: error %d: %s\n", what, bytes, memory, rc,
               text);
}

/* Sender: MPI_Send from buf must fail; tells the receiver, which must not
 * get the message. */
static void expect_send_refused(MPI_Comm comm, char *buf, size_t bytes, int buffer_class,
                                const char *memory)
{
    int rc;

    if (gt_rank == 0) {
        rc = MPI_Send(buf, (int)bytes, MPI_BYTE, 1, TAG_DATA, comm);
        expect_error(rc, buffer_class, "a send", bytes, memory);
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
            gt_fail("a message of %zu bytes %s was delivered%s", bytes, memory,
                    sender_rc == MPI_SUCCESS ? "" : " although the send returned an error");
    }
    /* Until the receive is cancelled, the next message of the same tag may
     * rightly match it: rank 0 sends that only after the cancel. */
    MPI_Barrier(comm);
}

static void send_from_freed(MPI_Comm comm, size_t bytes)
{
    expect_send_refused(comm, used_then_freed(comm, bytes), bytes, 0, "from freed device memory");
}

/* Receiver: MPI_Mrecv into buf must fail. The message is matched by
 * MPI_Mprobe first, so an error leaves nothing pending. */
static void expect_mrecv_refused(MPI_Comm comm, char *buf, size_t bytes, int buffer_class,
                                 const char *memory)
{
    if (gt_rank == 0) {
        char host[1 << 20];
        gt_fill(host, bytes, 99);
        MPI_Send(host, (int)bytes, MPI_BYTE, 1, TAG_DATA, comm);
    } else {
        MPI_Message msg;
        int rc;
        MPI_Mprobe(0, TAG_DATA, comm, &msg, MPI_STATUS_IGNORE);
        rc = MPI_Mrecv(buf, (int)bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        expect_error(rc, buffer_class, "a receive", bytes, memory);
    }
}

static void mrecv_into_freed(MPI_Comm comm, size_t bytes)
{
    expect_mrecv_refused(comm, used_then_freed(comm, bytes), bytes, 0, "into freed device memory");
}

/* The driver is unusable for the library: device buffers are refused with
 * MPI_ERR_BUFFER (never read as host memory), by every rank of a
 * collective, so that none waits for another. */
static void unusable_driver(MPI_Comm comm)
{
    enum { COUNT = 1000 };
    size_t sizes[] = {100, 1 << 20};
    char *device = gt_alloc(GT_DEVICE, 1 << 20);
    for (int i = 0; i < 2; i++) {
        expect_send_refused(comm, device, sizes[i], 1, "from device memory");
        expect_mrecv_refused(comm, device, sizes[i], 1, "into device memory");
    }
    int rc = MPI_Allreduce(MPI_IN_PLACE, device, COUNT, MPI_INT, MPI_SUM, comm);
    expect_error(rc, 1, "an allreduce", COUNT * sizeof(int), "on device memory");
    gt_free(GT_DEVICE, device);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Comm comm;

    gt_init("gpu_bad_input", &argc, &argv);
    MPI_Comm_split(MPI_COMM_WORLD, gt_rank < 2 ? 0 : MPI_UNDEFINED, gt_rank, &comm);
    if (comm != MPI_COMM_NULL) {
        if (strcmp(mode, "unusable") == 0) {
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
            unusable_driver(comm);
        } else if (strcmp(mode, "unusable-fatal") == 0) {
            char *device = gt_alloc(GT_DEVICE, 100);
            if (gt_rank == 0) {
                MPI_Send(device, 100, MPI_BYTE, 1, TAG_DATA, comm);
                gt_fail("a send of 100 bytes from device memory the library cannot use "
                        "returned under MPI_ERRORS_ARE_FATAL");
            }
            gt_free(GT_DEVICE, device);
        } else if (strcmp(mode, "fatal") == 0) {
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
