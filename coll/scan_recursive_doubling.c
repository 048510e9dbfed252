/* Scan and Exscan, recursive doubling: at step k (mask 2^k) rank r swaps
 * its partial, the reduction of the aligned run of 2^k ranks around it,
 * with r ^ mask when that rank exists. A partial from a lower rank is the
 * reduction of the ranks just below r's run, so it goes on the left of
 * both the partial and the result: rank order is kept, right for
 * non-commutative ops, and the association depends on p alone (so the
 * result is reproducible).
 *
 * Cost: ceil(log2 p) steps of n * size bytes each way, any p.
 *
 * Example, p = 3 (scan): step 1: 0 <-> 1: 1's result x0 op x1, both
 * partials x0 op x1; 2 has no partner; step 2: 0 <-> 2 (2 ^ 2 = 0): 2's
 * result x0 op x1 op x2 (0's partial on the left of x2). Exscan: the
 * same, but a rank's result starts as the first lower partial it gets
 * (rank 0's result stays undefined, as the standard says). */
#include "reduce_util.h"
#include "coll_util.h"

static ol_status_t build(ol_sched_t *s, const ol_coll_args_t *a, bool exclusive)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    const void *in = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    void *partial = ol_sched_scratch_typed(s, dt, n), *tmp = ol_sched_scratch_typed(s, dt, n);
    if (!partial || !tmp)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = ol_sched_copy(s, in, n, dt, partial, n, dt);
    if (rc == OL_OK && !exclusive)
        rc = ol_sched_copy(s, in, n, dt, a->recvbuf, n, dt);
    bool have_result = !exclusive;
    for (int mask = 1; rc == OL_OK && mask < p; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= p)
            continue;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, partial, n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, tmp, n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        if (rc != OL_OK)
            break;
        if (peer < rank) { /* tmp goes on the left of both */
            rc = have_result ? ol_sched_reduce(s, tmp, a->recvbuf, n, dt, a->op)
                             : ol_sched_copy(s, tmp, n, dt, a->recvbuf, n, dt);
            have_result = true;
            if (rc == OL_OK)
                rc = ol_sched_reduce(s, tmp, partial, n, dt, a->op);
        } else if (a->op->commutative) {
            rc = ol_sched_reduce(s, tmp, partial, n, dt, a->op);
        } else { /* partial op tmp lands in tmp: the two swap roles */
            rc = ol_sched_reduce(s, partial, tmp, n, dt, a->op);
            void *swap = partial;
            partial = tmp;
            tmp = swap;
        }
    }
    return rc;
}

ol_status_t ol_coll_scan_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a)
{
    return build(s, a, false);
}

ol_status_t ol_coll_exscan_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a)
{
    return build(s, a, true);
}
