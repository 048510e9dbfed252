/* p2p_nonblocking: many outstanding nonblocking operations, and every way
 * of completing them.
 *
 * For each completion call (Waitall, Waitall with MPI_STATUSES_IGNORE,
 * Waitany, Waitsome, Testall, Testany, Testsome) every rank posts NMSG
 * receives from its left neighbour and NMSG sends to its right one, one tag
 * each, of sizes from 0 B to 64 KiB (eager and rendezvous), in a shuffled
 * order, with MPI_REQUEST_NULL entries mixed in, all in one array; then it
 * completes the array with that call and checks that every operation
 * finished exactly once, no null entry was reported, each receive's status
 * and data, that completed entries became MPI_REQUEST_NULL, and that a call
 * on the finished array reports nothing left (MPI_UNDEFINED, or flag true).
 *
 * Then: MPI_Request_free of a send in flight (the message still arrives
 * whole), and MPI_Request_get_status(_any, _all, _some), which report
 * completion without freeing the request. */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NMSG = 200,                /* messages each way per rank and variant */
    NNULL = 17,                /* MPI_REQUEST_NULL entries in the array */
    NENTRY = 2 * NMSG + NNULL,
    LONG_SIZE = 65536,
    MAX_TOTAL = NMSG * 2048 + 10 * LONG_SIZE, /* bytes of all messages */
};

enum variant { WAITALL, WAITALL_IGNORE, WAITANY, WAITSOME, TESTALL, TESTANY, TESTSOME, NVARIANT };

_Static_assert(MAX_TOTAL >= 1 << 20, "free_send_in_flight's message fits the buffers");

static const char *const variant_name[NVARIANT] = {
    "MPI_Waitall", "MPI_Waitall(MPI_STATUSES_IGNORE)", "MPI_Waitany", "MPI_Waitsome",
    "MPI_Testall", "MPI_Testany", "MPI_Testsome"};

enum kind { RECV, SEND, NONE };

struct entry {
    enum kind kind;
    int tag;
    unsigned char *buf;
    int done;
};

static int left, right;
static struct entry entries[NENTRY];
static MPI_Request reqs[NENTRY];
static MPI_Status statuses[NENTRY];
static int indices[NENTRY];
static unsigned char *sendbuf, *recvbuf;
static unsigned rng;

/* Every 25th message is long (rendezvous); the others 0 .. 1998 bytes. */
static int size_of(int tag)
{
    return tag % 25 == 3 ? LONG_SIZE + tag : tag * 37 % 1999;
}

static unsigned seed_of(int src, enum variant v, int tag)
{
    return (unsigned)(src * 1000 + v) * 1000u + (unsigned)tag;
}

static unsigned next_random(void)
{
    rng = rng * 1103515245u + 12345u;
    return rng >> 8;
}

/* The entries of variant v in a shuffled order, their buffers laid out in
 * tag order. */
static void make_entries(enum variant v)
{
    size_t soff = 0, roff = 0;

    for (int t = 0; t < NMSG; t++) {
        entries[2 * t] = (struct entry){RECV, t, recvbuf + roff, 0};
        entries[2 * t + 1] = (struct entry){SEND, t, sendbuf + soff, 0};
        p2p_fill(sendbuf + soff, (size_t)size_of(t), seed_of(p2p_rank, v, t));
        memset(recvbuf + roff, 0, (size_t)size_of(t));
        soff += (size_t)size_of(t);
        roff += (size_t)size_of(t);
    }
    for (int i = 2 * NMSG; i < NENTRY; i++)
        entries[i] = (struct entry){NONE, -1, NULL, 0};
    for (int i = NENTRY - 1; i > 0; i--) {
        int j = (int)(next_random() % (unsigned)(i + 1));
        struct entry e = entries[i];

        entries[i] = entries[j];
        entries[j] = e;
    }
}

static void post(void)
{
    for (int i = 0; i < NENTRY; i++) {
        struct entry *e = &entries[i];

        if (e->kind == RECV)
            p2p_check_ok("MPI_Irecv", MPI_Irecv(e->buf, size_of(e->tag), MPI_BYTE, left,
                                                e->tag, MPI_COMM_WORLD, &reqs[i]));
        else if (e->kind == SEND)
            p2p_check_ok("MPI_Isend", MPI_Isend(e->buf, size_of(e->tag), MPI_BYTE, right,
                                                e->tag, MPI_COMM_WORLD, &reqs[i]));
        else
            reqs[i] = MPI_REQUEST_NULL;
    }
}

