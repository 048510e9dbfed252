/* Barrier, linear: every process sends a zero-byte message to every other
 * (every process of the remote group on an intercommunicator) and waits
 * for one from each.
 *
 * Cost: one step, but p - 1 messages out and in per process (p q on an
 * intercommunicator of groups of p and q). The intercommunicator
 * algorithm: there a process may leave once every process of the other
 * group has entered, which is exactly having heard from each of them.
 *
 * Example, intercommunicator of {a0, a1} and {b0, b1, b2}: a0 sends to b0,
 * b1 and b2 and waits for all three; b1 sends to a0 and a1 and waits for
 * both. */
#include "coll_select.h"

ol_status_t ol_coll_barrier_linear(ol_sched_t *s, const ol_coll_args_t *a)
{
    ol_comm_t *c = a->comm;
    ol_datatype_t *byte = ol_dt_from_handle(MPI_BYTE);
    int me = ol_comm_is_inter(c) ? -1 : c->rank;
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < c->peer_size; i++) {
        if (i == me)
            continue;
        rc = ol_sched_recv(s, NULL, 0, byte, i);
        if (rc == OL_OK)
            rc = ol_sched_send(s, NULL, 0, byte, i);
    }
    return rc;
}
