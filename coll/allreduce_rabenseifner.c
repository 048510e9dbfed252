/* Allreduce, Rabenseifner: a reduce-scatter by recursive halving, then an
 * allgather by recursive doubling, on pof2 = the largest power of two <= p
 * processes; the rem = p - pof2 others first fold into them (even rank 2i
 * gives its vector to 2i + 1 for i < rem) and get the result back at the
 * end, as in recursive doubling.
 *
 * Cost: 2 log2(pof2) steps (+2 with the fold); each rank sends
 * 2 (pof2 - 1) / pof2 * n * size bytes (+ n * size for the fold):
 * near-bandwidth-optimal with a latency term of log p, so the choice for
 * mid-sized vectors. Commutative ops only: the pairs do not combine in
 * rank order.
 *
 * Near ranks pair first, where the halves are large: mpirun places ranks
 * by host, so the halves stay on a host and only the smaller blocks cross
 * the network (2 hosts x 2 ranks on network namespaces, osu_allreduce
 * 1 MiB: 1349-2203 us with far pairs first, 961-1105 near first). The
 * steps run on virtual ranks v, newrank with its bits reversed: v and
 * v ^ mask from the top mask down are newrank and newrank ^ reversed(mask)
 * from the bottom up, and v ends holding block v.
 *
 * Example, p = 4, n = 8 (blocks of 2; v of ranks 0-3: 0, 2, 1, 3): step 1:
 * 0 and 1 swap halves, 0 keeps elements 0-3, 1 keeps 4-7 (2 and 3
 * likewise); step 2: 0 and 2 swap quarters: 0 keeps 0-1 (the sum of all
 * four), 2 keeps 2-3. Doubling runs the same pairs backwards: 0 and 2 swap
 * their quarters, then 0 and 1 their halves.
 *
 * Not in place, the vector is not copied into recvbuf first: the first
 * step that reduces sends from sendbuf and receives straight into recvbuf,
 * where sendbuf's half is combined into what arrived. */
#include "reduce_util.h"
#include "coll_util.h"

static int old_rank_of(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

/* x with its log2(pof2) bits in reverse order: a virtual rank and back. */
static int bits_reversed(int x, int pof2)
{
    int r = 0;
    for (int bit = 1; bit < pof2; bit *= 2)
        r = r * 2 + ((x & bit) != 0);
    return r;
}

/* The rank that virtual rank v ^ mask stands for. */
static int partner(int v, int mask, int pof2, int rem)
{
    return old_rank_of(bits_reversed(v ^ mask, pof2), rem);
}

/* The halving steps: at the end virtual rank v holds block v of pof2.
 * *mine: this rank's vector while recvbuf does not hold it yet (NULL once
 * it does). */
static ol_status_t halving(ol_sched_t *s, const ol_coll_args_t *a, void *tmp, const void **mine,
                           int v, int pof2, int rem)
{
    ol_datatype_t *dt = a->recvtype;
    MPI_Count n = a->recvcount;
    int lo = 0;
    ol_status_t rc = OL_OK;
    for (int mask = pof2 / 2; rc == OL_OK && mask > 0; mask /= 2) {
        int peer = partner(v, mask, pof2, rem);
        bool upper = v & mask;
        int keep = upper ? lo + mask : lo, give = upper ? lo : lo + mask;
        MPI_Count keep_at = ol_coll_block_start(n, pof2, keep);
        MPI_Count keep_n = ol_coll_block_start(n, pof2, keep + mask) - keep_at;
        MPI_Count give_at = ol_coll_block_start(n, pof2, give);
        MPI_Count give_n = ol_coll_block_start(n, pof2, give + mask) - give_at;
        const void *from = *mine ? *mine : a->recvbuf;
        void *kept = ol_coll_at(a->recvbuf, keep_at, dt);
        void *in = *mine ? kept : tmp;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, ol_coll_at(from, give_at, dt), give_n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, in, keep_n, dt, peer);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_reduce(s, *mine ? ol_coll_at(*mine, keep_at, dt) : tmp, kept, keep_n,
                                 dt, a->op);
        *mine = NULL;
        lo = keep;
    }
    return rc;
}

/* The doubling steps: blocks [v's aligned range] grow to all pof2. */
static ol_status_t doubling(ol_sched_t *s, const ol_coll_args_t *a, int v, int pof2, int rem)
{
    ol_datatype_t *dt = a->recvtype;
    MPI_Count n = a->recvcount;
    ol_status_t rc = OL_OK;
    for (int mask = 1; rc == OL_OK && mask < pof2; mask *= 2) {
        int mine = v & ~(mask - 1), theirs = mine ^ mask;
        MPI_Count mine_at = ol_coll_block_start(n, pof2, mine);
        MPI_Count theirs_at = ol_coll_block_start(n, pof2, theirs);
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, ol_coll_at(a->recvbuf, mine_at, dt),
                               ol_coll_block_start(n, pof2, mine + mask) - mine_at, dt,
                               partner(v, mask, pof2, rem));
        if (rc == OL_OK)
            rc = ol_sched_recv(s, ol_coll_at(a->recvbuf, theirs_at, dt),
                               ol_coll_block_start(n, pof2, theirs + mask) - theirs_at, dt,
                               partner(v, mask, pof2, rem));
    }
    return rc;
}

ol_status_t ol_coll_allreduce_rabenseifner(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    void *tmp = ol_sched_scratch_typed(s, dt, n);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = OL_OK;
    const void *mine = ol_coll_in_place(a) ? NULL : a->sendbuf;
    int pof2 = 1;
    while (pof2 * 2 <= p)
        pof2 *= 2;
    int rem = p - pof2, newrank = rank - rem;
    if (p == 1 && mine)
        rc = ol_sched_copy(s, mine, n, dt, a->recvbuf, n, dt);
    if (rc == OL_OK && rank < 2 * rem) { /* fold */
        if (rank % 2 == 0) {
            rc = ol_sched_send(s, mine ? mine : a->recvbuf, n, dt, rank + 1);
            newrank = -1;
        } else {
            void *in = mine ? a->recvbuf : tmp;
            rc = ol_sched_recv(s, in, n, dt, rank - 1);
            if (rc == OL_OK)
                rc = ol_sched_round(s);
            if (rc == OL_OK)
                rc = ol_sched_reduce(s, mine ? mine : tmp, a->recvbuf, n, dt, a->op);
            mine = NULL;
            newrank = rank / 2;
        }
    }
    int v = newrank >= 0 ? bits_reversed(newrank, pof2) : -1;
    if (rc == OL_OK && v >= 0)
        rc = halving(s, a, tmp, &mine, v, pof2, rem);
    if (rc == OL_OK && v >= 0)
        rc = doubling(s, a, v, pof2, rem);
    if (rc == OL_OK && rank < 2 * rem) { /* unfold */
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = rank % 2 ? ol_sched_send(s, a->recvbuf, n, dt, rank - 1)
                          : ol_sched_recv(s, a->recvbuf, n, dt, rank + 1);
    }
    return rc;
}
