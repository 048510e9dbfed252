/* p2p_cancel: MPI_Cancel and MPI_Test_cancelled.
 *
 * 1. A receive that nothing matches (given source and tag, and both
 *    wildcards), cancelled, completes with MPI_Wait (or a MPI_Test loop)
 *    and MPI_Test_cancelled says true; its buffer is untouched.
 * 2. A cancelled receive does not consume a message sent later: the left
 *    neighbour then sends one of the same tag, and a new receive gets it.
 * 3. A receive that has already completed (seen with
 *    MPI_Request_get_status) cannot be cancelled: MPI_Wait gives the message
 *    and MPI_Test_cancelled false.
 * 4. A persistent receive cancelled once can be started again and receives.
 * 5. A send may or may not be cancellable: the sender tells the receiver
 *    which, and the receiver checks that the message arrives exactly when
 *    the cancel failed. */
#include "p2p_util.h"

#include <stdio.h>
#include <string.h>

enum {
    CANCEL_TAG = 10,
    LATER_TAG = 11,
    DONE_TAG = 12,
    PERSIST_TAG = 13,
    SEND_TAG = 14,
    VERDICT_TAG = 15,
    N = 64,
};

static int left, right;

static void fill_ints(int *buf, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        buf[i] = src * 100000 + tag * 1000 + i;
}

static void check_ints(const char *what, const int *buf, int n, int src, int tag)
{
    for (int i = 0; i < n; i++)
        if (buf[i] != src * 100000 + tag * 1000 + i)
            p2p_die("%s: int %d is %d, expected %d", what, i, buf[i], src * 100000 + tag * 1000 + i);
}

static void expect_cancelled(const char *what, const MPI_Status *st, int expected)
{
    int flag = -1;

    p2p_check_ok("MPI_Test_cancelled", MPI_Test_cancelled(st, &flag));
    if (flag != expected)
        p2p_die("%s: MPI_Test_cancelled says %d, expected %d", what, flag, expected);
}

/* Posts a receive nothing matches, cancels it, completes it with Wait or a
 * Test loop. */
static void cancel_unmatched(const char *what, int source, int tag, int by_test)
{
    int buf[N], flag = 0;
    MPI_Request req;
    MPI_Status st;

    memset(buf, 0x3C, sizeof buf);
    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf, N, MPI_INT, source, tag, MPI_COMM_WORLD, &req));
    p2p_check_ok("MPI_Cancel of a pending receive", MPI_Cancel(&req));
    if (by_test)
        while (!flag)
            p2p_check_ok("MPI_Test of a cancelled receive", MPI_Test(&req, &flag, &st));
    else
        p2p_check_ok("MPI_Wait of a cancelled receive", MPI_Wait(&req, &st));
    if (req != MPI_REQUEST_NULL)
        p2p_die("%s: the handle is not MPI_REQUEST_NULL after completion", what);
    expect_cancelled(what, &st, 1);
    p2p_check_fill(what, buf, sizeof buf, 0x3C);
}

/* The cancelled receive of CANCEL_TAG must leave the message that comes
 * after it to the next receive. */
