/* p2p_probe: probes and matched probes.
 *
 * 1. Probe: every rank r > 0 sends rank 0 one message of tag 100 + r and
 *    len(r) ints, some long enough for rendezvous. Rank 0 probes with both
 *    wildcards, checks source, tag and count, probes again for that source
 *    and tag (a probe takes nothing: the same message), and receives
 *    exactly the probed count from the probed source.
 * 2. Iprobe: the same with MPI_Iprobe polled, and then with one wildcard at
 *    a time; an Iprobe for a tag nobody sends says flag false.
 * 3. Mprobe/Improbe: every rank r > 0 sends rank 0 a message of one tag
 *    (rank 1 two, so that two ranks suffice). Rank 0 takes one with
 *    MPI_Mprobe(MPI_ANY_SOURCE), then receives all the others with wildcard
 *    MPI_Recv, which must never return the probed one, and only then
 *    receives the probed one with MPI_Mrecv: its data must be what the
 *    probe said. The same with MPI_Improbe and MPI_Imrecv.
 * 4. MPI_PROC_NULL: Probe and Iprobe give the status of MPI_PROC_NULL
 *    (source MPI_PROC_NULL, no bytes); Mprobe and Improbe give
 *    MPI_MESSAGE_NO_PROC, whose Mrecv/Imrecv leaves the buffer untouched
 *    with that status too. */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PROBE_TAG = 100,
    IPROBE_TAG = 200,
    ONE_WILD_TAG = 300,
    NEVER_TAG = 999,
    MPROBE_TAG = 400,
    IMPROBE_TAG = 500,
    MAX_LEN = 70000, /* ints */
};

static int *buf;

static int len_of(int r, int tag)
{
    return r % 3 == 1 ? 65536 + r + tag % 7 : 10 * r + tag % 7;
}

static unsigned seed_of(int src, int tag, int seq)
{
    return (unsigned)src * 131071u + (unsigned)tag * 31u + (unsigned)seq;
}

static void send_one(int tag, int seq)
{
    int n = len_of(p2p_rank, tag) + seq;

    p2p_fill(buf, (size_t)n * sizeof(int), seed_of(p2p_rank, tag, seq));
    MPI_Send(buf, n, MPI_INT, 0, tag, MPI_COMM_WORLD);
}

/* Sends rank 1's two messages of phase 3 at once: rank 0 receives the
 * second before the first, which a blocking rendezvous send of the first
 * would never let happen. */
