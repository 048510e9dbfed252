/* p2p_truncate: a message longer than the receive buffer.
 *
 * Without arguments, under MPI_ERRORS_RETURN, for an eager (100 ints) and a
 * rendezvous (100000 ints) message sent round the ring into a receive of
 * SHORT ints:
 *   - MPI_Recv returns an error of class MPI_ERR_TRUNCATE, its status names
 *     the sender and the tag, and nothing past the SHORT ints is written;
 *   - MPI_Irecv + MPI_Wait the same;
 *   - in MPI_Waitall with a normal receive, the call returns
 *     MPI_ERR_IN_STATUS, the truncated status's MPI_ERROR is of class
 *     MPI_ERR_TRUNCATE and the other's MPI_SUCCESS;
 *   - the send of the long message completes normally, and a normal
 *     message still arrives afterwards.
 * With the arguments "fatal TAG" (TAG only marks the processes for the
 * script's leftover check), under the default MPI_ERRORS_ARE_FATAL: rank 1
 * receives a message too long with MPI_Recv. The job must end there (the
 * script checks that mpirun fails and names MPI_Recv), so a return from
 * that MPI_Recv is a failure. */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SHORT = 10,       /* ints in a short receive */
    PAD = 8,          /* ints past it that must stay untouched */
    OK_TAG = 50,      /* the normal receive next to a truncated one */
    NEXT_TAG = 99,    /* the message that proves the job goes on */
    LONGEST = 100000,
};

static int left, right;
static int *sendbuf, *recvbuf;

static unsigned seed_of(int src, int tag)
{
    return (unsigned)src * 4099u + (unsigned)tag;
}

static void send_long(int n, int tag, MPI_Request *req)
{
    p2p_fill(sendbuf, (size_t)n * sizeof(int), seed_of(p2p_rank, tag));
    MPI_Isend(sendbuf, n, MPI_INT, right, tag, MPI_COMM_WORLD, req);
}

static void check_truncated(const char *what, int rc, const MPI_Status *st, int tag)
{
    P2P_CHECK_CLASS(what, rc, MPI_ERR_TRUNCATE);
    if (st->MPI_SOURCE != left || st->MPI_TAG != tag)
        p2p_die("%s: status source %d tag %d, expected %d and %d", what, st->MPI_SOURCE,
                st->MPI_TAG, left, tag);
    p2p_check_fill(what, recvbuf + SHORT, PAD * sizeof(int), 0x4D);
}

/* One int each way: nothing of the truncated message is left to match. */
static void next_message(const char *after)
{
    int out = 1000 + p2p_rank, in = -1;
    char what[128];
    MPI_Status st;

    snprintf(what, sizeof what, "the message after %s", after);
    p2p_check_ok(what, MPI_Sendrecv(&out, 1, MPI_INT, right, NEXT_TAG, &in, 1, MPI_INT, left,
                                    NEXT_TAG, MPI_COMM_WORLD, &st));
    p2p_check_status(what, &st, left, NEXT_TAG, MPI_INT, 1);
    if (in != 1000 + left)
        p2p_die("%s: got %d, expected %d", what, in, 1000 + left);
}

static void truncate_recv(int n, int tag)
{
    char what[96];
    MPI_Request send;
    MPI_Status st;

    snprintf(what, sizeof what, "MPI_Recv of %d ints into %d", n, SHORT);
    memset(recvbuf, 0x4D, (SHORT + PAD) * sizeof(int));
    send_long(n, tag, &send);
    check_truncated(what, MPI_Recv(recvbuf, SHORT, MPI_INT, left, tag, MPI_COMM_WORLD, &st),
                    &st, tag);
    p2p_check_ok("MPI_Wait of the send of a truncated message", MPI_Wait(&send, MPI_STATUS_IGNORE));
    next_message(what);
}

