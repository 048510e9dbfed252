/* Alltoall(v, w) and allgather(v), linear: every exchange at once.
 *
 * Cost: one step; each process posts p - 1 sends and p - 1 receives (p
 * the remote group's size on an intercommunicator, where there is no own
 * block): the bytes of every block cross the wire once, but all messages
 * compete at once, which suits few processes and small blocks, and is the
 * intercommunicator algorithm (no process relays another's data).
 *
 * Example, alltoall on p = 3, rank 1: copies its block 1 into its receive
 * block 1, sends block 0 to 0 and block 2 to 2, and receives 0's block 1
 * into block 0 and 2's block 1 into block 2, all in one round. With
 * MPI_IN_PLACE the blocks to send are first packed aside (they share memory
 * with the blocks received). */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "coll_util.h"

ol_status_t ol_coll_alltoall_linear(ol_sched_t *s, const ol_coll_args_t *args)
{
    ol_coll_args_t a;
    ol_status_t rc = ol_coll_alltoall_snapshot(s, args, &a);
    bool inter = ol_comm_is_inter(a.comm);
    int me = inter ? -1 : a.comm->rank;
    if (rc == OL_OK && me >= 0 && !ol_coll_in_place(args)) {
        ol_coll_block_t from = ol_coll_send_block(&a, me), to = ol_coll_recv_block(&a, me);
        rc = ol_sched_copy(s, from.buf, from.count, from.dt, to.buf, to.count, to.dt);
    }
    for (int i = 0; rc == OL_OK && i < a.comm->peer_size; i++) {
        if (i == me)
            continue;
        ol_coll_block_t in = ol_coll_recv_block(&a, i), out = ol_coll_send_block(&a, i);
        rc = ol_sched_recv(s, in.buf, in.count, in.dt, i);
        if (rc == OL_OK)
            rc = ol_sched_send(s, out.buf, out.count, out.dt, i);
    }
    return rc;
}
