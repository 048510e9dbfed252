/* Broadcast, binomial tree.
 *
 * Cost: ceil(log2 p) steps, each rank receives the whole message once and
 * forwards it to at most log2 p children; count * size bytes per edge.
 *
 * Example, p = 6, root 0 (ranks relative to the root): step 1: 0->4;
 * step 2: 0->2, 4->5; step 3: 0->1, 2->3. A rank receives from the rank
 * that differs in its lowest set bit, then sends to rank + 2^k for every
 * 2^k below that bit, largest first. */
#include "coll_util.h"

ol_status_t ol_coll_bcast_binomial(void *buf, MPI_Count count, ol_datatype_t *dt, int root,
                                   ol_comm_t *comm)
{
    int p = comm->size;
    int me = (comm->rank - root + p) % p; /* rank relative to the root */
    int mask = 1;
    while (mask < p) { /* receive from the parent */
        if (me & mask) {
            int parent = (me - mask + root) % p;
            ol_status_t rc = ol_coll_recv(buf, count, dt, parent, OL_COLL_TAG_BCAST, comm);
            if (rc != OL_OK)
                return rc;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) { /* then feed the children */
        if (me + mask < p) {
            int child = (me + mask + root) % p;
            ol_status_t rc = ol_coll_send(buf, count, dt, child, OL_COLL_TAG_BCAST, comm);
            if (rc != OL_OK)
                return rc;
        }
    }
    return OL_OK;
}