static void send_two(int tag)
{
    int n[2] = {len_of(p2p_rank, tag), len_of(p2p_rank, tag) + 1};
    int *copy = malloc((size_t)n[1] * sizeof(int));
    MPI_Request req[2];

    if (!copy)
        p2p_die("out of memory");
    p2p_fill(buf, (size_t)n[0] * sizeof(int), seed_of(p2p_rank, tag, 0));
    p2p_fill(copy, (size_t)n[1] * sizeof(int), seed_of(p2p_rank, tag, 1));
    MPI_Isend(buf, n[0], MPI_INT, 0, tag, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(copy, n[1], MPI_INT, 0, tag, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    free(copy);
}

/* Receives exactly what st describes and checks it. */
static void recv_probed(const char *what, const MPI_Status *st, int seq)
{
    MPI_Status rst;
    int n;

    MPI_Get_count(st, MPI_INT, &n);
    memset(buf, 0, (size_t)n * sizeof(int));
    MPI_Recv(buf, n, MPI_INT, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, &rst);
    p2p_check_status(what, &rst, st->MPI_SOURCE, st->MPI_TAG, MPI_INT, n);
    p2p_check_data(what, buf, (size_t)n * sizeof(int), seed_of(st->MPI_SOURCE, st->MPI_TAG, seq));
}

/* The status says a message of `base` + src of the right length from a
 * rank not seen yet. */
static void check_probed(const char *what, const MPI_Status *st, int base, char *seen)
{
    int src = st->MPI_SOURCE;

    if (src < 1 || src >= p2p_size || seen[src])
        p2p_die("%s: a message from source %d (tag %d)%s", what, src, st->MPI_TAG,
                src >= 1 && src < p2p_size ? ", whose message was received already" : "");
    seen[src] = 1;
    p2p_check_status(what, st, src, base + src, MPI_INT, len_of(src, base + src));
}

static void probe(void)
{
    char seen[p2p_size];
    MPI_Status st, again;

    if (p2p_rank != 0) {
        send_one(PROBE_TAG + p2p_rank, 0);
        return;
    }
    memset(seen, 0, sizeof seen);
    for (int m = 1; m < p2p_size; m++) {
        p2p_check_ok("MPI_Probe", MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check_probed("MPI_Probe(ANY_SOURCE, ANY_TAG)", &st, PROBE_TAG, seen);
        MPI_Probe(st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &again);
        p2p_check_status("a second MPI_Probe of the same message", &again, st.MPI_SOURCE,
                         st.MPI_TAG, MPI_INT, len_of(st.MPI_SOURCE, st.MPI_TAG));
        recv_probed("the message MPI_Probe saw", &st, 0);
    }
}

/* Polls MPI_Iprobe(source, tag) until it finds a message. */
static void iprobe_until(int source, int tag, MPI_Status *st)
{
    int flag = 0;

    while (!flag)
        p2p_check_ok("MPI_Iprobe", MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, st));
}

static void iprobe(void)
{
    char seen[p2p_size];
    MPI_Status st;
    int flag = 1;

    /* The barrier keeps the messages of the two parts apart: a probe with
     * both wildcards would see either. */
    if (p2p_rank != 0) {
        send_one(IPROBE_TAG + p2p_rank, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        send_one(ONE_WILD_TAG + p2p_rank, 0);
        send_one(ONE_WILD_TAG + p2p_rank, 1);
        return;
    }
    memset(seen, 0, sizeof seen);
    for (int m = 1; m < p2p_size; m++) {
        iprobe_until(MPI_ANY_SOURCE, MPI_ANY_TAG, &st);
        check_probed("MPI_Iprobe(ANY_SOURCE, ANY_TAG)", &st, IPROBE_TAG, seen);
        recv_probed("the message MPI_Iprobe saw", &st, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Backwards, so that the tag rather than arrival order picks. */
    for (int r = p2p_size - 1; r > 0; r--) {
        iprobe_until(MPI_ANY_SOURCE, ONE_WILD_TAG + r, &st);
        p2p_check_status("MPI_Iprobe(ANY_SOURCE, tag)", &st, r, ONE_WILD_TAG + r, MPI_INT,
                         len_of(r, ONE_WILD_TAG + r));
        recv_probed("the message MPI_Iprobe(ANY_SOURCE, tag) saw", &st, 0);
        iprobe_until(r, MPI_ANY_TAG, &st);
        p2p_check_status("MPI_Iprobe(source, ANY_TAG)", &st, r, ONE_WILD_TAG + r, MPI_INT,
                         len_of(r, ONE_WILD_TAG + r) + 1);
        recv_probed("the message MPI_Iprobe(source, ANY_TAG) saw", &st, 1);
    }
    MPI_Iprobe(MPI_ANY_SOURCE, NEVER_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag)
        p2p_die("MPI_Iprobe found a message of tag %d, which nobody sent", NEVER_TAG);
}

/* Messages of `tag` to rank 0 in phase 3: one per rank, two from rank 1
 * (send_two). */
static int mprobe_count(int r)
{
    return r == 1 ? 2 : 1;
}

static void matched_probe(int tag, int nonblocking)
{
    const char *how = nonblocking ? "MPI_Improbe" : "MPI_Mprobe";
    int total = 0, flag = 0, n, *held;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    MPI_Status pst, st;
    char what[128];

    if (p2p_rank == 1)
        send_two(tag);
    else if (p2p_rank != 0)
        send_one(tag, 0);
    if (p2p_rank != 0)
        return;
    for (int r = 1; r < p2p_size; r++)
        total += mprobe_count(r);
    if (nonblocking)
        while (!flag)
            p2p_check_ok(how, MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &msg,
                                          &pst));
    else
        p2p_check_ok(how, MPI_Mprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &msg, &pst));
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
        p2p_die("%s returned no message handle", how);
    /* The first message of a sender is the one probed (non-overtaking). */
    snprintf(what, sizeof what, "%s(ANY_SOURCE, %d)", how, tag);
    if (pst.MPI_SOURCE < 1 || pst.MPI_SOURCE >= p2p_size)
        p2p_die("%s: source %d", what, pst.MPI_SOURCE);
    p2p_check_status(what, &pst, pst.MPI_SOURCE, tag, MPI_INT, len_of(pst.MPI_SOURCE, tag));
    /* Every other message goes to a wildcard receive; none is the probed
     * one, whose sender's later message (rank 1) comes instead. */
    int next[p2p_size]; /* the next message expected from each rank */
    for (int r = 0; r < p2p_size; r++)
        next[r] = r == pst.MPI_SOURCE;
    for (int m = 1; m < total; m++) {
        int src, seq;

        MPI_Recv(buf, MAX_LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        src = st.MPI_SOURCE;
        if (src < 1 || src >= p2p_size)
            p2p_die("wildcard receive after %s: source %d", how, src);
        if (next[src] >= mprobe_count(src))
            p2p_die("a wildcard MPI_Recv got a message %d of rank %d, which sent %d%s", next[src],
                    src, mprobe_count(src),
                    src == pst.MPI_SOURCE ? " (the probed one is taken already)" : "");
        seq = next[src]++;
        snprintf(what, sizeof what, "wildcard receive after %s", how);
        p2p_check_status(what, &st, src, tag, MPI_INT, len_of(src, tag) + seq);
        p2p_check_data(what, buf, (size_t)(len_of(src, tag) + seq) * sizeof(int),
                       seed_of(src, tag, seq));
    }
    MPI_Get_count(&pst, MPI_INT, &n);
    held = malloc((size_t)n * sizeof(int) + 1);
    if (!held)
        p2p_die("out of memory");
    snprintf(what, sizeof what, "%s of the message %s took", nonblocking ? "MPI_Imrecv" : "MPI_Mrecv",
             how);
    if (nonblocking) {
        p2p_check_ok(what, MPI_Imrecv(held, n, MPI_INT, &msg, &req));
        p2p_check_ok(what, MPI_Wait(&req, &st));
    } else {
        p2p_check_ok(what, MPI_Mrecv(held, n, MPI_INT, &msg, &st));
    }
    if (msg != MPI_MESSAGE_NULL)
        p2p_die("%s left the message handle non-null", what);
    p2p_check_status(what, &st, pst.MPI_SOURCE, tag, MPI_INT, n);
    p2p_check_data(what, held, (size_t)n * sizeof(int), seed_of(pst.MPI_SOURCE, tag, 0));
    free(held);
}

static void proc_null(void)
{
    int untouched[4] = {1, 2, 3, 4}, flag = 0;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Request req;
    MPI_Status st;

    MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    p2p_check_proc_null("MPI_Probe(MPI_PROC_NULL)", &st);
    MPI_Iprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &st);
    if (!flag)
        p2p_die("MPI_Iprobe(MPI_PROC_NULL): flag false");
    p2p_check_proc_null("MPI_Iprobe(MPI_PROC_NULL)", &st);

    MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &msg, &st);
    if (msg != MPI_MESSAGE_NO_PROC)
        p2p_die("MPI_Mprobe(MPI_PROC_NULL) did not return MPI_MESSAGE_NO_PROC");
    p2p_check_proc_null("MPI_Mprobe(MPI_PROC_NULL)", &st);
    p2p_check_ok("MPI_Mrecv(MPI_MESSAGE_NO_PROC)",
                 MPI_Mrecv(untouched, 4, MPI_INT, &msg, &st));
    p2p_check_proc_null("MPI_Mrecv(MPI_MESSAGE_NO_PROC)", &st);
    if (msg != MPI_MESSAGE_NULL)
        p2p_die("MPI_Mrecv(MPI_MESSAGE_NO_PROC) did not set the handle to MPI_MESSAGE_NULL");

    flag = 0;
    MPI_Improbe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &msg, &st);
    if (!flag || msg != MPI_MESSAGE_NO_PROC)
        p2p_die("MPI_Improbe(MPI_PROC_NULL): flag %d, %s MPI_MESSAGE_NO_PROC", flag,
                msg == MPI_MESSAGE_NO_PROC ? "" : "not");
    p2p_check_proc_null("MPI_Improbe(MPI_PROC_NULL)", &st);
    p2p_check_ok("MPI_Imrecv(MPI_MESSAGE_NO_PROC)",
                 MPI_Imrecv(untouched, 4, MPI_INT, &msg, &req));
    p2p_check_ok("MPI_Wait of MPI_Imrecv(MPI_MESSAGE_NO_PROC)", MPI_Wait(&req, &st));
    p2p_check_proc_null("MPI_Imrecv(MPI_MESSAGE_NO_PROC)", &st);
    if (untouched[0] != 1 || untouched[1] != 2 || untouched[2] != 3 || untouched[3] != 4)
        p2p_die("a receive of MPI_MESSAGE_NO_PROC wrote into the buffer");
}

int main(int argc, char **argv)
{
    p2p_init("p2p_probe", &argc, &argv, MPI_THREAD_SINGLE);
    buf = malloc(MAX_LEN * sizeof(int));
    if (!buf)
        p2p_die("out of memory");

    proc_null();
    probe();
    MPI_Barrier(MPI_COMM_WORLD);
    iprobe();
    MPI_Barrier(MPI_COMM_WORLD);
    matched_probe(MPROBE_TAG, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    matched_probe(IMPROBE_TAG, 1);
    free(buf);
    p2p_finish();
    return 0;
}
