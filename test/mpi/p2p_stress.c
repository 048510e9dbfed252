/* p2p_stress: random traffic among all ranks.
 *
 * From a seed (fixed, printed; argv[1] overrides it) every rank computes
 * the same plan for NROUNDS rounds: each rank sends NMSG messages per round
 * to random ranks (itself included), with random tags (0 .. NTAGS-1) and
 * sizes (0 .. 64 KiB), every fourth one synchronous. In each round a rank
 * posts all its receives and sends at once and completes them with one
 * MPI_Waitall: half of the messages it expects get a receive naming source
 * and tag, posted first; the other half MPI_ANY_SOURCE + MPI_ANY_TAG ones,
 * posted after them. Receives posted earlier match first, so every message
 * finds a receive whatever the arrival order.
 *
 * A message of 16 bytes or more starts with (source, tag, seq, size) and
 * continues with the pattern of (source, seq); a shorter one is the prefix
 * of that pattern, found by its status among the messages of that source,
 * tag and size. Each status is checked against the message, and each
 * message must arrive exactly once. The time per message is printed. */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NROUNDS = 5,
    NMSG = 100,     /* messages each rank sends per round */
    NTAGS = 50,
    MAX_SIZE = 65536,
    HEAD = 4 * sizeof(int),
};

struct msg {
    int src, dest, tag, seq, size, got;
};

static struct msg *plan; /* every message of the round: p2p_size * NMSG */
static unsigned rng;

static unsigned next_random(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 7;
}

static unsigned seed_of(int src, int round, int seq)
{
    return ((unsigned)src * NROUNDS + (unsigned)round) * 7919u + (unsigned)seq;
}

static void make_plan(void)
{
    for (int s = 0; s < p2p_size; s++)
        for (int k = 0; k < NMSG; k++) {
            struct msg *m = &plan[s * NMSG + k];

            m->src = s;
            m->seq = k;
            m->dest = (int)(next_random() % (unsigned)p2p_size);
            m->tag = (int)(next_random() % NTAGS);
            /* a quarter of them tiny, where the header does not fit */
            m->size = next_random() % 4 == 0 ? (int)(next_random() % HEAD)
                                             : (int)(next_random() % (MAX_SIZE + 1));
            m->got = 0;
        }
}

/* The pattern starts after the header, or at byte 0 of a tiny message. */
static size_t body_offset(int size)
{
    return (size_t)size >= HEAD ? HEAD : 0;
}

static void make_payload(unsigned char *buf, const struct msg *m, int round)
{
    int head[4] = {m->src, m->tag, m->seq, m->size};
    size_t off = body_offset(m->size);

    if (off)
        memcpy(buf, head, HEAD);
    p2p_fill(buf + off, (size_t)m->size - off, seed_of(m->src, round, m->seq));
}

/* Which planned message this is: its header says, or for a tiny one the
 * first not yet received of its source, tag and size. */
static struct msg *identify(const unsigned char *buf, const MPI_Status *st, int count)
{
    int head[4];

    if ((size_t)count >= HEAD) {
        memcpy(head, buf, HEAD);
        if (head[0] < 0 || head[0] >= p2p_size || head[2] < 0 || head[2] >= NMSG)
            p2p_die("a message of %d bytes from %d tag %d has a bad header (%d, %d, %d, %d)",
                    count, st->MPI_SOURCE, st->MPI_TAG, head[0], head[1], head[2], head[3]);
        return &plan[head[0] * NMSG + head[2]];
    }
    if (st->MPI_SOURCE < 0 || st->MPI_SOURCE >= p2p_size)
        p2p_die("a message of %d bytes from source %d", count, st->MPI_SOURCE);
    for (int k = 0; k < NMSG; k++) {
        struct msg *m = &plan[st->MPI_SOURCE * NMSG + k];

        if (m->dest == p2p_rank && !m->got && m->tag == st->MPI_TAG && m->size == count)
            return m;
    }
    p2p_die("a message of %d bytes from %d tag %d that was not expected (or came twice)", count,
            st->MPI_SOURCE, st->MPI_TAG);
}

