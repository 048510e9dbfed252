/* Gather and gatherv, linear: every process sends its block straight to
 * the root.
 *
 * Cost: one step; the root receives p - 1 messages at once, each block
 * crosses the wire once (no relaying, so nothing is packed). The choice
 * for very large blocks, for gatherv (whose blocks only the root knows),
 * and on intercommunicators (the root, MPI_ROOT, receives from every
 * process of the remote group; the rest of its group, MPI_PROC_NULL, does
 * nothing).
 *
 * Example, p = 4, root 2: 0, 1 and 3 send their blocks to 2, which receives
 * them into blocks 0, 1 and 3 and copies its own into block 2 (unless
 * MPI_IN_PLACE). */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "coll_util.h"

ol_status_t ol_coll_gather_linear(ol_sched_t *s, const ol_coll_args_t *a)
{
    ol_comm_t *c = a->comm;
    bool inter = ol_comm_is_inter(c);
    if (a->root == MPI_PROC_NULL)
        return OL_OK;
    if (inter ? a->root != MPI_ROOT : c->rank != a->root) {
        ol_coll_block_t out = ol_coll_send_block(a, a->root);
        return ol_sched_send(s, out.buf, out.count, out.dt, a->root);
    }
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < c->peer_size; i++) {
        ol_coll_block_t in = ol_coll_recv_block(a, i);
        if (inter || i != c->rank) {
            rc = ol_sched_recv(s, in.buf, in.count, in.dt, i);
        } else if (!ol_coll_in_place(a)) {
            ol_coll_block_t own = ol_coll_send_block(a, i);
            rc = ol_sched_copy(s, own.buf, own.count, own.dt, in.buf, in.count, in.dt);
        }
    }
    return rc;
}
