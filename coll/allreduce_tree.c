/* Allreduce, binomial tree: an in-order binomial reduce to rank 0, then a
 * binomial broadcast from it, both pipelined in segments of
 * ALLREDUCE_SEGMENT_BYTES (reduce_util.c's trees). Every partial result
 * covers a contiguous run of ranks, lower ranks on the left, so it is right
 * for non-commutative ops, and every element is reduced by the same tree
 * whatever the segment size: this is also the reproducible algorithm.
 *
 * Cost: with S segments and D = ceil(log2 p), 2 (S + D - 1) rounds; rank 0
 * receives D vectors and sends D: n * size * D bytes through the busiest
 * rank (not bandwidth-optimal, but the pipeline keeps every level busy).
 *
 * Example, p = 5, 2 segments (tree steps: 1->0 and 3->2, then 2->0, then
 * 4->0): round 0: 1->0, 3->2 segment 0; round 1: 1->0, 3->2 segment 1 and
 * 2->0 segment 0; round 2: 2->0 segment 1, 4->0 segment 0; round 3: 4->0
 * segment 1. The broadcast runs the same tree backwards, also 4 rounds. */
#include "reduce_util.h"
#include "coll_util.h"

extern int ol_coll_allreduce_segment_bytes;

ol_status_t ol_coll_allreduce_tree(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    MPI_Count seg = ol_coll_segment_count(ol_coll_allreduce_segment_bytes, dt);
    int *ranks = ol_coll_rotated_ranks(s, p, 0);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    const void *mine = ol_coll_in_place(a) ? NULL : a->sendbuf;
    ol_status_t rc = ol_coll_tree_reduce(s, a->recvbuf, mine, n, dt, a->op, ranks, p,
                                         a->comm->rank, seg);
    if (rc == OL_OK)
        rc = ol_coll_tree_bcast(s, a->recvbuf, n, dt, ranks, p, a->comm->rank, seg);
    return rc;
}
