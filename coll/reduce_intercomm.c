/* Reduce on an intercommunicator: the root (root == MPI_ROOT) receives the
 * vector of every process of the other group and reduces them in rank
 * order; the root's group partners (MPI_PROC_NULL) do nothing. Linear,
 * since only messages between the groups are at hand.
 *
 * Cost: 1 step; the root receives the remote group's size times n * size
 * bytes.
 *
 * Example, groups A = {a0, a1}, B = {b0, b1, b2}, root b1: a0 and a1 send
 * to b1 (root argument 1 in A, MPI_ROOT at b1, MPI_PROC_NULL at b0 and b2);
 * b1 computes x(a0) op x(a1). On an intracommunicator (forced) this is the
 * in-order reduce. */
#include "reduce_util.h"

ol_status_t ol_coll_reduce_in_order(ol_sched_t *s, const ol_coll_args_t *a);

ol_status_t ol_coll_reduce_intercomm(ol_sched_t *s, const ol_coll_args_t *a)
{
    if (!ol_comm_is_inter(a->comm))
        return ol_coll_reduce_in_order(s, a);
    if (a->root == MPI_PROC_NULL)
        return OL_OK;
    if (a->root == MPI_ROOT)
        return ol_coll_gather_reduce(s, a->recvbuf, a->recvcount, a->recvtype, a->op,
                                     a->comm->peer_size);
    return ol_sched_send(s, a->sendbuf, a->recvcount, a->recvtype, a->root);
}