static void truncate_wait(int n, int tag)
{
    char what[96];
    MPI_Request send, recv;
    MPI_Status st;

    snprintf(what, sizeof what, "MPI_Irecv + MPI_Wait of %d ints into %d", n, SHORT);
    memset(recvbuf, 0x4D, (SHORT + PAD) * sizeof(int));
    MPI_Irecv(recvbuf, SHORT, MPI_INT, left, tag, MPI_COMM_WORLD, &recv);
    send_long(n, tag, &send);
    check_truncated(what, MPI_Wait(&recv, &st), &st, tag);
    p2p_check_ok("MPI_Wait of the send of a truncated message", MPI_Wait(&send, MPI_STATUS_IGNORE));
    next_message(what);
}

static void truncate_waitall(int n, int tag)
{
    int ok_out = 7 * p2p_rank, ok_in = -1, err_class;
    MPI_Request req[2], send[2];
    MPI_Status st[2];
    char what[96];

    snprintf(what, sizeof what, "MPI_Waitall with an MPI_Irecv of %d ints into %d", n, SHORT);
    memset(recvbuf, 0x4D, (SHORT + PAD) * sizeof(int));
    MPI_Irecv(recvbuf, SHORT, MPI_INT, left, tag, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&ok_in, 1, MPI_INT, left, OK_TAG, MPI_COMM_WORLD, &req[1]);
    send_long(n, tag, &send[0]);
    MPI_Isend(&ok_out, 1, MPI_INT, right, OK_TAG, MPI_COMM_WORLD, &send[1]);
    P2P_CHECK_CLASS(what, MPI_Waitall(2, req, st), MPI_ERR_IN_STATUS);
    check_truncated(what, st[0].MPI_ERROR, &st[0], tag);
    if (st[1].MPI_ERROR != MPI_SUCCESS) {
        MPI_Error_class(st[1].MPI_ERROR, &err_class);
        p2p_die("%s: the normal receive's MPI_ERROR is %d (class %d), expected MPI_SUCCESS", what,
                st[1].MPI_ERROR, err_class);
    }
    p2p_check_status(what, &st[1], left, OK_TAG, MPI_INT, 1);
    if (ok_in != 7 * left)
        p2p_die("%s: the normal receive got %d, expected %d", what, ok_in, 7 * left);
    p2p_check_ok("MPI_Waitall of the sends", MPI_Waitall(2, send, MPI_STATUSES_IGNORE));
    next_message(what);
}

/* Under MPI_ERRORS_ARE_FATAL the truncated MPI_Recv never returns. */
static void fatal(void)
{
    MPI_Request send;
    MPI_Status st;

    if (p2p_rank == 0) {
        p2p_fill(sendbuf, 100 * sizeof(int), 1);
        MPI_Isend(sendbuf, 100, MPI_INT, 1, 1, MPI_COMM_WORLD, &send);
    } else if (p2p_rank == 1) {
        MPI_Recv(recvbuf, SHORT, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        p2p_die("MPI_Recv of 100 ints into %d returned under MPI_ERRORS_ARE_FATAL", SHORT);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the job ends while rank 0 waits here */
    p2p_die("the job went on after a truncated MPI_Recv under MPI_ERRORS_ARE_FATAL");
}

int main(int argc, char **argv)
{
    p2p_init("p2p_truncate", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    sendbuf = malloc(LONGEST * sizeof(int));
    recvbuf = malloc((SHORT + PAD) * sizeof(int));
    if (!sendbuf || !recvbuf)
        p2p_die("out of memory");

    if (argc > 1 && strcmp(argv[1], "fatal") == 0)
        fatal();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    truncate_recv(100, 1);
    truncate_recv(LONGEST, 2);
    truncate_wait(100, 3);
    truncate_wait(LONGEST, 4);
    truncate_waitall(100, 5);
    truncate_waitall(LONGEST, 6);
    free(sendbuf);
    free(recvbuf);
    p2p_finish();
    return 0;
}
