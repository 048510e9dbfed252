/* Broadcast, binomial tree.
 *
 * Cost: ceil(log2 p) steps; each rank receives the whole message once and
 * forwards it to at most log2 p children: count * size bytes per edge.
 * Latency-optimal, so the choice for small messages.
 *
 * Example, p = 6, root 0 (ranks relative to the root): step 1: 0->4;
 * step 2: 0->2, 4->5; step 3: 0->1, 2->3. A rank receives from the rank
 * that differs in its lowest set bit, then sends to rank + 2^k for every
 * 2^k below that bit. */
#include "coll_select.h"

ol_status_t ol_coll_bcast_binomial(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size, root = a->root;
    int me = (a->comm->rank - root + p) % p; /* rank relative to the root */
    int mask = 1;
    ol_status_t rc = OL_OK;
    while (mask < p) { /* receive from the parent */
        if (me & mask) {
            rc = ol_sched_recv(s, a->recvbuf, a->recvcount, a->recvtype, (me - mask + root) % p);
            if (rc == OL_OK)
                rc = ol_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; rc == OL_OK && mask > 0; mask >>= 1) /* then feed the children */
        if (me + mask < p)
            rc = ol_sched_send(s, a->recvbuf, a->recvcount, a->recvtype, (me + mask + root) % p);
    return rc;
}
