/* Broadcast, linear: the root sends the whole message to every other
 * process.
 *
 * Cost: one step, but the root sends p - 1 copies of the message (n (p - 1)
 * bytes through one link). The intercommunicator algorithm: the root
 * (MPI_ROOT) sends to each process of the remote group, which has no way to
 * relay through the root's group; the rest of the root's group
 * (MPI_PROC_NULL) does nothing.
 *
 * Example, intercommunicator with groups {a0, a1} and {b0, b1, b2}, root
 * a1: a1 sends to b0, b1 and b2; a0 does nothing; each b receives from
 * remote rank 1. */
#include "coll_select.h"

ol_status_t ol_coll_bcast_linear(ol_sched_t *s, const ol_coll_args_t *a)
{
    ol_comm_t *c = a->comm;
    bool inter = ol_comm_is_inter(c);
    if (a->root == MPI_PROC_NULL)
        return OL_OK;
    if (inter ? a->root != MPI_ROOT : c->rank != a->root)
        return ol_sched_recv(s, a->recvbuf, a->recvcount, a->recvtype, a->root);
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < c->peer_size; i++)
        if (inter || i != c->rank)
            rc = ol_sched_send(s, a->recvbuf, a->recvcount, a->recvtype, i);
    return rc;
}