static void check_received(int round, const unsigned char *buf, const MPI_Status *st,
                           int wildcard)
{
    char what[160];
    int count;
    struct msg *m;

    MPI_Get_count(st, MPI_BYTE, &count);
    m = identify(buf, st, count);
    snprintf(what, sizeof what, "round %d, message %d of rank %d (tag %d, %d bytes, %s receive)",
             round, m->seq, m->src, m->tag, m->size, wildcard ? "wildcard" : "specific");
    if (m->dest != p2p_rank)
        p2p_die("%s: arrived here, but was sent to rank %d", what, m->dest);
    if (m->got)
        p2p_die("%s: arrived twice", what);
    m->got = 1;
    p2p_check_status(what, st, m->src, m->tag, MPI_BYTE, m->size);
    p2p_check_data(what, buf + body_offset(m->size), (size_t)m->size - body_offset(m->size),
                   seed_of(m->src, round, m->seq));
}

/* One round: receives (specific ones first), sends, one MPI_Waitall. */
static double run_round(int round, unsigned char *sendbufs, unsigned char *recvbufs,
                        MPI_Request *reqs, MPI_Status *sts)
{
    int nrecv = 0, nspecific, nreq = 0, nsent = 0;
    double start;

    make_plan();
    for (int i = 0; i < p2p_size * NMSG; i++)
        nrecv += plan[i].dest == p2p_rank;
    nspecific = nrecv / 2;
    MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    /* The first nspecific messages addressed here get specific receives. */
    for (int i = 0, k = 0; i < p2p_size * NMSG && k < nspecific; i++)
        if (plan[i].dest == p2p_rank) {
            MPI_Irecv(recvbufs + (size_t)k * MAX_SIZE, MAX_SIZE, MPI_BYTE, plan[i].src,
                      plan[i].tag, MPI_COMM_WORLD, &reqs[nreq++]);
            k++;
        }
    for (int k = nspecific; k < nrecv; k++)
        MPI_Irecv(recvbufs + (size_t)k * MAX_SIZE, MAX_SIZE, MPI_BYTE, MPI_ANY_SOURCE,
                  MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[nreq++]);
    for (int k = 0; k < NMSG; k++) {
        const struct msg *m = &plan[p2p_rank * NMSG + k];
        unsigned char *b = sendbufs + (size_t)nsent++ * MAX_SIZE;

        make_payload(b, m, round);
        if (k % 4 == 3)
            MPI_Issend(b, m->size, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, &reqs[nreq++]);
        else
            MPI_Isend(b, m->size, MPI_BYTE, m->dest, m->tag, MPI_COMM_WORLD, &reqs[nreq++]);
    }
    p2p_check_ok("MPI_Waitall of the round", MPI_Waitall(nreq, reqs, sts));
    start = MPI_Wtime() - start;
    for (int k = 0; k < nrecv; k++)
        check_received(round, recvbufs + (size_t)k * MAX_SIZE, &sts[k], k >= nspecific);
    for (int i = 0; i < p2p_size * NMSG; i++)
        if (plan[i].dest == p2p_rank && !plan[i].got)
            p2p_die("round %d: message %d of rank %d never arrived", round, plan[i].seq,
                    plan[i].src);
    return start;
}

int main(int argc, char **argv)
{
    unsigned seed = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 20240611u;
    unsigned char *sendbufs, *recvbufs;
    MPI_Request *reqs;
    MPI_Status *sts;
    double elapsed = 0;
    long total = (long)NROUNDS * NMSG;
    int maxrecv;

    p2p_init("p2p_stress", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_rank == 0)
        printf("p2p_stress: seed %u (run again with it as argument to repeat)\n", seed);
    rng = seed;
    maxrecv = p2p_size * NMSG; /* the most any rank can be sent in a round */
    plan = malloc((size_t)p2p_size * NMSG * sizeof *plan);
    sendbufs = malloc((size_t)NMSG * MAX_SIZE);
    recvbufs = malloc((size_t)maxrecv * MAX_SIZE);
    reqs = malloc((size_t)(maxrecv + NMSG) * sizeof *reqs);
    sts = malloc((size_t)(maxrecv + NMSG) * sizeof *sts);
    if (!plan || !sendbufs || !recvbufs || !reqs || !sts)
        p2p_die("out of memory");

    for (int round = 0; round < NROUNDS; round++)
        elapsed += run_round(round, sendbufs, recvbufs, reqs, sts);
    /* Rank 0's view: each round starts at a barrier and ends when its own
     * sends and receives are done. */
    if (p2p_rank == 0)
        printf("p2p_stress: %ld messages sent per rank in %.3f s (%.1f us per message)\n", total,
               elapsed, elapsed * 1e6 / (double)total);
    free(plan);
    free(sendbufs);
    free(recvbufs);
    free(reqs);
    free(sts);
    p2p_finish();
    return 0;
}
