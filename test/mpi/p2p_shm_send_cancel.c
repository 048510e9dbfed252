/* p2p_shm_send_cancel: MPI_Cancel of sends. On one host the receiver takes
 * a send back while no receive has it (pt2pt/match.c); elsewhere a cancel
 * may fail, and the message must then arrive (argument "may-fail", which
 * leaves out the sends that could not complete before their receive).
 *
 * Round the ring (each rank sends right, receives from the left):
 * 1. A send that nobody receives yet is cancelled: MPI_Wait returns with
 *    MPI_Test_cancelled true, for every path a message takes (inline 1 B
 *    and 4 KiB, 256 KiB copied out of the sender, a strided 256 KiB and a
 *    synchronous 1 KiB announced with their data over UCX) and every mode
 *    that may go unreceived (MPI_Isend, Issend, Ibsend, a started
 *    MPI_Send_init). The sender tells the receiver the outcome: a send
 *    whose cancel failed must be received, intact; then MPI_Iprobe finds
 *    nothing, and the next message of the same tag arrives intact.
 * 2. A send already received (the receiver said so) is not cancelled.
 * 3. A synchronous send to itself, cancelled.
 * 4. MPI_Request_free right after MPI_Cancel: nothing is left behind.
 * 5. NRACE rounds in which the receive is posted while its send is being
 *    cancelled: the message arrives exactly when the cancel failed. The
 *    split is printed, not asserted. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    BIG = 256 * 1024,
    VERDICT_TAG = 51,
    DONE_TAG = 52,
    SELF_TAG = 53,
    FREED_TAG = 54,
    UNUSED_TAG = 55,
    CASE_TAG = 60,   /* + the case */
    RACE_TAG = 100,  /* + the round */
    NRACE = 300,
};

typedef enum { ISEND, ISSEND, IBSEND, PERSISTENT } mode_t_;

typedef struct {
    const char *name;
    mode_t_ mode;
    int bytes;
    int strided;       /* every other double of a buffer twice the size */
    int needs_receive; /* a send whose cancel fails waits for the receive: not in may-fail */
} send_case_t;

static const send_case_t cases[] = {
    {"MPI_Isend of 1 B (inline)", ISEND, 1, 0, 0},
    {"MPI_Isend of 4 KiB (inline)", ISEND, 4096, 0, 0},
    {"MPI_Isend of 256 KiB (copied out of the sender)", ISEND, BIG, 0, 1},
    {"MPI_Isend of a strided 256 KiB (announced)", ISEND, BIG, 1, 1},
    {"MPI_Issend of 1 KiB (announced)", ISSEND, 1024, 0, 1},
    {"MPI_Issend of 256 KiB (copied out of the sender)", ISSEND, BIG, 0, 1},
    {"MPI_Ibsend of 1 KiB", IBSEND, 1024, 0, 0},
    {"MPI_Ibsend of 256 KiB", IBSEND, BIG, 0, 0},
    {"MPI_Send_init of 4 KiB, started", PERSISTENT, 4096, 0, 0},
};

static int left, right, may_fail;
static MPI_Datatype strided;

static MPI_Datatype type_of(const send_case_t *c, int *count)
{
    *count = c->strided ? 1 : c->bytes;
    return c->strided ? strided : MPI_BYTE;
}

