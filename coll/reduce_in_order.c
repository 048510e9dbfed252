/* Reduce, in order: the binomial tree over ranks 0..p-1 to rank 0, whose
 * partial results are contiguous runs of ranks, lower on the left (right
 * for non-commutative ops, and the reproducible order), then rank 0 hands
 * the result to the root.
 *
 * Cost: as binomial, plus one step of n * size bytes when the root is not 0.
 *
 * Example, p = 5, root 3: 1->0, 3->2; 2->0; 4->0; then 0->3. */
#include "reduce_util.h"

ol_status_t ol_coll_reduce_in_order(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size, rank = a->comm->rank;
    int *ranks = ol_coll_rotated_ranks(s, p, 0);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    ol_status_t rc;
    void *acc = ol_coll_reduce_accumulator(s, a, rank == 0 && a->root == 0,
                                           ol_coll_tree_leaf(rank, p), &rc);
    if (rc == OL_OK)
        rc = ol_coll_tree_reduce(s, acc, ol_coll_reduce_own_vector(a, acc), a->recvcount,
                                 a->recvtype, a->op, ranks, p, rank,
                                 ol_coll_reduce_segment_count(a->comm, a->recvtype));
    if (rc == OL_OK && a->root != 0 && (rank == 0 || rank == a->root)) {
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = rank == 0 ? ol_sched_send(s, acc, a->recvcount, a->recvtype, a->root)
                           : ol_sched_recv(s, a->recvbuf, a->recvcount, a->recvtype, 0);
    }
    return rc;
}
