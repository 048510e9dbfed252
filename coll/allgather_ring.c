/* Allgather, ring.
 *
 * Cost: p - 1 steps; in step i each rank sends the block it received in
 * step i - 1 to its right neighbour: (p - 1) * block bytes sent per rank,
 * bandwidth-optimal, any p.
 *
 * Example, p = 3: step 1: 0 sends block 0 to 1, 1 block 1 to 2, 2 block 2
 * to 0; step 2: each forwards the block it just got. */
#include "coll_select.h"
#include "coll_util.h"

ol_status_t ol_coll_allgather_ring(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    ol_status_t rc = OL_OK;
    if (a->sendbuf != MPI_IN_PLACE)
        rc = ol_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                           ol_coll_at(a->recvbuf, rank * n, dt), n, dt);
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int i = 0; rc == OL_OK && i < p - 1; i++) {
        int send_block = (rank - i + p) % p, recv_block = (rank - i - 1 + p) % p;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, ol_coll_at(a->recvbuf, send_block * n, dt), n, dt, right);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, ol_coll_at(a->recvbuf, recv_block * n, dt), n, dt, left);
    }
    return rc;
}
