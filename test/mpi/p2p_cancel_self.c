/* p2p_cancel_self: MPI_Cancel of a send is decided consistently with what
 * its receiver sees, for sends to the rank itself and to another rank,
 * whatever carries them (the shared-memory rings by default, UCX with
 * OMPI_LITE_P2P_SHM=0).
 *
 * The rules:
 * - A cancel takes the message back or fails, never both: when the send
 *   reports MPI_Test_cancelled true the receiver never gets it (a later
 *   message of the same tag is the one received, and nothing of the tag is
 *   left); when false, the receive gets it intact.
 * - A message that its receiver has seen with MPI_Iprobe, MPI_Probe,
 *   MPI_Improbe or MPI_Mprobe can no longer be cancelled.
 * - A cancel of a send to the rank itself is decided within MPI_Cancel:
 *   when the first MPI_Request_get_status after it says "not complete", the
 *   cancel has failed, and a receive posted then gets the message.
 *
 * 1. The scenario of the last rule, for each case below: a send to itself,
 *    MPI_Cancel, MPI_Request_get_status once, then the receive unless that
 *    reported the send cancelled (the receive used to wait for ever: the
 *    cancel went round the rank's own ring and took the message back after
 *    the status had said nothing).
 * 2. Rounds, each on its own four tags (data, verdict, "seen", "cancel
 *    sent"), in which every rank sends to a peer (itself, then its right
 *    neighbour) and receives from a peer (itself, then its left one):
 *    - cancel first: the sender cancels at once and says so ("cancel
 *      sent", which follows the cancel on the way to the receiver); the
 *      receiver looks for the message only after that;
 *    - seen first: the receiver sees the message with one of the four
 *      probes and says so ("seen"); only then does the sender cancel; the
 *      cancel must fail;
 *    - races: the sender cancels after a random pause while the receiver
 *      probes (MPI_Iprobe or MPI_Improbe) from the start.
 *    A receiver that saw the message receives it only after "cancel sent",
 *    so the cancel has met the seen message before the receive is posted.
 *    The sender completes its request with MPI_Request_get_status (then
 *    MPI_Wait, which must agree) and sends its verdict; then, if it was
 *    cancelled, a FOLLOW_BYTES message of the same tag, which must be what
 *    the receiver gets. The sends: MPI_Isend of 8 B (copied through the
 *    ring) and 256 KiB (copied out of the sender), MPI_Issend of 8 B
 *    (announced, its data over UCX) and 256 KiB.
 * With the argument "threads" (MPI_THREAD_MULTIPLE), one thread of each
 * rank plays every round's sender, cancelling and testing, while another
 * plays the receiver, probing and receiving. Every wait has a deadline: a
 * receive that a bug left without its message fails, naming the round. */
#include "p2p_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    BIG = 256 * 1024,
    FOLLOW_BYTES = 24, /* differs from every case's size */
    NRACE = 12,        /* race rounds per case and direction */
    SCENARIO_TAG = 50,
    TAG0 = 100, /* round k: TAG0 + 4k data, + 1 verdict, + 2 seen, + 3 cancel sent */
};
#define DEADLINE_S 20.0

typedef struct {
    const char *name;
    int sync; /* MPI_Issend, else MPI_Isend */
    int bytes;
} send_case_t;

static const send_case_t cases[] = {
    {"MPI_Isend of 8 B", 0, 8},
    {"MPI_Isend of 32 KiB", 0, 32 * 1024}, /* by address on one host, above 4 KiB */
    {"MPI_Isend of 256 KiB", 0, BIG},
    {"MPI_Issend of 8 B", 1, 8},
    {"MPI_Issend of 256 KiB", 1, BIG},
};
#define NCASES ((int)(sizeof(cases) / sizeof(cases[0])))

typedef enum { CANCEL_FIRST, SEEN_FIRST, RACE } plan_t;
typedef enum { IPROBE, PROBE, IMPROBE, MPROBE } probe_t;
static const char *plan_name[] = {"cancel first", "seen first", "race"};
static const char *probe_name[] = {"MPI_Iprobe", "MPI_Probe", "MPI_Improbe", "MPI_Mprobe"};

