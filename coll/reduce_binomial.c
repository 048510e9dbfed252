/* Reduce, binomial tree rooted at the root, pipelined in segments of
 * REDUCE_SEGMENT_BYTES (reduce_util.c). Ranks are taken relative to the
 * root, so the order of the reduction is not rank order: commutative ops
 * only.
 *
 * Cost: with S segments and D = ceil(log2 p), S + D - 1 rounds; the root
 * receives D vectors, every other rank sends one: latency log p, and for
 * long vectors the pipeline keeps all D levels busy.
 *
 * Example, p = 6, root 2 (relative ranks r' = r - 2 mod 6): step 1: 3->2,
 * 5->4, 1->0 (r' 1->0, 3->2, 5->4); step 2: 4->2 (r' 2->0); step 3: 0->2
 * (r' 4->0). */
#include "reduce_util.h"
#include "coll_util.h"

ol_status_t ol_coll_reduce_binomial(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size, me = (a->comm->rank - a->root + p) % p;
    int *ranks = ol_coll_rotated_ranks(s, p, a->root);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    ol_status_t rc;
    void *acc = ol_coll_reduce_accumulator(s, a, me == 0, ol_coll_tree_leaf(me, p), &rc);
    if (rc == OL_OK)
        rc = ol_coll_tree_reduce(s, acc, ol_coll_reduce_own_vector(a, acc), a->recvcount,
                                 a->recvtype, a->op, ranks, p, me,
                                 ol_coll_reduce_segment_count(a->comm, a->recvtype));
    return rc;
}