/* Entry i was reported complete, with status st (NULL: ignored). */
static void completed(enum variant v, int i, const MPI_Status *st)
{
    struct entry *e = &entries[i];
    char what[128];

    snprintf(what, sizeof what, "%s: entry %d (%s of tag %d)", variant_name[v], i,
             e->kind == RECV ? "receive" : e->kind == SEND ? "send" : "MPI_REQUEST_NULL",
             e->tag);
    if (e->kind == NONE || e->done)
        p2p_die("%s reported complete %s", what, e->done ? "twice" : "although null");
    if (reqs[i] != MPI_REQUEST_NULL)
        p2p_die("%s: the handle is not MPI_REQUEST_NULL after completion", what);
    e->done = 1;
    if (e->kind != RECV)
        return;
    if (st)
        p2p_check_status(what, st, left, e->tag, MPI_BYTE, size_of(e->tag));
    p2p_check_data(what, e->buf, (size_t)size_of(e->tag), seed_of(left, v, e->tag));
}

static void complete_all(enum variant v)
{
    int flag = 0;

    switch (v) {
    case WAITALL:
        p2p_check_ok("MPI_Waitall", MPI_Waitall(NENTRY, reqs, statuses));
        break;
    case WAITALL_IGNORE:
        p2p_check_ok("MPI_Waitall", MPI_Waitall(NENTRY, reqs, MPI_STATUSES_IGNORE));
        break;
    default:
        while (!flag)
            p2p_check_ok("MPI_Testall", MPI_Testall(NENTRY, reqs, &flag, statuses));
        break;
    }
    for (int i = 0; i < NENTRY; i++)
        if (entries[i].kind != NONE)
            completed(v, i, v == WAITALL_IGNORE ? NULL : &statuses[i]);
}

/* Waitany/Testany until they say no active request is left. */
static void complete_any(enum variant v)
{
    MPI_Status st;
    int index, flag;

    for (;;) {
        if (v == WAITANY) {
            p2p_check_ok("MPI_Waitany", MPI_Waitany(NENTRY, reqs, &index, &st));
            flag = 1;
        } else {
            p2p_check_ok("MPI_Testany", MPI_Testany(NENTRY, reqs, &index, &flag, &st));
        }
        if (!flag)
            continue;
        if (index == MPI_UNDEFINED)
            break;
        if (index < 0 || index >= NENTRY)
            p2p_die("%s returned index %d", variant_name[v], index);
        completed(v, index, &st);
    }
    p2p_check_empty("the status of a call with no active request left", &st);
}

/* Waitsome/Testsome until outcount is MPI_UNDEFINED. */
static void complete_some(enum variant v)
{
    int outcount;

    for (;;) {
        if (v == WAITSOME)
            p2p_check_ok("MPI_Waitsome",
                         MPI_Waitsome(NENTRY, reqs, &outcount, indices, statuses));
        else
            p2p_check_ok("MPI_Testsome",
                         MPI_Testsome(NENTRY, reqs, &outcount, indices, statuses));
        if (outcount == MPI_UNDEFINED)
            break;
        if (outcount < 0 || outcount > NENTRY || (v == WAITSOME && outcount == 0))
            p2p_die("%s returned outcount %d", variant_name[v], outcount);
        for (int k = 0; k < outcount; k++) {
            if (indices[k] < 0 || indices[k] >= NENTRY)
                p2p_die("%s returned index %d", variant_name[v], indices[k]);
            completed(v, indices[k], &statuses[k]);
        }
    }
}

