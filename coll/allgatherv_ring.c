/* Allgatherv, ring.
 *
 * Cost: p - 1 steps; in step i each rank sends to its right neighbour the
 * block it received in step i - 1 (its own first) and receives the next one
 * from its left: every rank sends and receives every block but its own
 * once, sum(recvcounts) - recvcounts[rank] elements, whatever the block
 * sizes. Bandwidth-optimal, any p.
 *
 * Example, p = 3, counts {2, 0, 5}: step 1: 0 -> 1 block 0 (2 elements),
 * 1 -> 2 block 1 (empty), 2 -> 0 block 2 (5); step 2: 0 -> 1 block 2,
 * 1 -> 2 block 0, 2 -> 0 block 1. */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "coll_util.h"

ol_status_t ol_coll_allgatherv_ring(ol_sched_t *s, const ol_coll_args_t *a)
{
    int me = a->comm->rank, p = a->comm->size;
    ol_status_t rc = OL_OK;
    if (!ol_coll_in_place(a)) {
        ol_coll_block_t own = ol_coll_recv_block(a, me);
        rc = ol_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, own.buf, own.count, own.dt);
    }
    int right = (me + 1) % p, left = (me - 1 + p) % p;
    for (int i = 0; rc == OL_OK && i < p - 1; i++) {
        ol_coll_block_t out = ol_coll_recv_block(a, (me - i + p) % p);
        ol_coll_block_t in = ol_coll_recv_block(a, (me - i - 1 + p) % p);
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, in.buf, in.count, in.dt, left);
        if (rc == OL_OK)
            rc = ol_sched_send(s, out.buf, out.count, out.dt, right);
    }
    return rc;
}
