/* p2p_shm_match: matching of messages that arrive before their receive is
 * posted (unexpected) and after (posted), by source and tag, with
 * wildcards, small and large messages mixed.
 *
 * 1. Round the ring (each rank sends right, receives from the left):
 *    NT messages with distinct tags and sizes from 0 to 256 KiB, (a) all
 *    sent before any receive, then received in the reverse order of tags;
 *    (b) all receives posted first in a shuffled order of tags, then sent;
 *    (c) the odd tags posted first, the even ones received after the
 *    sends, in reverse. Each receive must get the message of its tag.
 * 2. Every rank r > 0 sends NANY messages to rank 0, message k with tag
 *    ANY_TAG0 + r * NANY + k (distinct everywhere). Rank 0 receives them with
 *    MPI_ANY_SOURCE and MPI_ANY_TAG, the first NPRE of them pre-posted
 *    before anything is sent: each sender's messages must come in order.
 *    Then again, received with MPI_ANY_SOURCE and a given tag in a
 *    shuffled order: each receive gets the one message of its tag.
 * 3. Receives are matched in the order they were posted, wildcard or not:
 *    rank 0 posts two receives that both match the next two messages of
 *    rank 1 (ANY_SOURCE then rank 1, rank 1 then ANY_SOURCE, ANY_TAG then
 *    the tag, and a tag then ANY_TAG where the first message only matches
 *    the second receive); the first posted must get the first message.
 *    Small and large messages.
 * 4. Messages to self, unexpected and posted.
 * 5. Matching keeps communicators apart (one channel per pair of ranks
 *    carries them all): rank 1 sends one message of the same tag on
 *    MPI_COMM_WORLD, on a dup of it and on a split that reverses the
 *    ranks; rank 0's wildcard receives on each (pre-posted, and later
 *    unexpected ones with the source given in each communicator's
 *    numbering) get the message of their communicator, with the source in
 *    its numbering; an MPI_Iprobe on the dup does not see a WORLD message.
 *    A receive of both wildcards pending on MPI_COMM_WORLD during
 *    collectives on it (barrier, broadcasts of 4 and 100 KiB, blocking and
 *    nonblocking) gets none of their traffic, only the message sent after.
 * 6. Receives of messages that still wait in the ring, copied out at once
 *    when a receive takes its sender's next record: rank 1 sends NWAIT
 *    small messages (0 to 200 B, and 4 KiB) of tags WAIT_TAG0 + k; rank 0,
 *    asleep outside MPI meanwhile so that nothing moves them out of the
 *    ring, receives message 2 first (the two before it go to the
 *    unexpected queue), then the rest in order: blocking, nonblocking, with
 *    MPI_ANY_TAG, with MPI_ANY_SOURCE, and one into a buffer 1 byte short
 *    (MPI_ERR_TRUNCATE, the status counting the whole message, the bytes
 *    that fit in place).
 * Every message's bytes, status and count are checked. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NT = 24,
    MAX_BYTES = 256 * 1024,
    TAG0 = 200,
    NANY = 40,
    NPRE = 16,
    ANY_TAG0 = 1000, /* part 2: tag ANY_TAG0 + r * NANY + k */
    NWAIT = 12,
    WAIT_TAG0 = 3000, /* part 6: tag WAIT_TAG0 + k */
    ORDER_TAG = 77,
    OTHER_TAG = 78,
};

static int left, right;

/* Part 1: size of the message of tag index t (the same from every rank). */
static size_t ring_size(int round, int t)
{
    uint64_t rng = shm_seed(3, (unsigned)round, (unsigned)t);

    return shm_size(&rng, MAX_BYTES);
}

/* A permutation of 0..n-1 drawn from seed. */
static void shuffle(int *idx, int n, unsigned seed)
{
    uint64_t rng = shm_seed(4, seed, 0);

    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)shm_below(&rng, (size_t)i + 1), t = idx[i];

        idx[i] = idx[j];
        idx[j] = t;
    }
}