static void run_variant(enum variant v)
{
    make_entries(v);
    post();
    if (v == WAITANY || v == TESTANY)
        complete_any(v);
    else if (v == WAITSOME || v == TESTSOME)
        complete_some(v);
    else
        complete_all(v);
    for (int i = 0; i < NENTRY; i++)
        if (entries[i].kind != NONE && !entries[i].done)
            p2p_die("%s: entry %d (tag %d) was never reported complete", variant_name[v], i,
                    entries[i].tag);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A freed send still delivers its message; the receiver says when it has
 * it, and only then may the buffer be reused. */
static void free_send_in_flight(void)
{
    const int n = 1 << 20, tag = 500;
    MPI_Request req;
    MPI_Status st;
    int ack;

    p2p_fill(sendbuf, (size_t)n, seed_of(p2p_rank, NVARIANT, tag));
    MPI_Isend(sendbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req);
    p2p_check_ok("MPI_Request_free of a send in flight", MPI_Request_free(&req));
    if (req != MPI_REQUEST_NULL)
        p2p_die("MPI_Request_free did not set the handle to MPI_REQUEST_NULL");
    MPI_Barrier(MPI_COMM_WORLD); /* the receive comes after the free */
    MPI_Recv(recvbuf, n, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st);
    p2p_check_status("message of a freed send", &st, left, tag, MPI_BYTE, n);
    p2p_check_data("message of a freed send", recvbuf, (size_t)n,
                   seed_of(left, NVARIANT, tag));
    MPI_Sendrecv(&ack, 1, MPI_INT, left, tag + 1, &ack, 1, MPI_INT, right, tag + 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Polls MPI_Request_get_status on the receive until it is complete; the
 * request must stay valid, and MPI_Wait then gives the same status. */
static void get_status(void)
{
    const int tag = 600;
    int out[2] = {p2p_rank, 7}, in[2][2], flag = 0, index, outcount;
    MPI_Request req[2];
    MPI_Status st, st2[2];

    MPI_Irecv(in[0], 2, MPI_INT, left, tag, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(in[1], 2, MPI_INT, left, tag + 1, MPI_COMM_WORLD, &req[1]);
    MPI_Send(out, 2, MPI_INT, right, tag, MPI_COMM_WORLD);
    MPI_Send(out, 2, MPI_INT, right, tag + 1, MPI_COMM_WORLD);
    while (!flag)
        p2p_check_ok("MPI_Request_get_status", MPI_Request_get_status(req[0], &flag, &st));
    p2p_check_status("MPI_Request_get_status", &st, left, tag, MPI_INT, 2);
    if (req[0] == MPI_REQUEST_NULL)
        p2p_die("MPI_Request_get_status set the handle to MPI_REQUEST_NULL");
    for (flag = 0; !flag;)
        MPI_Request_get_status_all(2, req, &flag, st2);
    p2p_check_status("MPI_Request_get_status_all [0]", &st2[0], left, tag, MPI_INT, 2);
    p2p_check_status("MPI_Request_get_status_all [1]", &st2[1], left, tag + 1, MPI_INT, 2);
    MPI_Request_get_status_any(2, req, &index, &flag, &st);
    if (!flag || index < 0 || index > 1)
        p2p_die("MPI_Request_get_status_any on two complete requests: flag %d index %d", flag,
                index);
    p2p_check_status("MPI_Request_get_status_any", &st, left, tag + index, MPI_INT, 2);
    MPI_Request_get_status_some(2, req, &outcount, indices, st2);
    if (outcount != 2)
        p2p_die("MPI_Request_get_status_some on two complete requests: outcount %d", outcount);
    if (req[0] == MPI_REQUEST_NULL || req[1] == MPI_REQUEST_NULL)
        p2p_die("MPI_Request_get_status_* set a handle to MPI_REQUEST_NULL");
    p2p_check_ok("MPI_Waitall after MPI_Request_get_status", MPI_Waitall(2, req, st2));
    for (int i = 0; i < 2; i++) {
        p2p_check_status("MPI_Waitall after MPI_Request_get_status", &st2[i], left, tag + i,
                         MPI_INT, 2);
        if (in[i][0] != left || in[i][1] != 7)
            p2p_die("receive %d: got {%d, %d}, expected {%d, 7}", i, in[i][0], in[i][1], left);
    }
}

int main(int argc, char **argv)
{
    p2p_init("p2p_nonblocking", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    rng = 12345u + (unsigned)p2p_rank;
    sendbuf = malloc(MAX_TOTAL);
    recvbuf = malloc(MAX_TOTAL);
    if (!sendbuf || !recvbuf)
        p2p_die("out of memory");

    for (int v = 0; v < NVARIANT; v++)
        run_variant(v);
    free_send_in_flight();
    MPI_Barrier(MPI_COMM_WORLD);
    get_status();
    free(sendbuf);
    free(recvbuf);
    p2p_finish();
    return 0;
}