static int cancelled(const MPI_Status *st)
{
    int flag;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

static void start_send(const send_case_t *c, const void *buf, int dest, int tag, MPI_Request *req)
{
    int count;
    MPI_Datatype dt = type_of(c, &count);
    switch (c->mode) {
    case ISEND: MPI_Isend(buf, count, dt, dest, tag, MPI_COMM_WORLD, req); break;
    case ISSEND: MPI_Issend(buf, count, dt, dest, tag, MPI_COMM_WORLD, req); break;
    case IBSEND: MPI_Ibsend(buf, count, dt, dest, tag, MPI_COMM_WORLD, req); break;
    case PERSISTENT:
        MPI_Send_init(buf, count, dt, dest, tag, MPI_COMM_WORLD, req);
        MPI_Start(req);
        break;
    }
}

/* The sender's side of a cancel: whether it took. */
static int cancel_and_wait(const char *what, MPI_Request *req)
{
    MPI_Status st;
    p2p_check_ok(what, MPI_Cancel(req));
    p2p_check_ok(what, MPI_Wait(req, &st));
    if (*req != MPI_REQUEST_NULL) /* a persistent request stays */
        MPI_Request_free(req);
    int took = cancelled(&st);
    if (!took && !may_fail)
        p2p_die("%s: the cancel of a send that no receive had failed", what);
    return took;
}

/* The receiver's side: the message arrives if and only if its cancel
 * failed; afterwards nothing of the tag is left. */
static void receive_unless_cancelled(const send_case_t *c, int sender_took_back, unsigned seed,
                                     int tag)
{
    size_t span = c->strided ? 2 * (size_t)c->bytes : (size_t)c->bytes;
    unsigned char *in = shm_malloc(span), *expect = shm_malloc(span);
    if (!sender_took_back) {
        int count;
        MPI_Datatype dt = type_of(c, &count);
        memset(in, 0, span);
        MPI_Recv(in, count, dt, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        p2p_fill(expect, span, seed);
        for (size_t i = 0; i < span; i++)
            if ((!c->strided || (i / sizeof(double)) % 2 == 0) && in[i] != expect[i])
                p2p_die("%s, not cancelled: byte %zu is %d, sent %d", c->name, i, in[i],
                        expect[i]);
    }
    int flag;
    MPI_Iprobe(left, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag)
        p2p_die("%s: a message is left after the send was %s", c->name,
                sender_took_back ? "cancelled" : "received");
    free(in);
    free(expect);
}

static unsigned seed_of(int rank, int round)
{
    return (unsigned)(rank * 1000 + round);
}

static void unreceived_sends(void)
{
    int ncases = (int)(sizeof(cases) / sizeof(cases[0]));
    int bsize = 2 * (BIG + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int i = 0; i < ncases; i++) {
        const send_case_t *c = &cases[i];
        if (may_fail && c->needs_receive)
            continue;
        size_t span = c->strided ? 2 * (size_t)c->bytes : (size_t)c->bytes;
        unsigned char *out = shm_malloc(span);
        p2p_fill(out, span, seed_of(p2p_rank, i));
        MPI_Request req;
        int tag = CASE_TAG + i, took, left_took;
        start_send(c, out, right, tag, &req);
        took = cancel_and_wait(c->name, &req);
        MPI_Sendrecv(&took, 1, MPI_INT, right, VERDICT_TAG, &left_took, 1, MPI_INT, left,
                     VERDICT_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        receive_unless_cancelled(c, left_took, seed_of(left, i), tag);
        MPI_Barrier(MPI_COMM_WORLD); /* every rank has looked before the next message */
        /* The next message of the tag is the one that arrives. */
        p2p_fill(out, span, seed_of(p2p_rank, i + 100));
        start_send(c, out, right, tag, &req);
        receive_unless_cancelled(c, 0, seed_of(left, i + 100), tag);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (req != MPI_REQUEST_NULL)
            MPI_Request_free(&req);
        free(out);
    }
    MPI_Buffer_detach(&bbuf, &bsize);
    free(bbuf);
}

static void received_send(void)
{
    int out = p2p_rank, in = -1;
    MPI_Request req;
    MPI_Status st;
    MPI_Isend(&out, 1, MPI_INT, right, DONE_TAG, MPI_COMM_WORLD, &req);
    MPI_Recv(&in, 1, MPI_INT, left, DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* every send has been received */
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    if (cancelled(&st))
        p2p_die("a send that its receiver had received was cancelled");
    if (in != left)
        p2p_die("received %d from the left neighbour %d", in, left);
}

static void self_send(void)
{
    char out[1024];
    MPI_Request req;
    p2p_fill(out, sizeof(out), 7);
    MPI_Issend(out, (int)sizeof(out), MPI_BYTE, p2p_rank, SELF_TAG, MPI_COMM_WORLD, &req);
    int took = cancel_and_wait("MPI_Issend to itself", &req);
    if (!took)
        MPI_Recv(out, (int)sizeof(out), MPI_BYTE, p2p_rank, SELF_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int flag;
    MPI_Iprobe(p2p_rank, SELF_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag)
        p2p_die("a message to itself is left after a cancel");
}

static void freed_after_cancel(void)
{
    char out[512];
    MPI_Request req;
    p2p_fill(out, sizeof(out), 9);
    MPI_Isend(out, (int)sizeof(out), MPI_BYTE, right, FREED_TAG, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Request_free(&req);
    MPI_Barrier(MPI_COMM_WORLD);
    int flag;
    MPI_Iprobe(left, FREED_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag && !may_fail)
        p2p_die("a send cancelled and freed left its message behind");
    if (flag)
        MPI_Recv(out, (int)sizeof(out), MPI_BYTE, left, FREED_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* Progress for up to max_us without matching anything: a cancel that
 * arrives meanwhile is answered before the receive is posted. */
static void poll_a_while(int max_us)
{
    double until = MPI_Wtime() + (rand() % (max_us + 1)) * 1e-6;
    int flag;
    while (MPI_Wtime() < until)
        MPI_Iprobe(MPI_ANY_SOURCE, UNUSED_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* Each round: send i to the right and cancel it after a pause, while the
 * receive of the left neighbour's i is posted after another. A round has
 * its own tag and ends with a barrier, so no other message can meet its
 * receive. */
static void races(void)
{
    int taken = 0, arrived = 0;
    for (int i = 0; i < NRACE; i++) {
        int out = p2p_rank * NRACE + i, in = -1, took, left_took, got;
        MPI_Request sreq, rreq;
        MPI_Status st;
        MPI_Isend(&out, 1, MPI_INT, right, RACE_TAG + i, MPI_COMM_WORLD, &sreq);
        shm_spin_us(rand() % 20);
        MPI_Cancel(&sreq);
        poll_a_while(40);
        MPI_Irecv(&in, 1, MPI_INT, left, RACE_TAG + i, MPI_COMM_WORLD, &rreq);
        MPI_Wait(&sreq, &st);
        took = cancelled(&st);
        MPI_Sendrecv(&took, 1, MPI_INT, right, VERDICT_TAG, &left_took, 1, MPI_INT, left,
                     VERDICT_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (left_took) /* then no message can match: the receive is cancelled */
            MPI_Cancel(&rreq);
        MPI_Wait(&rreq, &st);
        got = !cancelled(&st);
        if (got == left_took)
            p2p_die("race %d: the left neighbour's send %s and this receive %s", i,
                    left_took ? "was cancelled" : "was not cancelled",
                    got ? "got it" : "got nothing");
        if (got && in != left * NRACE + i)
            p2p_die("race %d: received %d, expected %d", i, in, left * NRACE + i);
        taken += took;
        arrived += !took;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int totals[2] = {taken, arrived}, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (p2p_rank == 0)
        printf("p2p_shm_send_cancel: races: %d cancelled, %d received\n", sums[0], sums[1]);
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_send_cancel", &argc, &argv, MPI_THREAD_SINGLE);
    may_fail = argc > 1 && strcmp(argv[1], "may-fail") == 0;
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    srand((unsigned)p2p_rank + 1);
    MPI_Type_vector(BIG / (int)sizeof(double), 1, 2, MPI_DOUBLE, &strided);
    MPI_Type_commit(&strided);

    unreceived_sends();
    MPI_Barrier(MPI_COMM_WORLD);
    received_send();
    MPI_Barrier(MPI_COMM_WORLD);
    if (!may_fail)
        self_send();
    freed_after_cancel();
    MPI_Barrier(MPI_COMM_WORLD);
    races();

    MPI_Type_free(&strided);
    p2p_finish();
    return 0;
}
