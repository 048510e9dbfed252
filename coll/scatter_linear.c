/* Scatter and scatterv, linear: the root sends every process its block
 * directly.
 *
 * Cost: one step; the root sends p - 1 messages at once, each block crosses
 * the wire once (no relaying). The choice for very large blocks, for
 * scatterv (whose blocks only the root knows), and on intercommunicators
 * (the root, MPI_ROOT, sends to every process of the remote group; the rest
 * of its group, MPI_PROC_NULL, does nothing).
 *
 * Example, p = 4, root 2: 2 sends block 0 to 0, 1 to 1 and 3 to 3, and
 * copies block 2 into its own receive buffer (unless that is MPI_IN_PLACE);
 * 0, 1 and 3 receive. */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "coll_util.h"

ol_status_t ol_coll_scatter_linear(ol_sched_t *s, const ol_coll_args_t *a)
{
    ol_comm_t *c = a->comm;
    bool inter = ol_comm_is_inter(c);
    if (a->root == MPI_PROC_NULL)
        return OL_OK;
    if (inter ? a->root != MPI_ROOT : c->rank != a->root)
        return ol_sched_recv(s, a->recvbuf, a->recvcount, a->recvtype, a->root);
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < c->peer_size; i++) {
        ol_coll_block_t out = ol_coll_send_block(a, i);
        if (inter || i != c->rank)
            rc = ol_sched_send(s, out.buf, out.count, out.dt, i);
        else if (a->recvbuf != MPI_IN_PLACE)
            rc =
                ol_sched_copy(s, out.buf, out.count, out.dt, a->recvbuf, a->recvcount, a->recvtype);
    }
    return rc;
}
