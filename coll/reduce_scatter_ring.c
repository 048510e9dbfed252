/* Reduce_scatter and Reduce_scatter_block, ring: p - 1 steps; in step k
 * rank r sends its partial of block r - k - 1 to r + 1 and adds the partial
 * of block r - k - 2 coming from r - 1 into its own copy. A block's partial
 * starts at the rank after its owner and ends, complete, at the owner.
 *
 * Cost: p - 1 steps of one block each: (p - 1) / p * n * size bytes per
 * rank (n the whole vector), bandwidth-optimal, any p and any counts (the
 * v form's blocks may differ in size or be empty). Commutative ops only.
 *
 * Example, p = 3: step 1: 0 sends block 2 to 1, 1 block 0 to 2, 2 block 1
 * to 0, each adds what it got; step 2: 0 sends block 1 (now x2 + x0) to 1,
 * which adds x1: rank 1 holds block 1 of the sum, and so on round.
 *
 * A rank adds into each block once, and sends its own values only of the
 * block it sends first: so when its vector is apart from the accumulator
 * (mine), the partials are received straight into the accumulator and
 * its own block combined into them, with no copy of the vector first. */
#include "reduce_util.h"
#include "coll_util.h"

ol_status_t ol_coll_ring_reduce_scatter(ol_sched_t *s, void *acc, const void *mine, void *tmp,
                                        const MPI_Count *starts, ol_datatype_t *dt,
                                        ol_op_t *op, int rank, int p)
{
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    ol_status_t rc = OL_OK;
    for (int k = 0; rc == OL_OK && k < p - 1; k++) {
        int out = (rank - k - 1 + p) % p, in = (rank - k - 2 + p) % p;
        MPI_Count in_count = starts[in + 1] - starts[in];
        const void *from = mine && k == 0 ? mine : acc;
        void *sum = ol_coll_at(acc, starts[in], dt);
        void *partial = mine ? sum : tmp;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, ol_coll_at(from, starts[out], dt),
                               starts[out + 1] - starts[out], dt, right);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, partial, in_count, dt, left);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_reduce(s, mine ? ol_coll_at(mine, starts[in], dt) : tmp, sum, in_count,
                                 dt, op);
    }
    return rc;
}

ol_status_t ol_coll_reduce_scatter_ring(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    ol_datatype_t *dt = a->recvtype;
    MPI_Count *starts = ol_coll_reduce_scatter_starts(s, a);
    if (!starts)
        return MPI_ERR_NO_MEM;
    /* the input is sendbuf, or recvbuf in place; both stay unchanged but
     * for the result, so the partial sums live in scratch */
    const void *in = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    void *acc = ol_sched_scratch_typed(s, dt, starts[p]);
    if (!acc)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = p > 1 ? ol_coll_ring_reduce_scatter(s, acc, in, NULL, starts, dt, a->op, rank, p)
                           : ol_sched_copy(s, in, starts[p], dt, acc, starts[p], dt);
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    MPI_Count mine = starts[rank + 1] - starts[rank];
    return rc == OL_OK ? ol_sched_copy(s, ol_coll_at(acc, starts[rank], dt), mine, dt,
                                       a->recvbuf, mine, dt)
                       : rc;
}
