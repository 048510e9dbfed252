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
 * with new rank ^ 1, then ^ 2; then 1 and 3 hand the result to 0 and 2.
 *
 * Not in place, sendbuf is not copied into recvbuf first: the first
 * exchange sends from sendbuf and receives into recvbuf, where sendbuf is
 * combined into what arrived (2 ranks, 1 MiB: the copy was a fifth of the
 * call). A non-commutative op does so only where this rank's vector is the
 * left operand, since the other order would overwrite sendbuf. */
#include "reduce_util.h"

static int old_rank_of(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* Where this rank's partial result is: in sendbuf until the first
 * combine (unless in place), then in recvbuf. tmp, for a partner's vector
 * that cannot land in recvbuf, is taken on first need (on 2 processes with
 * a commutative op, never: 1 MiB less scratch at 1 MiB). */
typedef struct {
    ol_sched_t *s;
    const ol_coll_args_t *a;
    void *tmp;
    bool in_recvbuf;
} partial_t;

static const void *partial_of(const partial_t *x)
{
    return x->in_recvbuf ? x->a->recvbuf : x->a->sendbuf;
}

/* Where to receive the vector of a partner (lower: below this rank):
 * straight into recvbuf while the partial result is still in sendbuf,
 * where the combine allows it. */
static bool lands_in_recvbuf(const partial_t *x, bool partner_lower)
{
    return !x->in_recvbuf && (x->a->op->commutative || !partner_lower);
}

/* NULL: out of memory. */
static void *landing(partial_t *x, bool partner_lower)
{
    if (lands_in_recvbuf(x, partner_lower))
        return x->a->recvbuf;
    if (!x->tmp)
        x->tmp = ol_sched_scratch_typed(x->s, x->a->recvtype, x->a->recvcount);
    return x->tmp;
}

static ol_status_t recv_partner(partial_t *x, int peer, bool partner_lower)
{
    void *at = landing(x, partner_lower);
    return at ? ol_sched_recv(x->s, at, x->a->recvcount, x->a->recvtype, peer) : MPI_ERR_NO_MEM;
}

/* After the receive into landing(): recvbuf = the combined vector, in rank
 * order. */
static ol_status_t combine(ol_sched_t *s, partial_t *x, bool partner_lower)
{
    const ol_coll_args_t *a = x->a;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    bool straight = lands_in_recvbuf(x, partner_lower);
    ol_status_t rc = OL_OK;
    if (!straight && !x->in_recvbuf) /* non-commutative, the partner's vector on the left */
        rc = ol_sched_copy(s, a->sendbuf, n, dt, a->recvbuf, n, dt);
    x->in_recvbuf = true;
    if (rc != OL_OK)
        return rc;
    if (straight) /* this rank's vector is the other operand */
        return ol_coll_combine(s, a->recvbuf, (void *)a->sendbuf, !partner_lower, n, dt, a->op);
    return ol_coll_combine(s, a->recvbuf, x->tmp, partner_lower, n, dt, a->op);
}

ol_status_t ol_coll_allreduce_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    partial_t x = {.s = s, .a = a, .tmp = NULL, .in_recvbuf = a->sendbuf == MPI_IN_PLACE};
    ol_status_t rc = OL_OK;
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank = rank - rem;

    if (rank < 2 * rem) { /* fold: even ranks hand their data to the next odd */
        if (rank % 2 == 0) {
            rc = ol_sched_send(s, partial_of(&x), n, dt, rank + 1);
            newrank = -1;
        } else {
            rc = recv_partner(&x, rank - 1, true);
            if (rc == OL_OK)
                rc = ol_sched_round(s);
            if (rc == OL_OK)
                rc = combine(s, &x, true);
            newrank = rank / 2;
        }
    }
    for (int mask = 1; rc == OL_OK && newrank >= 0 && mask < pof2; mask <<= 1) {
        int peer = old_rank_of(newrank ^ mask, rem);
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, partial_of(&x), n, dt, peer);
        if (rc == OL_OK)
            rc = recv_partner(&x, peer, peer < rank);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = combine(s, &x, peer < rank);
    }
    if (rc == OL_OK && !x.in_recvbuf && newrank >= 0) /* one process: nothing was combined */
        rc = ol_sched_copy(s, a->sendbuf, n, dt, a->recvbuf, n, dt);
    if (rc == OL_OK && rank < 2 * rem) { /* unfold: the odd ranks give the result back */
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = rank % 2 ? ol_sched_send(s, a->recvbuf, n, dt, rank - 1)
                          : ol_sched_recv(s, a->recvbuf, n, dt, rank + 1);
    }
    return rc;
}
