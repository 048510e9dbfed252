/* Alltoall(v, w), pairwise exchange.
 *
 * Cost: p - 1 steps; in step k each process sends its block for rank + k
 * and receives the block of rank - k (mod p): one message out and one in
 * per step, so no process is flooded, and every block crosses the wire
 * once: (p - 1) blocks sent per process. The choice for large blocks.
 *
 * Example, p = 3, rank 0: step 0 copies its own block; step 1 sends block 1
 * to 1 and receives 2's block 0; step 2 sends block 2 to 2 and receives 1's
 * block 0. With MPI_IN_PLACE the blocks to send are first packed aside: a
 * block received in an early step would overwrite one not yet sent. */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "coll_util.h"

ol_status_t ol_coll_alltoall_pairwise(ol_sched_t *s, const ol_coll_args_t *args)
{
    ol_coll_args_t a;
    ol_status_t rc = ol_coll_alltoall_snapshot(s, args, &a);
    int me = a.comm->rank, p = a.comm->size;
    if (rc == OL_OK && !ol_coll_in_place(args)) {
        ol_coll_block_t from = ol_coll_send_block(&a, me), to = ol_coll_recv_block(&a, me);
        rc = ol_sched_copy(s, from.buf, from.count, from.dt, to.buf, to.count, to.dt);
    }
    for (int k = 1; rc == OL_OK && k < p; k++) {
        int dest = (me + k) % p, source = (me - k + p) % p;
        ol_coll_block_t out = ol_coll_send_block(&a, dest), in = ol_coll_recv_block(&a, source);
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, in.buf, in.count, in.dt, source);
        if (rc == OL_OK)
            rc = ol_sched_send(s, out.buf, out.count, out.dt, dest);
    }
    return rc;
}
