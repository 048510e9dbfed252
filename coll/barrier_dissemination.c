/* Barrier, dissemination algorithm (Hensgen, Finkel and Manber).
 *
 * Cost: ceil(log2 p) rounds; in round k each rank sends a zero-byte message
 * to rank + 2^k and receives one from rank - 2^k (mod p). Right for any p.
 *
 * Example, p = 5: round 0: 0->1 1->2 2->3 3->4 4->0; round 1: 0->2 1->3 ...
 * round 2: 0->4 1->0 ... After round k every rank has heard, directly or
 * not, from the 2^(k+1) ranks before it, so after ceil(log2 5) = 3 rounds
 * from all of them. */
#include "coll_select.h"

ol_status_t ol_coll_barrier_dissemination(ol_sched_t *s, const ol_coll_args_t *a)
{
    ol_comm_t *comm = a->comm;
    ol_datatype_t *byte = ol_dt_from_handle(MPI_BYTE);
    ol_status_t rc = OL_OK;
    for (int distance = 1; rc == OL_OK && distance < comm->size; distance <<= 1) {
        int to = (comm->rank + distance) % comm->size;
        int from = (comm->rank - distance + comm->size) % comm->size;
        rc = ol_sched_recv(s, NULL, 0, byte, from);
        if (rc == OL_OK)
            rc = ol_sched_send(s, NULL, 0, byte, to);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
    }
    return rc;
}
