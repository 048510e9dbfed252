/* Allreduce, ring: a ring reduce-scatter (reduce_scatter_ring.c) leaves
 * each rank one fully reduced block, then a ring allgather passes the
 * blocks round. Blocks are n / p elements, the first n % p one longer, so
 * any count and any p work (blocks may be empty when n < p).
 *
 * Cost: 2 (p - 1) steps, each sending one block: 2 (p - 1) / p * n * size
 * bytes per rank, bandwidth-optimal; the latency term grows with p, so it
 * is for large vectors. Commutative ops only (a block's reduction starts at
 * the rank after its owner and goes round the ring).
 *
 * Example, p = 3, n = 7 (blocks 3, 2, 2 elements): reduce-scatter step 1:
 * rank r sends block r - 1 to r + 1, which adds it into its own copy;
 * step 2: the partial of block r - 2 goes on; now rank r holds block r of
 * the sum. Allgather steps 1 and 2 pass the finished blocks round. */
#include "reduce_util.h"
#include "coll_util.h"

ol_status_t ol_coll_allreduce_ring(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    MPI_Count *starts = ol_sched_scratch(s, sizeof(MPI_Count) * (size_t)(p + 1));
    /* in place, the partials come in beside the vector; else straight into
     * recvbuf (ring_reduce_scatter) */
    const void *mine = ol_coll_in_place(a) ? NULL : a->sendbuf;
    void *tmp = mine ? NULL : ol_sched_scratch_typed(s, dt, n / p + 1);
    if (!starts || (!mine && !tmp))
        return MPI_ERR_NO_MEM;
    for (int i = 0; i <= p; i++)
        starts[i] = ol_coll_block_start(n, p, i);
    ol_status_t rc = OL_OK;
    if (p == 1 && mine)
        rc = ol_sched_copy(s, mine, n, dt, a->recvbuf, n, dt);
    if (rc == OL_OK)
        rc = ol_coll_ring_reduce_scatter(s, a->recvbuf, mine, tmp, starts, dt, a->op, rank, p);
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int k = 0; rc == OL_OK && k < p - 1; k++) {
        int out = (rank - k + p) % p, in = (rank - k - 1 + p) % p;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, ol_coll_at(a->recvbuf, starts[out], dt),
                               starts[out + 1] - starts[out], dt, right);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, ol_coll_at(a->recvbuf, starts[in], dt),
                               starts[in + 1] - starts[in], dt, left);
    }
    return rc;
}
