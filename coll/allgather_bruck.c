/* Allgather, Bruck's algorithm (Bruck, Ho, Kipnis, Upfal and Weathersby).
 *
 * Cost: ceil(log2 p) steps for any p; in step k (distance d = 2^k) each
 * rank sends the min(d, p - d) blocks it has to rank - d and receives as
 * many from rank + d: (p - 1) blocks received per rank, plus one local
 * rotation of the result (skipped on rank 0). Like recursive doubling in
 * steps, with no extra steps when p is not a power of two.
 *
 * Example, p = 5, rank r collects blocks r, r + 1, ... in that order:
 * step 1 gets block r + 1 from r + 1; step 2 gets r + 2, r + 3 from r + 2;
 * step 3 gets r + 4 from r + 4. Rank r then moves position i to block
 * (r + i) mod p. */
#include "coll_select.h"
#include "coll_util.h"

/* count blocks of the same type: the copy of whole ranges. */
static ol_status_t copy_blocks(ol_sched_t *s, const ol_coll_args_t *a, const void *from, void *to,
                               int blocks)
{
    MPI_Count n = blocks * a->recvcount;
    return ol_sched_copy(s, from, n, a->recvtype, to, n, a->recvtype);
}

ol_status_t ol_coll_allgather_bruck(ol_sched_t *s, const ol_coll_args_t *a)
{
    int me = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    /* rank 0's rotation is the identity: it collects in place */
    char *tmp = me == 0 ? a->recvbuf : ol_sched_scratch_typed(s, dt, p * n);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = OL_OK;
    if (!ol_coll_in_place(a))
        rc = ol_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, tmp, n, dt);
    else if (me != 0)
        rc = copy_blocks(s, a, ol_coll_at(a->recvbuf, me * n, dt), tmp, 1);
    for (int d = 1; rc == OL_OK && d < p; d <<= 1) {
        MPI_Count k = d < p - d ? d : p - d;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, ol_coll_at(tmp, d * n, dt), k * n, dt, (me + d) % p);
        if (rc == OL_OK)
            rc = ol_sched_send(s, tmp, k * n, dt, (me - d + p) % p);
    }
    if (rc != OL_OK || me == 0)
        return rc;
    rc = ol_sched_round(s);
    if (rc == OL_OK)
        rc = copy_blocks(s, a, tmp, ol_coll_at(a->recvbuf, me * n, dt), p - me);
    return rc == OL_OK ? copy_blocks(s, a, ol_coll_at(tmp, (p - me) * n, dt), a->recvbuf, me) : rc;
}