static void later_message_not_consumed(void)
{
    int buf[N], stale[N];
    MPI_Request req;
    MPI_Status st;

    memset(stale, 0x3C, sizeof stale);
    MPI_Irecv(stale, N, MPI_INT, left, CANCEL_TAG, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    expect_cancelled("receive cancelled before its message was sent", &st, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is cancelled: now send */
    fill_ints(buf, N, p2p_rank, CANCEL_TAG);
    MPI_Send(buf, N, MPI_INT, right, CANCEL_TAG, MPI_COMM_WORLD);
    memset(buf, 0, sizeof buf);
    MPI_Recv(buf, N, MPI_INT, left, CANCEL_TAG, MPI_COMM_WORLD, &st);
    p2p_check_status("message sent after a cancelled receive", &st, left, CANCEL_TAG, MPI_INT, N);
    check_ints("message sent after a cancelled receive", buf, N, left, CANCEL_TAG);
    expect_cancelled("message sent after a cancelled receive", &st, 0);
    p2p_check_fill("buffer of the cancelled receive", stale, sizeof stale, 0x3C);
}

static void cancel_completed(void)
{
    int out[N], in[N], flag = 0;
    MPI_Request req;
    MPI_Status st;

    fill_ints(out, N, p2p_rank, DONE_TAG);
    MPI_Irecv(in, N, MPI_INT, left, DONE_TAG, MPI_COMM_WORLD, &req);
    MPI_Send(out, N, MPI_INT, right, DONE_TAG, MPI_COMM_WORLD);
    while (!flag)
        MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    p2p_check_ok("MPI_Cancel of a completed receive", MPI_Cancel(&req));
    MPI_Wait(&req, &st);
    expect_cancelled("receive completed before MPI_Cancel", &st, 0);
    p2p_check_status("receive completed before MPI_Cancel", &st, left, DONE_TAG, MPI_INT, N);
    check_ints("receive completed before MPI_Cancel", in, N, left, DONE_TAG);
}

static void cancel_persistent(void)
{
    int out[N], in[N];
    MPI_Request req;
    MPI_Status st;

    MPI_Recv_init(in, N, MPI_INT, left, PERSIST_TAG, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    expect_cancelled("cancelled persistent receive", &st, 1);
    if (req == MPI_REQUEST_NULL)
        p2p_die("MPI_Wait freed a cancelled persistent request");
    MPI_Barrier(MPI_COMM_WORLD);
    p2p_check_ok("MPI_Start after a cancel", MPI_Start(&req));
    fill_ints(out, N, p2p_rank, PERSIST_TAG);
    MPI_Send(out, N, MPI_INT, right, PERSIST_TAG, MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    expect_cancelled("persistent receive started again", &st, 0);
    p2p_check_status("persistent receive started again", &st, left, PERSIST_TAG, MPI_INT, N);
    check_ints("persistent receive started again", in, N, left, PERSIST_TAG);
    MPI_Request_free(&req);
}

static void cancel_send(void)
{
    int out[N], in[N], cancelled, verdict;
    MPI_Request req;
    MPI_Status st;

    fill_ints(out, N, p2p_rank, SEND_TAG);
    MPI_Isend(out, N, MPI_INT, right, SEND_TAG, MPI_COMM_WORLD, &req);
    p2p_check_ok("MPI_Cancel of a send", MPI_Cancel(&req));
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    MPI_Sendrecv(&cancelled, 1, MPI_INT, right, VERDICT_TAG, &verdict, 1, MPI_INT, left,
                 VERDICT_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!verdict) {
        MPI_Recv(in, N, MPI_INT, left, SEND_TAG, MPI_COMM_WORLD, &st);
        p2p_check_status("a send whose cancel failed", &st, left, SEND_TAG, MPI_INT, N);
        check_ints("a send whose cancel failed", in, N, left, SEND_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* A cancelled send must have left nothing behind. */
    int flag;
    MPI_Iprobe(left, SEND_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag)
        p2p_die("a message of a send %s arrived", verdict ? "that was cancelled" : "twice");
    if (p2p_rank == 0)
        printf("p2p_cancel: cancel of a standard send %s\n", verdict ? "succeeded" : "failed");
}

int main(int argc, char **argv)
{
    p2p_init("p2p_cancel", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;

    cancel_unmatched("cancelled receive (source, tag), MPI_Wait", left, CANCEL_TAG, 0);
    cancel_unmatched("cancelled receive (source, tag), MPI_Test", left, CANCEL_TAG, 1);
    cancel_unmatched("cancelled receive (ANY_SOURCE, ANY_TAG)", MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    later_message_not_consumed();
    MPI_Barrier(MPI_COMM_WORLD);
    cancel_completed();
    MPI_Barrier(MPI_COMM_WORLD);
    cancel_persistent();
    MPI_Barrier(MPI_COMM_WORLD);
    cancel_send();
    p2p_finish();
    return 0;
}
