/* Allreduce, recursive doubling (with the usual fold for p not a power of
 * two). Right for non-commutative ops too: every partial result combines a
 * contiguous range of ranks, lower ranks on the left.
 *
 * Cost: ceil(log2 p) (+2 when p is not a power of two) steps of count *
 * size bytes each way: latency-optimal, so it is the choice for small
 * messages.
 *
 * Example, p = 6 (pof2 = 4, rem = 2): ranks 0 and 2 give their data to 1
 * and 3 and sit out; the four left (1, 3, 4, 5 as new ranks 0..3) exchange
 * with new rank ^ 1, then ^ 2; then 1 and 3 hand the result to 0 and 2. */
#include "reduce_util.h"

static int old_rank_of(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

ol_status_t ol_coll_allreduce_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    void *tmp = ol_sched_scratch_typed(s, dt, n);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = OL_OK;
    if (a->sendbuf != MPI_IN_PLACE)
        rc = ol_sched_copy(s, a->sendbuf, n, dt, a->recvbuf, n, dt);
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank = rank - rem;

    if (rc == OL_OK && rank < 2 * rem) { /* fold: even ranks hand their data to the next odd */
        if (rank % 2 == 0) {
            rc = ol_sched_send(s, a->recvbuf, n, dt, rank + 1);
            newrank = -1;
        } else {
            rc = ol_sched_recv(s, tmp, n, dt, rank - 1);
            if (rc == OL_OK)
                rc = ol_sched_round(s);
            if (rc == OL_OK)
                rc = ol_coll_combine(s, a->recvbuf, tmp, true, n, dt, a->op);
            newrank = rank / 2;
        }
    }
    for (int mask = 1; rc == OL_OK && newrank >= 0 && mask < pof2; mask <<= 1) {
        int peer = old_rank_of(newrank ^ mask, rem);
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, a->recvbuf, n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, tmp, n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_coll_combine(s, a->recvbuf, tmp, peer < rank, n, dt, a->op);
    }
    if (rc == OL_OK && rank < 2 * rem) { /* unfold: the odd ranks give the result back */
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = rank % 2 ? ol_sched_send(s, a->recvbuf, n, dt, rank - 1)
                          : ol_sched_recv(s, a->recvbuf, n, dt, rank + 1);
    }
    return rc;
}