typedef struct {
    const send_case_t *c;
    plan_t plan;
    probe_t probe;
    int to_self;
    int tag;
} round_t;

#define MAX_ROUNDS (2 * NCASES * (5 + NRACE))
static round_t rounds[MAX_ROUNDS];
static int nrounds, left, right, threaded;
static int totals[2]; /* sends cancelled, sends delivered (the sender's side) */

static int cancelled(const MPI_Status *st)
{
    int flag;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

static unsigned data_seed(int src, int k)
{
    return (unsigned)src * 65536u + 2u * (unsigned)k;
}

static void make_rounds(void)
{
    for (int to_self = 1; to_self >= 0; to_self--) {
        for (int i = 0; i < NCASES; i++) {
            round_t r = {&cases[i], CANCEL_FIRST, IPROBE, to_self, 0};
            rounds[nrounds++] = r;
            for (int p = IPROBE; p <= MPROBE; p++) {
                r.plan = SEEN_FIRST;
                r.probe = (probe_t)p;
                rounds[nrounds++] = r;
            }
            for (int j = 0; j < NRACE; j++) {
                r.plan = RACE;
                r.probe = j % 2 ? IMPROBE : IPROBE;
                rounds[nrounds++] = r;
            }
        }
    }
    for (int k = 0; k < nrounds; k++)
        rounds[k].tag = TAG0 + 4 * k;
}

static void start_send(const send_case_t *c, const void *buf, int dest, int tag,
                       MPI_Request *req)
{
    if (c->sync)
        MPI_Issend(buf, c->bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
    else
        MPI_Isend(buf, c->bytes, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
}

/* MPI_Wait with a deadline: a request that a bug never completes fails. */
static void await(MPI_Request *req, MPI_Status *st, const char *what)
{
    double until = MPI_Wtime() + DEADLINE_S;
    int flag = 0;
    while (MPI_Test(req, &flag, st), !flag) {
        if (MPI_Wtime() > until)
            p2p_die("%s: not complete after %.0f s", what, DEADLINE_S);
        if (threaded)
            sched_yield();
    }
}

/* ---- 1. the scenario ------------------------------------------------------ */

static void scenario(int i, unsigned char *out, unsigned char *in)
{
    const send_case_t *c = &cases[i];
    unsigned seed = 7000000u + 2u * (unsigned)i, follow_seed = seed + 1;
    char what[160];
    MPI_Request req, rreq;
    MPI_Status st;
    int flag;
    p2p_fill(out, (size_t)c->bytes, seed);
    start_send(c, out, p2p_rank, SCENARIO_TAG, &req);
    MPI_Cancel(&req);
    MPI_Request_get_status(req, &flag, &st);
    if (flag && cancelled(&st)) {
        snprintf(what, sizeof(what), "%s to itself, cancelled", c->name);
        MPI_Iprobe(p2p_rank, SCENARIO_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            p2p_die("%s: its message is still there", what);
        MPI_Wait(&req, &st);
        if (!cancelled(&st))
            p2p_die("%s: MPI_Wait says not cancelled", what);
        p2p_fill(out, FOLLOW_BYTES, follow_seed); /* the next message of the tag */
        MPI_Isend(out, FOLLOW_BYTES, MPI_BYTE, p2p_rank, SCENARIO_TAG, MPI_COMM_WORLD, &req);
        MPI_Irecv(in, BIG, MPI_BYTE, p2p_rank, SCENARIO_TAG, MPI_COMM_WORLD, &rreq);
        await(&rreq, &st, what);
        p2p_check_status(what, &st, p2p_rank, SCENARIO_TAG, MPI_BYTE, FOLLOW_BYTES);
        p2p_check_data(what, in, FOLLOW_BYTES, follow_seed);
        await(&req, &st, what);
        return;
    }
    snprintf(what, sizeof(what),
             "%s to itself, cancelled, MPI_Request_get_status %s: the receive", c->name,
             flag ? "complete, not cancelled" : "not complete");
    MPI_Irecv(in, BIG, MPI_BYTE, p2p_rank, SCENARIO_TAG, MPI_COMM_WORLD, &rreq);
    await(&rreq, &st, what);
    p2p_check_status(what, &st, p2p_rank, SCENARIO_TAG, MPI_BYTE, c->bytes);
    p2p_check_data(what, in, (size_t)c->bytes, seed);
    await(&req, &st, what);
    if (cancelled(&st))
        p2p_die("%s got the message, yet the send says cancelled", what);
}

/* ---- 2. rounds: the sender ------------------------------------------------- */

typedef enum { S_START, S_WAIT_SEEN, S_CANCEL, S_STATUS, S_FINISH, S_DONE } sender_phase_t;

typedef struct {
    const round_t *rd;
    int k, peer;
    unsigned char *buf, *follow;
    MPI_Request req, notice_req, verdict_req, follow_req;
    sender_phase_t phase;
    int first_flag, first_cancelled, verdict;
    double cancel_at;
    unsigned rng;
} sender_t;

static void sender_fail(const sender_t *s, const char *fmt, const char *detail)
{
    p2p_die("round %d (%s, %s to %srank %d, %s): %s%s", s->k, plan_name[s->rd->plan],
            s->rd->c->name, s->peer == p2p_rank ? "itself, " : "", s->peer,
            probe_name[s->rd->probe], fmt, detail);
}

/* The request is complete: its verdict must agree with everything said
 * before, then goes to the receiver (with the next message of the tag
 * when the send was cancelled). */
static void sender_settle(sender_t *s, const MPI_Status *st)
{
    MPI_Status waited;
    s->verdict = cancelled(st);
    if (s->first_flag && s->first_cancelled != s->verdict)
        sender_fail(s, "MPI_Request_get_status changed its mind about the cancel", "");
    if (s->peer == p2p_rank && !s->first_flag && s->verdict)
        sender_fail(s, "a cancel of a send to itself was undecided when MPI_Cancel returned, ",
                    "and took the message back later");
    if (s->rd->plan == SEEN_FIRST && s->verdict)
        sender_fail(s, "a send that its receiver had seen by probe was cancelled", "");
    MPI_Wait(&s->req, &waited);
    if (cancelled(&waited) != s->verdict)
        sender_fail(s, "MPI_Wait and MPI_Request_get_status disagree on the cancel", "");
    totals[s->verdict ? 0 : 1]++;
    const round_t *rd = s->rd;
    MPI_Isend(&s->verdict, 1, MPI_INT, s->peer, rd->tag + 1, MPI_COMM_WORLD, &s->verdict_req);
    s->follow_req = MPI_REQUEST_NULL;
    if (s->verdict) {
        p2p_fill(s->follow, FOLLOW_BYTES, data_seed(p2p_rank, s->k) + 1);
        MPI_Isend(s->follow, FOLLOW_BYTES, MPI_BYTE, s->peer, rd->tag, MPI_COMM_WORLD,
                  &s->follow_req);
    }
    s->phase = S_FINISH;
}

/* One step of the sender's round; never blocks. */
static void sender_step(sender_t *s)
{
    const round_t *rd = s->rd;
    MPI_Status st;
    int flag;
    switch (s->phase) {
    case S_START:
        p2p_fill(s->buf, (size_t)rd->c->bytes, data_seed(p2p_rank, s->k));
        start_send(rd->c, s->buf, s->peer, rd->tag, &s->req);
        s->rng = s->rng * 1103515245u + 12345u;
        s->cancel_at = MPI_Wtime() + (rd->plan == RACE ? (s->rng >> 16) % 40 * 1e-6 : 0);
        s->phase = rd->plan == SEEN_FIRST ? S_WAIT_SEEN : S_CANCEL;
        break;
    case S_WAIT_SEEN:
        MPI_Iprobe(s->peer, rd->tag + 2, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            MPI_Recv(NULL, 0, MPI_BYTE, s->peer, rd->tag + 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            s->phase = S_CANCEL;
        }
        break;
    case S_CANCEL:
        if (MPI_Wtime() < s->cancel_at)
            break;
        MPI_Cancel(&s->req);
        MPI_Request_get_status(s->req, &s->first_flag, &st);
        s->first_cancelled = s->first_flag && cancelled(&st);
        /* Behind the cancel on the way to the receiver. */
        MPI_Isend(NULL, 0, MPI_BYTE, s->peer, rd->tag + 3, MPI_COMM_WORLD, &s->notice_req);
        s->phase = S_STATUS;
        if (s->first_flag)
            sender_settle(s, &st);
        break;
    case S_STATUS:
        MPI_Request_get_status(s->req, &flag, &st);
        if (flag)
            sender_settle(s, &st);
        break;
    case S_FINISH: {
        MPI_Request reqs[3] = {s->notice_req, s->verdict_req, s->follow_req};
        MPI_Testall(3, reqs, &flag, MPI_STATUSES_IGNORE);
        s->notice_req = reqs[0];
        s->verdict_req = reqs[1];
        s->follow_req = reqs[2];
        if (flag)
            s->phase = S_DONE;
        break;
    }
    case S_DONE: break;
    }
}

/* ---- 2. rounds: the receiver ---------------------------------------------- */

typedef enum {
    R_WATCH,
    R_PROBE,
    R_HOLD,
    R_RECEIVING,
    R_VERDICT,
    R_FOLLOW,
    R_END,
    R_DONE
} receiver_phase_t;

typedef struct {
    const round_t *rd;
    int k, source;
    unsigned char *in;
    MPI_Request recv_req, seen_req;
    MPI_Message msg;
    receiver_phase_t phase;
    int seen, got_notice, verdict_known, verdict;
} receiver_t;

static void receiver_fail(const receiver_t *r, const char *what)
{
    p2p_die("round %d (%s, %s from %srank %d, %s): %s", r->k, plan_name[r->rd->plan],
            r->rd->c->name, r->source == p2p_rank ? "itself, " : "", r->source,
            probe_name[r->rd->probe], what);
}

static void poll_notice(receiver_t *r)
{
    int flag;
    if (r->got_notice)
        return;
    MPI_Iprobe(r->source, r->rd->tag + 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        MPI_Recv(NULL, 0, MPI_BYTE, r->source, r->rd->tag + 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        r->got_notice = 1;
    }
}

static void poll_verdict(receiver_t *r)
{
    int flag;
    if (r->verdict_known)
        return;
    MPI_Iprobe(r->source, r->rd->tag + 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        MPI_Recv(&r->verdict, 1, MPI_INT, r->source, r->rd->tag + 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        r->verdict_known = 1;
    }
}

/* Looks for the message with the round's probe; blocking ones only where
 * it is known to be there and uncancelled (seen first). */
static int probe_message(receiver_t *r, MPI_Status *st)
{
    int flag = 1, tag = r->rd->tag;
    switch (r->rd->probe) {
    case IPROBE: MPI_Iprobe(r->source, tag, MPI_COMM_WORLD, &flag, st); break;
    case PROBE: MPI_Probe(r->source, tag, MPI_COMM_WORLD, st); break;
    case IMPROBE: MPI_Improbe(r->source, tag, MPI_COMM_WORLD, &flag, &r->msg, st); break;
    case MPROBE: MPI_Mprobe(r->source, tag, MPI_COMM_WORLD, &r->msg, st); break;
    }
    return flag;
}

static void post_receive(receiver_t *r)
{
    memset(r->in, 0, BIG);
    if (r->msg != MPI_MESSAGE_NULL)
        MPI_Imrecv(r->in, BIG, MPI_BYTE, &r->msg, &r->recv_req);
    else
        MPI_Irecv(r->in, BIG, MPI_BYTE, r->source, r->rd->tag, MPI_COMM_WORLD, &r->recv_req);
}

static void receiver_probe(receiver_t *r)
{
    MPI_Status st;
    if (probe_message(r, &st)) {
        int count;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count == FOLLOW_BYTES) { /* the next message: the verdict came before it */
            poll_verdict(r);
            if (!r->verdict_known || !r->verdict)
                receiver_fail(r, "the next message of the tag came while the first was not "
                                 "cancelled");
            post_receive(r);
            r->phase = R_FOLLOW;
            return;
        }
        p2p_check_status("the probed message", &st, r->source, r->rd->tag, MPI_BYTE,
                         r->rd->c->bytes);
        r->seen = 1;
        if (r->rd->plan == SEEN_FIRST)
            MPI_Isend(NULL, 0, MPI_BYTE, r->source, r->rd->tag + 2, MPI_COMM_WORLD,
                      &r->seen_req);
        r->phase = R_HOLD;
        return;
    }
    poll_notice(r);
    poll_verdict(r);
    if (!r->verdict_known)
        return;
    post_receive(r); /* the message if not cancelled, else the next one of the tag */
    r->phase = r->verdict ? R_FOLLOW : R_RECEIVING;
}

static void receiver_check(receiver_t *r, MPI_Status *st, int bytes, unsigned seed)
{
    p2p_check_status("the received message", st, r->source, r->rd->tag, MPI_BYTE, bytes);
    if (cancelled(st))
        receiver_fail(r, "a receive says cancelled");
    p2p_check_data("the received message", r->in, (size_t)bytes, seed);
}

static void receiver_step(receiver_t *r)
{
    MPI_Status st;
    int flag;
    switch (r->phase) {
    case R_WATCH: /* cancel first: the message is looked for after the cancel */
        poll_notice(r);
        if (r->got_notice)
            r->phase = R_PROBE;
        break;
    case R_PROBE: receiver_probe(r); break;
    case R_HOLD: /* seen: received only once the cancel has come */
        poll_notice(r);
        if (r->got_notice) {
            post_receive(r);
            r->phase = R_RECEIVING;
        }
        break;
    case R_RECEIVING:
        MPI_Test(&r->recv_req, &flag, &st);
        if (flag) {
            receiver_check(r, &st, r->rd->c->bytes, data_seed(r->source, r->k));
            r->phase = R_VERDICT;
        }
        break;
    case R_VERDICT:
        poll_verdict(r);
        if (r->verdict_known && r->verdict)
            receiver_fail(r, r->seen ? "received a message that it had seen by probe, and its "
                                       "send says cancelled"
                                     : "received a message whose send says cancelled");
        if (r->verdict_known)
            r->phase = R_END;
        break;
    case R_FOLLOW: /* cancelled: the next message of the tag is what arrives */
        MPI_Test(&r->recv_req, &flag, &st);
        if (flag) {
            receiver_check(r, &st, FOLLOW_BYTES, data_seed(r->source, r->k) + 1);
            r->phase = R_END;
        }
        break;
    case R_END:
        poll_notice(r);
        if (!r->got_notice)
            break;
        if (r->seen_req != MPI_REQUEST_NULL) {
            MPI_Test(&r->seen_req, &flag, MPI_STATUS_IGNORE);
            if (!flag)
                break;
        }
        MPI_Iprobe(r->source, r->rd->tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag)
            receiver_fail(r, "a message of the tag is left over");
        r->phase = R_DONE;
        break;
    case R_DONE: break;
    }
}

/* ---- 2. rounds: running them ---------------------------------------------- */

static void sender_init(sender_t *s, int k, unsigned char *buf, unsigned char *follow)
{
    memset(s, 0, sizeof(*s));
    s->rd = &rounds[k];
    s->k = k;
    s->peer = rounds[k].to_self ? p2p_rank : right;
    s->buf = buf;
    s->follow = follow;
    s->rng = (unsigned)(p2p_rank * 7919 + k);
    s->notice_req = s->verdict_req = s->follow_req = MPI_REQUEST_NULL;
    s->phase = S_START;
}

static void receiver_init(receiver_t *r, int k, unsigned char *in)
{
    memset(r, 0, sizeof(*r));
    r->rd = &rounds[k];
    r->k = k;
    r->source = rounds[k].to_self ? p2p_rank : left;
    r->in = in;
    r->msg = MPI_MESSAGE_NULL;
    r->recv_req = r->seen_req = MPI_REQUEST_NULL;
    r->phase = rounds[k].plan == CANCEL_FIRST ? R_WATCH : R_PROBE;
}

static void past_deadline(int k, int sender_phase, int receiver_phase)
{
    p2p_die("round %d (%s, %s, %s, %s): not done after %.0f s (sender phase %d, receiver "
            "phase %d)", k, plan_name[rounds[k].plan], rounds[k].c->name,
            rounds[k].to_self ? "to itself" : "round the ring", probe_name[rounds[k].probe],
            DEADLINE_S, sender_phase, receiver_phase);
}

/* One thread plays both ends, a step of each in turn. */
static void run_rounds_interleaved(unsigned char *buf, unsigned char *follow, unsigned char *in)
{
    sender_t s;
    receiver_t r;
    for (int k = 0; k < nrounds; k++) {
        sender_init(&s, k, buf, follow);
        receiver_init(&r, k, in);
        double until = MPI_Wtime() + DEADLINE_S;
        while (s.phase != S_DONE || r.phase != R_DONE) {
            sender_step(&s);
            receiver_step(&r);
            if (MPI_Wtime() > until)
                past_deadline(k, (int)s.phase, (int)r.phase);
        }
    }
}

typedef struct {
    unsigned char *buf, *follow, *in;
} buffers_t;

static void *sender_thread(void *arg)
{
    buffers_t *b = arg;
    sender_t s;
    for (int k = 0; k < nrounds; k++) {
        sender_init(&s, k, b->buf, b->follow);
        double until = MPI_Wtime() + DEADLINE_S;
        while (s.phase != S_DONE) {
            sender_step(&s);
            if (MPI_Wtime() > until)
                past_deadline(k, (int)s.phase, -1);
            sched_yield();
        }
    }
    return NULL;
}

static void *receiver_thread(void *arg)
{
    buffers_t *b = arg;
    receiver_t r;
    for (int k = 0; k < nrounds; k++) {
        receiver_init(&r, k, b->in);
        double until = MPI_Wtime() + DEADLINE_S;
        while (r.phase != R_DONE) {
            receiver_step(&r);
            if (MPI_Wtime() > until)
                past_deadline(k, -1, (int)r.phase);
            sched_yield();
        }
    }
    return NULL;
}

static void run_rounds_threaded(unsigned char *buf, unsigned char *follow, unsigned char *in)
{
    buffers_t b = {buf, follow, in};
    pthread_t st, rt;
    if (pthread_create(&st, NULL, sender_thread, &b) != 0 ||
        pthread_create(&rt, NULL, receiver_thread, &b) != 0)
        p2p_die("cannot start the threads");
    pthread_join(st, NULL);
    pthread_join(rt, NULL);
}

/* Rank 0 prints how the sends of every rank went (point-to-point only,
 * as in every p2p_ test). */
static void report_totals(void)
{
    if (p2p_rank != 0) {
        MPI_Send(totals, 2, MPI_INT, 0, SCENARIO_TAG, MPI_COMM_WORLD);
        return;
    }
    int sums[2] = {totals[0], totals[1]}, theirs[2];
    for (int src = 1; src < p2p_size; src++) {
        MPI_Recv(theirs, 2, MPI_INT, src, SCENARIO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sums[0] += theirs[0];
        sums[1] += theirs[1];
    }
    printf("p2p_cancel_self: %d sends cancelled, %d delivered\n", sums[0], sums[1]);
}

int main(int argc, char **argv)
{
    threaded = argc > 1 && strcmp(argv[1], "threads") == 0;
    int provided = p2p_init("p2p_cancel_self", &argc, &argv,
                            threaded ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
    if (threaded && provided < MPI_THREAD_MULTIPLE)
        p2p_die("MPI_THREAD_MULTIPLE asked for, %d provided", provided);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    unsigned char *buf = malloc(BIG), *follow = malloc(FOLLOW_BYTES), *in = malloc(BIG);
    if (!buf || !follow || !in)
        p2p_die("out of memory");

    for (int i = 0; i < NCASES; i++)
        scenario(i, buf, in);
    MPI_Barrier(MPI_COMM_WORLD);

    make_rounds();
    if (threaded)
        run_rounds_threaded(buf, follow, in);
    else
        run_rounds_interleaved(buf, follow, in);

    report_totals();
    free(buf);
    free(follow);
    free(in);
    p2p_finish();
    return 0;
}
