/* Reduce_scatter and Reduce_scatter_block, recursive halving: on pof2 = the
 * largest power of two <= p processes (the rem = p - pof2 others first
 * fold: even rank 2i gives its vector to 2i + 1 for i < rem), each step
 * pairs processes pof2 / 2, then pof2 / 4 ... apart; each keeps the half of
 * its current range of blocks that holds its own, sends the other half to
 * its partner and adds the partner's copy of the kept half. At the end a
 * process holds the reduction of its own blocks (a folded pair's two);
 * the odd rank of a pair sends the even one its block.
 *
 * Cost: log2(pof2) steps (+2 with the fold); (pof2 - 1) / pof2 * n * size
 * bytes sent per rank (n the whole vector), + n * size with the fold.
 * Latency log p, bandwidth near-optimal for even blocks. Commutative ops
 * only (partners are far apart first).
 *
 * Example, p = 4, blocks of 2: step 1: 0 and 2 swap halves (0 keeps blocks
 * 0-1, 2 keeps 2-3; 1 and 3 likewise); step 2: 0 and 1 swap: 0 keeps block
 * 0, the sum of all four, 1 keeps block 1. */
#include "reduce_util.h"
#include "coll_util.h"

typedef struct {
    const ol_coll_args_t *a;
    const MPI_Count *starts; /* blocks of the old ranks */
    void *acc, *tmp;
    int pof2, rem;
} halving_t;

static int old_rank_of(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Where the blocks of new rank i start: a folded pair's two blocks are one
 * range, since blocks lie in rank order. */
static MPI_Count region_start(const halving_t *h, int newrank)
{
    if (newrank >= h->pof2)
        return h->starts[h->a->comm->size];
    return h->starts[newrank < h->rem ? 2 * newrank : newrank + h->rem];
}

static ol_status_t halve(ol_sched_t *s, const halving_t *h, int newrank)
{
    ol_datatype_t *dt = h->a->recvtype;
    int lo = 0;
    ol_status_t rc = OL_OK;
    for (int mask = h->pof2 / 2; rc == OL_OK && mask > 0; mask /= 2) {
        int peer = old_rank_of(newrank ^ mask, h->rem);
        bool upper = newrank & mask;
        int keep = upper ? lo + mask : lo, give = upper ? lo : lo + mask;
        MPI_Count keep_at = region_start(h, keep), keep_n = region_start(h, keep + mask) - keep_at;
        MPI_Count give_at = region_start(h, give), give_n = region_start(h, give + mask) - give_at;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, ol_coll_at(h->acc, give_at, dt), give_n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, h->tmp, keep_n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_reduce(s, h->tmp, ol_coll_at(h->acc, keep_at, dt), keep_n, dt,
                                 h->a->op);
        lo = keep;
    }
    return rc;
}

ol_status_t ol_coll_reduce_scatter_recursive_halving(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    ol_datatype_t *dt = a->recvtype;
    halving_t h = {.a = a, .starts = ol_coll_reduce_scatter_starts(s, a), .pof2 = 1};
    if (!h.starts)
        return MPI_ERR_NO_MEM;
    MPI_Count n = h.starts[p];
    h.acc = ol_sched_scratch_typed(s, dt, n);
    h.tmp = ol_sched_scratch_typed(s, dt, n);
    if (!h.acc || !h.tmp)
        return MPI_ERR_NO_MEM;
    while (h.pof2 * 2 <= p)
        h.pof2 *= 2;
    h.rem = p - h.pof2;
    int newrank = rank - h.rem;
    ol_status_t rc = ol_sched_copy(s, ol_coll_in_place(a) ? a->recvbuf : a->sendbuf, n, dt,
                                   h.acc, n, dt);
    if (rc == OL_OK && rank < 2 * h.rem) { /* fold */
        if (rank % 2 == 0) {
            rc = ol_sched_send(s, h.acc, n, dt, rank + 1);
            newrank = -1;
        } else {
            rc = ol_sched_recv(s, h.tmp, n, dt, rank - 1);
            if (rc == OL_OK)
                rc = ol_sched_round(s);
            if (rc == OL_OK)
                rc = ol_sched_reduce(s, h.tmp, h.acc, n, dt, a->op);
            newrank = rank / 2;
        }
    }
    if (rc == OL_OK && newrank >= 0)
        rc = halve(s, &h, newrank);
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    MPI_Count mine_at = h.starts[rank], mine = h.starts[rank + 1] - mine_at;
    if (rc == OL_OK && rank < 2 * h.rem && rank % 2) /* the even partner's block */
        rc = ol_sched_send(s, ol_coll_at(h.acc, h.starts[rank - 1], dt),
                           mine_at - h.starts[rank - 1], dt, rank - 1);
    if (rc != OL_OK)
        return rc;
    if (rank < 2 * h.rem && rank % 2 == 0)
        return ol_sched_recv(s, a->recvbuf, mine, dt, rank + 1);
    return ol_sched_copy(s, ol_coll_at(h.acc, mine_at, dt), mine, dt, a->recvbuf, mine, dt);
}
