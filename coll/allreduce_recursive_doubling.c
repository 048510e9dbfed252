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
#include "coll_util.h"

#include <stdlib.h>

/* recvbuf = lower op higher, whichever side recvbuf holds. */
static ol_status_t combine(void *recvbuf, void *tmp, bool tmp_is_lower, MPI_Count count,
                           ol_datatype_t *dt, ol_op_t *op)
{
    if (tmp_is_lower || op->commutative)
        return ol_op_apply(op, tmp, recvbuf, count, dt);
    ol_status_t rc = ol_op_apply(op, recvbuf, tmp, count, dt);
    if (rc == OL_OK)
        rc = ol_coll_copy(recvbuf, tmp, count, dt);
    return rc;
}

static int old_rank_of(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

ol_status_t ol_coll_allreduce_recursive_doubling(const void *sendbuf, void *recvbuf,
                                                 MPI_Count count, ol_datatype_t *dt,
                                                 ol_op_t *op, ol_comm_t *comm)
{
    int rank = comm->rank, p = comm->size, tag = OL_COLL_TAG_ALLREDUCE;
    ol_status_t rc = sendbuf == MPI_IN_PLACE ? OL_OK : ol_coll_copy(recvbuf, sendbuf, count, dt);
    void *base;
    void *tmp = ol_coll_scratch(dt, count, &base);
    if (rc != OL_OK || !tmp) {
        free(base);
        return rc != OL_OK ? rc : MPI_ERR_NO_MEM;
    }
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank;

    if (rank < 2 * rem) { /* fold: even ranks hand their data to the next odd one */
        if (rank % 2 == 0) {
            rc = ol_coll_send(recvbuf, count, dt, rank + 1, tag, comm);
            newrank = -1;
        } else {
            rc = ol_coll_recv(tmp, count, dt, rank - 1, tag, comm);
            if (rc == OL_OK)
                rc = combine(recvbuf, tmp, true, count, dt, op);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }

    for (int mask = 1; rc == OL_OK && newrank >= 0 && mask < pof2; mask <<= 1) {
        int peer = old_rank_of(newrank ^ mask, rem);
        rc = ol_coll_sendrecv(recvbuf, count, dt, peer, tmp, count, dt, peer, tag, comm);
        if (rc == OL_OK)
            rc = combine(recvbuf, tmp, peer < rank, count, dt, op);
    }

    if (rc == OL_OK && rank < 2 * rem) { /* unfold: the odd ranks give the result back */
        if (rank % 2)
            rc = ol_coll_send(recvbuf, count, dt, rank - 1, tag, comm);
        else
            rc = ol_coll_recv(recvbuf, count, dt, rank + 1, tag, comm);
    }
    free(base);
    return rc;
}
