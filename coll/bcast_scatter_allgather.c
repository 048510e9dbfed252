/* Broadcast, scatter then ring allgather (van de Geijn).
 *
 * Cost: the message is cut into p chunks of ceil(n / p) bytes; a binomial
 * scatter (ceil(log2 p) steps, the root sends (p - 1)/p of the
 * message) gives rank k (relative to the root) chunk k, then a ring
 * allgather (p - 1 steps, (p - 1)/p of the message in and out of every
 * rank) completes every copy. About 2 (p - 1)/p * n bytes per rank against
 * log2 p * n for the binomial tree: large messages over links that run in
 * parallel (see bcast.c for what one host measured).
 *
 * Example, p = 3, 7 bytes, root 0: chunks of 3, 3 and 1 bytes.
 * Scatter: 0 sends chunk 2 to 2, then chunk 1 to 1. Ring: 0 -> 1 chunk 0,
 * 1 -> 2 chunk 1, 2 -> 0 chunk 2; then each forwards what it got. Chunks are
 * cut in bytes, the same on every rank whatever its datatype (see
 * ol_coll_bcast_bytes). */
#include "bcast_util.h"
#include "coll_util.h"

typedef struct {
    const ol_coll_args_t *a;
    MPI_Count chunk; /* bytes per chunk */
    int p, me;       /* me: rank relative to the root */
} chunks_t;

/* Sends (or receives) chunks [first, last) of relative ranks to (or from)
 * relative rank peer. */
static ol_status_t move_chunks(ol_sched_t *s, const chunks_t *c, int first, int last, int peer,
                               bool send)
{
    const ol_coll_args_t *a = c->a;
    MPI_Count begin = first * c->chunk, end = last * c->chunk;
    if (end > a->recvcount)
        end = a->recvcount;
    MPI_Count n = end > begin ? end - begin : 0;
    void *at = ol_coll_at(a->recvbuf, n ? begin : 0, a->recvtype);
    int to = (peer + a->root) % c->p;
    return send ? ol_sched_send(s, at, n, a->recvtype, to)
                : ol_sched_recv(s, at, n, a->recvtype, to);
}

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* Binomial scatter: relative rank r's subtree is [r, r + lowest bit of r). */
static ol_status_t scatter(ol_sched_t *s, const chunks_t *c)
{
    int mask = 1;
    ol_status_t rc = OL_OK;
    while (mask < c->p && !(c->me & mask))
        mask <<= 1;
    if (c->me) {
        rc = move_chunks(s, c, c->me, min_int(c->me + mask, c->p), c->me - mask, false);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
    }
    for (mask >>= 1; rc == OL_OK && mask > 0; mask >>= 1) {
        int child = c->me + mask;
        if (child < c->p)
            rc = move_chunks(s, c, child, min_int(child + mask, c->p), child, true);
    }
    return rc;
}

static ol_status_t ring(ol_sched_t *s, const chunks_t *c)
{
    int right = (c->me + 1) % c->p, left = (c->me - 1 + c->p) % c->p;
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < c->p - 1; i++) {
        int out = (c->me - i + c->p) % c->p, in = (c->me - i - 1 + c->p) % c->p;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = move_chunks(s, c, in, in + 1, left, false);
        if (rc == OL_OK)
            rc = move_chunks(s, c, out, out + 1, right, true);
    }
    return rc;
}

ol_status_t ol_coll_bcast_scatter_allgather(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size;
    ol_coll_args_t bytes;
    ol_status_t rc = ol_coll_bcast_bytes(s, a, &bytes);
    chunks_t c = {&bytes, (bytes.recvcount + p - 1) / p, p, (a->comm->rank - a->root + p) % p};
    if (rc == OL_OK)
        rc = scatter(s, &c);
    if (rc == OL_OK)
        rc = ring(s, &c);
    return rc == OL_OK ? ol_coll_bcast_bytes_done(s, a, &bytes) : rc;
}