static void check_msg(const char *what, const unsigned char *buf, const MPI_Status *st, int src,
                      int tag, size_t n, unsigned seed)
{
    p2p_check_status(what, st, src, tag, MPI_BYTE, (MPI_Count)n);
    shm_check(what, buf, n, seed);
    shm_guard_check(what, buf + n);
}

/* Part 1, one round: `posted[t]` says whether tag t's receive goes before
 * the sends (in `order`), else after them (in reverse tag order). */
static void ring_round(int round, const char *name, const int *posted, const int *order)
{
    const size_t slot = MAX_BYTES + SHM_GUARD;
    unsigned char *out = shm_malloc((size_t)NT * MAX_BYTES), *in = shm_malloc(NT * slot);
    MPI_Request sreq[NT], rreq[NT];
    MPI_Status st[NT];

    for (int t = 0; t < NT; t++) {
        shm_guard_set(in + t * slot + ring_size(round, t));
        rreq[t] = MPI_REQUEST_NULL;
    }
    for (int i = 0; i < NT; i++) {
        int t = order[i];

        if (posted[t])
            MPI_Irecv(in + t * slot, MAX_BYTES, MPI_BYTE, left, TAG0 + t, MPI_COMM_WORLD, &rreq[t]);
    }
    /* the posted receives are in place everywhere before anything is sent */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < NT; t++) {
        size_t n = ring_size(round, t);

        shm_make(out + (size_t)t * MAX_BYTES, n, shm_msg_seed((unsigned)round, p2p_rank, right, t));
        MPI_Isend(out + (size_t)t * MAX_BYTES, (int)n, MPI_BYTE, right, TAG0 + t, MPI_COMM_WORLD,
                  &sreq[t]);
    }
    /* give the late ones time to arrive before their receives exist */
    shm_spin_us(3000);
    for (int t = NT - 1; t >= 0; t--)
        if (!posted[t])
            MPI_Irecv(in + t * slot, MAX_BYTES, MPI_BYTE, left, TAG0 + t, MPI_COMM_WORLD, &rreq[t]);
    p2p_check_ok("MPI_Waitall of receives", MPI_Waitall(NT, rreq, st));
    for (int t = 0; t < NT; t++) {
        char what[96];

        snprintf(what, sizeof what, "part 1 (%s): tag %d (%zu bytes)", name, TAG0 + t,
                 ring_size(round, t));
        check_msg(what, in + t * slot, &st[t], left, TAG0 + t, ring_size(round, t),
                  shm_msg_seed((unsigned)round, left, p2p_rank, t));
    }
    p2p_check_ok("MPI_Waitall of sends", MPI_Waitall(NT, sreq, MPI_STATUSES_IGNORE));
    free(out);
    free(in);
}

static void part1_ring(void)
{
    int posted[NT], order[NT];

    shuffle(order, NT, 1);
    for (int t = 0; t < NT; t++)
        posted[t] = 0;
    ring_round(0, "all unexpected", posted, order);
    for (int t = 0; t < NT; t++)
        posted[t] = 1;
    ring_round(1, "all posted, shuffled", posted, order);
    for (int t = 0; t < NT; t++)
        posted[t] = t % 2;
    ring_round(2, "odd posted, even late", posted, order);
}

static size_t any_size(int src, int k)
{
    uint64_t rng = shm_seed(5, (unsigned)src, (unsigned)k);

    return shm_size(&rng, MAX_BYTES);
}

static void any_send(int pass)
{
    unsigned char *out = shm_malloc((size_t)NANY * MAX_BYTES);
    MPI_Request req[NANY];

    for (int k = 0; k < NANY; k++) {
        size_t n = any_size(p2p_rank, k);

        shm_make(out + (size_t)k * MAX_BYTES, n, shm_msg_seed((unsigned)pass, p2p_rank, 0, k));
        MPI_Isend(out + (size_t)k * MAX_BYTES, (int)n, MPI_BYTE, 0, ANY_TAG0 + p2p_rank * NANY + k,
                  MPI_COMM_WORLD, &req[k]);
    }
    p2p_check_ok("MPI_Waitall of sends", MPI_Waitall(NANY, req, MPI_STATUSES_IGNORE));
    free(out);
}

