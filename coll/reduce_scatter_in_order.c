/* Reduce_scatter and Reduce_scatter_block, in order: the in-order binomial
 * reduce of the whole vector to rank 0 (reduce_util.c's tree, pipelined in
 * REDUCE_SEGMENT_BYTES segments), then rank 0 sends every rank its block.
 * Rank order is kept, so it is right for non-commutative ops, and it is the
 * reproducible algorithm (the same tree as allreduce's and reduce's).
 *
 * Cost: ceil(log2 p) steps of n * size bytes (n the whole vector) plus one
 * step in which rank 0 sends (p - 1) blocks: not bandwidth-optimal.
 *
 * Example, p = 3, blocks of 2: 1->0; 2->0 (the whole vector, 6 elements);
 * then 0 sends elements 2-3 to 1, 4-5 to 2 and keeps 0-1. */
#include "reduce_util.h"
#include "coll_util.h"

extern int ol_coll_reduce_segment_bytes;

ol_status_t ol_coll_reduce_scatter_in_order(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    ol_datatype_t *dt = a->recvtype;
    const MPI_Count *starts = ol_coll_reduce_scatter_starts(s, a);
    int *ranks = ol_coll_rotated_ranks(s, p, 0);
    if (!starts || !ranks)
        return MPI_ERR_NO_MEM;
    MPI_Count n = starts[p];
    /* a leaf of the tree sends its own vector and needs no accumulator */
    void *acc = ol_coll_tree_leaf(rank, p) ? NULL : ol_sched_scratch_typed(s, dt, n);
    if (!acc && !ol_coll_tree_leaf(rank, p))
        return MPI_ERR_NO_MEM;
    ol_status_t rc = ol_coll_tree_reduce(s, acc, ol_coll_in_place(a) ? a->recvbuf : a->sendbuf,
                                         n, dt, a->op, ranks, p, rank,
                                         ol_coll_segment_count(ol_coll_reduce_segment_bytes, dt));
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    for (int i = 1; rc == OL_OK && rank == 0 && i < p; i++)
        rc = ol_sched_send(s, ol_coll_at(acc, starts[i], dt), starts[i + 1] - starts[i], dt, i);
    if (rc != OL_OK)
        return rc;
    MPI_Count mine = starts[rank + 1] - starts[rank];
    return rank == 0 ? ol_sched_copy(s, acc, mine, dt, a->recvbuf, mine, dt)
                     : ol_sched_recv(s, a->recvbuf, mine, dt, 0);
}
