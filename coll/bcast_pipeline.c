/* Broadcast, pipelined chain.
 *
 * Cost: the message is cut into segments of OMPI_LITE_BCAST_SEGMENT_SIZE
 * bytes (in bytes, the same on every rank whatever its datatype: see
 * ol_coll_bcast_bytes); ranks form a chain from the root, and in step k
 * each rank receives segment k from its predecessor while it forwards
 * segment k - 1: nseg + p - 2 steps, every rank receives the message once
 * and sends it at most once (n bytes per link). For large messages over
 * links that run in parallel: the chain's start-up of p - 2 segments is
 * hidden when nseg is much greater than p.
 *
 * Example, p = 3, root 0, 3 segments: step 0: 0 -> 1 seg 0; step 1: 0 -> 1
 * seg 1, 1 -> 2 seg 0; step 2: 0 -> 1 seg 2, 1 -> 2 seg 1; step 3: 1 -> 2
 * seg 2. */
#include "bcast_util.h"
#include "coll_util.h"

typedef struct {
    const ol_coll_args_t *a;
    MPI_Count segment, nseg; /* bytes per segment, segments */
} segments_t;

static ol_status_t move_segment(ol_sched_t *s, const segments_t *g, MPI_Count k, int peer,
                                bool send)
{
    const ol_coll_args_t *a = g->a;
    MPI_Count first = k * g->segment, n = a->recvcount - first;
    if (n > g->segment)
        n = g->segment;
    void *at = ol_coll_at(a->recvbuf, first, a->recvtype);
    return send ? ol_sched_send(s, at, n, a->recvtype, peer)
                : ol_sched_recv(s, at, n, a->recvtype, peer);
}

/* The chain's steps on the message as bytes. */
static ol_status_t chain(ol_sched_t *s, const segments_t *g)
{
    const ol_coll_args_t *a = g->a;
    int p = a->comm->size, me = (a->comm->rank - a->root + p) % p;
    int prev = (a->comm->rank - 1 + p) % p, next = (a->comm->rank + 1) % p;
    ol_status_t rc = OL_OK;
    for (MPI_Count k = 0; rc == OL_OK && k <= g->nseg; k++) {
        rc = ol_sched_round(s);
        if (rc == OL_OK && me > 0 && k < g->nseg)
            rc = move_segment(s, g, k, prev, false);
        if (rc == OL_OK && me == 0 && p > 1 && k < g->nseg) /* the root has them all */
            rc = move_segment(s, g, k, next, true);
        if (rc == OL_OK && me > 0 && me < p - 1 && k > 0)
            rc = move_segment(s, g, k - 1, next, true);
    }
    return rc;
}

ol_status_t ol_coll_bcast_pipeline(ol_sched_t *s, const ol_coll_args_t *a)
{
    ol_coll_args_t bytes;
    ol_status_t rc = ol_coll_bcast_bytes(s, a, &bytes);
    segments_t g = {&bytes, ol_coll_bcast_segment_size(), 0};
    if (g.segment < 1)
        g.segment = 1;
    /* An empty broadcast still sends its one empty segment, the message
     * every other way to broadcast sends (pair.c's among them): a rank
     * whose type takes another way must get it. */
    g.nseg = bytes.recvcount > 0 ? (bytes.recvcount + g.segment - 1) / g.segment : 1;
    if (rc == OL_OK)
        rc = chain(s, &g);
    return rc == OL_OK ? ol_coll_bcast_bytes_done(s, a, &bytes) : rc;
}