static void part2_any_source(void)
{
    const size_t slot = MAX_BYTES + SHM_GUARD;
    int total = NANY * (p2p_size - 1), next[p2p_size];
    unsigned char *in;
    MPI_Request req[NPRE];
    MPI_Status st;
    int *order;

    if (p2p_size < 2)
        return;
    if (p2p_rank != 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        any_send(4);
        MPI_Barrier(MPI_COMM_WORLD);
        any_send(5);
        return;
    }
    in = shm_malloc(NPRE * slot);
    memset(next, 0, sizeof next);
    for (int i = 0; i < NPRE && i < total; i++)
        MPI_Irecv(in + i * slot, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &req[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < total; i++) {
        unsigned char *b = in + (i < NPRE ? i : 0) * slot;
        int src, k;
        char what[96];

        if (i < NPRE)
            p2p_check_ok("MPI_Wait", MPI_Wait(&req[i], &st));
        else
            p2p_check_ok("MPI_Recv", MPI_Recv(b, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                              MPI_COMM_WORLD, &st));
        src = st.MPI_SOURCE;
        if (src < 1 || src >= p2p_size || next[src] >= NANY)
            p2p_die("part 2: wildcard receive %d: unexpected source %d", i, src);
        k = next[src]++;
        snprintf(what, sizeof what, "part 2: ANY_SOURCE/ANY_TAG receive %d: message %d of rank %d",
                 i, k, src);
        /* the guard goes after the message only now that its size is known */
        p2p_check_status(what, &st, src, ANY_TAG0 + src * NANY + k, MPI_BYTE,
                         (MPI_Count)any_size(src, k));
        shm_check(what, b, any_size(src, k), shm_msg_seed(4, src, 0, k));
    }

    /* Given tags in a shuffled order, source still ANY_SOURCE. */
    MPI_Barrier(MPI_COMM_WORLD);
    order = shm_malloc(sizeof *order * (size_t)total);
    shuffle(order, total, 2);
    for (int i = 0; i < total; i++) {
        int src = order[i] / NANY + 1, k = order[i] % NANY, tag = ANY_TAG0 + src * NANY + k;
        char what[96];

        snprintf(what, sizeof what, "part 2: ANY_SOURCE receive of tag %d", tag);
        shm_guard_set(in + any_size(src, k));
        p2p_check_ok("MPI_Recv",
                     MPI_Recv(in, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
        check_msg(what, in, &st, src, tag, any_size(src, k), shm_msg_seed(5, src, 0, k));
    }
    free(order);
    free(in);
}

/* Part 3, one case on ranks 0 and 1: rank 0 posts receive A then B, rank
 * 1 sends message 1 (tag tag1) then message 2 (tag tag2); a_gets says
 * which message A must get (1 or 2), B gets the other. */
static void posted_order(const char *name, int a_src, int a_tag, int b_src, int b_tag, int tag1,
                         int tag2, int a_gets, size_t n)
{
    const size_t slot = MAX_BYTES + SHM_GUARD;

    if (p2p_rank == 0) {
        unsigned char *in = shm_malloc(2 * slot);
        MPI_Request req[2];
        MPI_Status st[2];
        char what[128];
        int first = a_gets == 1 ? 0 : 1; /* which receive gets message 1 */

        shm_guard_set(in + n);
        shm_guard_set(in + slot + n);
        MPI_Irecv(in, MAX_BYTES, MPI_BYTE, a_src, a_tag, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(in + slot, MAX_BYTES, MPI_BYTE, b_src, b_tag, MPI_COMM_WORLD, &req[1]);
        MPI_Send(NULL, 0, MPI_BYTE, 1, OTHER_TAG + 1, MPI_COMM_WORLD);
        p2p_check_ok("MPI_Waitall", MPI_Waitall(2, req, st));
        snprintf(what, sizeof what, "part 3 (%s, %zu bytes): message 1", name, n);
        check_msg(what, in + first * slot, &st[first], 1, tag1, n, shm_msg_seed(6, 1, 0, 1));
        snprintf(what, sizeof what, "part 3 (%s, %zu bytes): message 2", name, n);
        check_msg(what, in + (1 - first) * slot, &st[1 - first], 1, tag2, n,
                  shm_msg_seed(6, 1, 0, 2));
        free(in);
    } else if (p2p_rank == 1) {
        unsigned char *out = shm_malloc(2 * n);

        shm_make(out, n, shm_msg_seed(6, 1, 0, 1));
        shm_make(out + n, n, shm_msg_seed(6, 1, 0, 2));
        MPI_Recv(NULL, 0, MPI_BYTE, 0, OTHER_TAG + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, (int)n, MPI_BYTE, 0, tag1, MPI_COMM_WORLD);
        MPI_Send(out + n, (int)n, MPI_BYTE, 0, tag2, MPI_COMM_WORLD);
        free(out);
    }
}

static void part3_posted_order(void)
{
    static const size_t sizes[] = {8, 3000, 100000};
    const int T = ORDER_TAG, U = OTHER_TAG;

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];

        posted_order("ANY_SOURCE then source 1", MPI_ANY_SOURCE, T, 1, T, T, T, 1, n);
        posted_order("source 1 then ANY_SOURCE", 1, T, MPI_ANY_SOURCE, T, T, T, 1, n);
        posted_order("ANY_TAG then tag", 1, MPI_ANY_TAG, 1, T, T, T, 1, n);
        posted_order("both wildcards then given", MPI_ANY_SOURCE, MPI_ANY_TAG, 1, T, T, T, 1, n);
        /* message 1 (tag T) does not match A (tag U): B gets it */
        posted_order("tag U then ANY_TAG", 1, U, 1, MPI_ANY_TAG, T, U, 2, n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void part4_self(void)
{
    static const size_t sizes[] = {0, 100, 5000, 70000, 200000};
    unsigned char *out = shm_malloc(MAX_BYTES), *in = shm_malloc(MAX_BYTES + SHM_GUARD);

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        MPI_Request sreq, rreq;
        MPI_Status st;
        char what[64];

        /* unexpected: sent before the receive exists */
        shm_make(out, n, shm_msg_seed(7, p2p_rank, p2p_rank, (int)i));
        shm_guard_set(in + n);
        MPI_Isend(out, (int)n, MPI_BYTE, p2p_rank, ORDER_TAG, MPI_COMM_WORLD, &sreq);
        MPI_Recv(in, MAX_BYTES, MPI_BYTE, p2p_rank, ORDER_TAG, MPI_COMM_WORLD, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        snprintf(what, sizeof what, "part 4: unexpected to self, %zu bytes", n);
        check_msg(what, in, &st, p2p_rank, ORDER_TAG, n,
                  shm_msg_seed(7, p2p_rank, p2p_rank, (int)i));

        /* posted: the receive exists first */
        shm_make(out, n, shm_msg_seed(8, p2p_rank, p2p_rank, (int)i));
        MPI_Irecv(in, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq);
        MPI_Isend(out, (int)n, MPI_BYTE, p2p_rank, OTHER_TAG, MPI_COMM_WORLD, &sreq);
        MPI_Wait(&rreq, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        snprintf(what, sizeof what, "part 4: posted to self, %zu bytes", n);
        check_msg(what, in, &st, p2p_rank, OTHER_TAG, n,
                  shm_msg_seed(8, p2p_rank, p2p_rank, (int)i));
    }
    free(out);
    free(in);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Part 5: rank 1 sends one message of tag ORDER_TAG to rank 0 on each of
 * world, dup and rev, in `order`. */
static void comm_send(MPI_Comm *comms, const int *order, unsigned pass, size_t n)
{
    /* rank 0's rank in each communicator */
    const int dst0[3] = {0, 0, p2p_size - 1};
    unsigned char *out = shm_malloc(3 * n);
    MPI_Request req[3];

    for (int i = 0; i < 3; i++) {
        int c = order[i];

        shm_make(out + (size_t)c * n, n, shm_msg_seed(pass, 1, 0, c));
        MPI_Isend(out + (size_t)c * n, (int)n, MPI_BYTE, dst0[c], ORDER_TAG, comms[c], &req[i]);
    }
    p2p_check_ok("MPI_Waitall", MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
    free(out);
}

static void part5_communicators(void)
{
    static const char *name[3] = {"MPI_COMM_WORLD", "a dup of it", "a reversed split"};
    static const int in_order[3] = {0, 1, 2}, reversed[3] = {2, 1, 0};
    const size_t slot = MAX_BYTES + SHM_GUARD;
    static const size_t sizes[] = {16, 100000};
    MPI_Comm comms[3];
    /* rank 1's rank in each communicator */
    int src1[3] = {1, 1, p2p_size - 2};
    unsigned char *in = shm_malloc(3 * slot), *bcast = shm_malloc(100 * 1024);
    MPI_Request req[3];
    MPI_Status st[3];
    char what[128];

    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, p2p_size - p2p_rank, &comms[2]);

    for (int s = 0; s < 2; s++) {
        size_t n = sizes[s];
        unsigned pass = 9 + 2 * (unsigned)s;

        /* pre-posted wildcard receives, one per communicator */
        if (p2p_rank == 0) {
            for (int c = 0; c < 3; c++) {
                shm_guard_set(in + c * slot + n);
                MPI_Irecv(in + c * slot, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE,
                          c == 0 ? MPI_ANY_TAG : ORDER_TAG, comms[c], &req[c]);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (p2p_rank == 1)
            comm_send(comms, in_order, pass, n);
        if (p2p_rank == 0) {
            p2p_check_ok("MPI_Waitall", MPI_Waitall(3, req, st));
            for (int c = 0; c < 3; c++) {
                snprintf(what, sizeof what, "part 5: pre-posted wildcard receive on %s (%zu bytes)",
                         name[c], n);
                check_msg(what, in + c * slot, &st[c], src1[c], ORDER_TAG, n,
                          shm_msg_seed(pass, 1, 0, c));
            }
        }

        /* unexpected: sent in reverse, received in order by given source */
        if (p2p_rank == 1)
            comm_send(comms, reversed, pass + 1, n);
        if (p2p_rank == 0) {
            shm_spin_us(2000);
            for (int c = 0; c < 3; c++) {
                snprintf(what, sizeof what, "part 5: late receive on %s (%zu bytes)", name[c], n);
                shm_guard_set(in + n);
                p2p_check_ok("MPI_Recv", MPI_Recv(in, MAX_BYTES, MPI_BYTE, src1[c], ORDER_TAG,
                                                  comms[c], &st[0]));
                check_msg(what, in, &st[0], src1[c], ORDER_TAG, n, shm_msg_seed(pass + 1, 1, 0, c));
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* a WORLD message is invisible on the dup */
    if (p2p_rank == 1)
        MPI_Send(bcast, 8, MPI_BYTE, 0, ORDER_TAG, MPI_COMM_WORLD);
    if (p2p_rank == 0) {
        int flag = 0;

        MPI_Probe(1, ORDER_TAG, MPI_COMM_WORLD, &st[0]);
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[1], &flag, &st[0]);
        if (flag)
            p2p_die("part 5: MPI_Iprobe on a dup sees a message (source %d, tag %d) sent on "
                    "MPI_COMM_WORLD",
                    st[0].MPI_SOURCE, st[0].MPI_TAG);
        MPI_Recv(bcast, 8, MPI_BYTE, 1, ORDER_TAG, MPI_COMM_WORLD, &st[0]);
    }

    /* collectives under a pending receive of both wildcards */
    if (p2p_rank == 0) {
        shm_guard_set(in + 16);
        MPI_Irecv(in, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int root = 0; root < p2p_size && root < 3; root++) {
        MPI_Request creq[2];

        MPI_Bcast(bcast, 100 * 1024, MPI_BYTE, root, MPI_COMM_WORLD);
        MPI_Ibarrier(MPI_COMM_WORLD, &creq[0]);
        MPI_Ibcast(bcast, 4096, MPI_BYTE, root, MPI_COMM_WORLD, &creq[1]);
        MPI_Waitall(2, creq, MPI_STATUSES_IGNORE);
    }
    if (p2p_rank == 0) {
        int flag = 0;

        MPI_Test(&req[0], &flag, &st[0]);
        if (flag)
            p2p_die("part 5: a receive of both wildcards completed during collectives: source "
                    "%d, tag %d",
                    st[0].MPI_SOURCE, st[0].MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (p2p_rank == 1) {
        shm_make(bcast, 16, shm_msg_seed(13, 1, 0, 0));
        MPI_Send(bcast, 16, MPI_BYTE, 0, ORDER_TAG, MPI_COMM_WORLD);
    }
    if (p2p_rank == 0) {
        p2p_check_ok("MPI_Wait", MPI_Wait(&req[0], &st[0]));
        check_msg("part 5: wildcard receive pending during collectives", in, &st[0], 1, ORDER_TAG,
                  16, shm_msg_seed(13, 1, 0, 0));
    }
    MPI_Comm_free(&comms[1]);
    MPI_Comm_free(&comms[2]);
    free(in);
    free(bcast);
}

/* Part 6: the size of message k, a few lines of a ring or less. */
static size_t wait_size(int k)
{
    return k == NWAIT - 1 ? 4096 : (size_t)k * 17;
}

/* Message k into buf as receive number k of part 6 takes it; the
 * truncated one is the last but one. */
static void wait_recv(MPI_Comm comm, int k, unsigned char *buf)
{
    char what[64];
    size_t n = wait_size(k), capacity = k == NWAIT - 2 ? n - 1 : n;
    int source = k == 4 ? MPI_ANY_SOURCE : 1, tag = k == 5 ? MPI_ANY_TAG : WAIT_TAG0 + k;
    MPI_Status st;
    int rc;

    snprintf(what, sizeof(what), "part 6 message %d", k);
    memset(buf, SHM_GUARD_BYTE, capacity + SHM_GUARD);
    if (k == 3) {
        MPI_Request req;
        p2p_check_ok(what, MPI_Irecv(buf, (int)capacity, MPI_BYTE, source, tag, comm, &req));
        rc = MPI_Wait(&req, &st);
    } else {
        rc = MPI_Recv(buf, (int)capacity, MPI_BYTE, source, tag, comm, &st);
    }
    if (capacity < n) {
        P2P_CHECK_CLASS(what, rc, MPI_ERR_TRUNCATE);
        st.MPI_ERROR = MPI_SUCCESS; /* a single completion leaves it unset */
        p2p_check_status(what, &st, 1, WAIT_TAG0 + k, MPI_BYTE, (MPI_Count)n);
        shm_check(what, buf, capacity, shm_msg_seed(6, 1, 0, k)); /* what fits */
        shm_guard_check(what, buf + capacity);
        return;
    }
    p2p_check_ok(what, rc);
    check_msg(what, buf, &st, 1, WAIT_TAG0 + k, n, shm_msg_seed(6, 1, 0, k));
}

static void part6_waiting_in_ring(void)
{
    MPI_Comm comm;

    p2p_check_ok("part 6 dup", MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (p2p_rank == 1) {
        unsigned char *out = shm_malloc(wait_size(NWAIT - 1));

        for (int k = 0; k < NWAIT; k++) {
            shm_make(out, wait_size(k), shm_msg_seed(6, 1, 0, k));
            p2p_check_ok("part 6 send", MPI_Send(out, (int)wait_size(k), MPI_BYTE, 0,
                                                 WAIT_TAG0 + k, comm));
        }
        free(out);
    } else if (p2p_rank == 0) {
        unsigned char *in = shm_malloc(wait_size(NWAIT - 1) + SHM_GUARD);

        shm_sleep_ms(200); /* no progress: the messages stay in the ring */
        wait_recv(comm, 2, in);
        for (int k = 0; k < NWAIT; k++)
            if (k != 2)
                wait_recv(comm, k, in);
        free(in);
    }
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_match", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;

    part1_ring();
    part2_any_source();
    part3_posted_order();
    part4_self();
    part5_communicators();
    part6_waiting_in_ring();
    p2p_finish();
    return 0;
}
