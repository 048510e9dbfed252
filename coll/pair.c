/* Small blocking collectives on two processes, without a schedule.
 *
 * On two processes each of these collectives is at most one message each
 * way and a local reduction: what every algorithm of the tables builds
 * there. Building, running and freeing a schedule for it cost more than
 * the message itself, so a blocking call that is small, on contiguous data
 * and not forced to an algorithm is done here with pt2pt calls directly.
 * Measured on the 2-core development machine (loaded by other jobs),
 * 2 ranks, 8 B, loops of 20000 calls, us per call:
 *
 *                        allreduce  bcast  barrier  allgather  alltoall
 *   schedules (before)     0.73     0.23    0.43      0.50      0.49
 *   this file              0.28     0.07    0.24      0.25      0.25
 *   Open MPI 4.1           0.21     0.08    0.23      0.32      0.20
 *
 * The traffic uses the tags a schedule would (ol_sched_next_tag), so that
 * nonblocking collectives in flight are never matched. */
#include "bcast_util.h"
#include "coll_util.h"
#include "reduce_util.h"

/* Largest message of the direct path: the received block of a reduction
 * lands in a buffer on the stack. */
enum { PAIR_MAX_BYTES = 8192 };

typedef struct {
    ol_comm_t *comm;
    int me, peer;
    int tag;
} pair_t;

static bool contiguous(const ol_datatype_t *dt)
{
    return !dt || dt->contiguous;
}

/* Bytes of the largest message the call sends or receives. */
static MPI_Count message_bytes(const ol_coll_args_t *a)
{
    switch (a->kind) {
    case OL_COLL_REDUCE_SCATTER:
        return (a->recvcounts[0] > a->recvcounts[1] ? a->recvcounts[0] : a->recvcounts[1]) *
               (MPI_Count)a->recvtype->size;
    default: return ol_coll_bytes(a);
    }
}

/* The shapes of each kind that the direct path takes. Its messages are
 * those of the algorithm the table would choose on two processes, so that
 * two ranks that go different ways (a non-contiguous type on one side
 * only) still match: for reduce and reduce_scatter that holds
 * for commutative ops only (the others go through rank 0 in order). */
static bool kind_fits(const ol_coll_args_t *a)
{
    bool same_types = a->sendtype == a->recvtype && a->sendcount == a->recvcount;
    switch (a->kind) {
    case OL_COLL_BARRIER:
    case OL_COLL_ALLREDUCE: return true;
    /* the pipelined chain sends a longer message in segments */
    case OL_COLL_BCAST: return ol_coll_bytes(a) <= ol_coll_bcast_segment_size();
    case OL_COLL_REDUCE: return a->op->commutative;
    case OL_COLL_ALLGATHER: return ol_coll_in_place(a) || same_types;
    case OL_COLL_ALLTOALL: return !ol_coll_in_place(a) && same_types;
    case OL_COLL_REDUCE_SCATTER: /* reductions have one datatype */
    case OL_COLL_REDUCE_SCATTER_BLOCK: return !ol_coll_in_place(a) && a->op->commutative;
    default: return false;
    }
}

bool ol_coll_pair_applies(const ol_coll_args_t *a)
{
    if (a->comm->size != 2 || ol_comm_is_inter(a->comm) || ol_coll_reproducible)
        return false;
    if (!kind_fits(a))
        return false;
    const char *forced = *ol_coll_tables[a->kind]->forced;
    if (forced && *forced) /* the tests force every algorithm: let them run it */
        return false;
    return contiguous(a->sendtype) && contiguous(a->recvtype) &&
           message_bytes(a) <= PAIR_MAX_BYTES;
}

/* The outcome of a receive of count elements of dt: its error, else a
 * wrong length (ol_coll_check_length). */
static ol_status_t received(ol_status_t rc, const MPI_Status *status, MPI_Count count,
                            ol_datatype_t *dt)
{
    if (rc != OL_OK && rc != MPI_ERR_TRUNCATE)
        return rc;
    ol_status_t length =
        ol_coll_check_length(ol_status_get_bytes(status), status->MPI_SOURCE, count, dt);
    return rc != OL_OK ? rc : length;
}

/* A copy of this rank's own data that a call makes while the peer's
 * message is on its way, not after it: 2 ranks, osu_allgather 2/4/8 KiB
 * 1.19-1.28/1.48-1.50/1.89-1.91 us -> 1.06-1.10/1.21-1.28/1.60-1.74
 * (MPICH 1.17/1.44-1.48/1.68-1.71), 4 alternating runs. */
typedef struct {
    void *dst;
    const void *src;
    MPI_Count count;
} local_copy_t;

static const local_copy_t no_copy = {NULL, NULL, 0};

/* Makes the copy `meanwhile`, then waits for the receive in flight of
 * count elements of dt. */
static ol_status_t copy_then_wait(ol_request_t *in_flight, MPI_Count count, ol_datatype_t *dt,
                                  const local_copy_t *meanwhile)
{
    ol_status_t copy_rc = ol_coll_copy(meanwhile->dst, meanwhile->src, meanwhile->count, dt);
    MPI_Status status;
    ol_status_t rc = received(ol_pt2pt_wait(in_flight, &status), &status, count, dt);
    return rc != OL_OK ? rc : copy_rc;
}

static ol_status_t post_recv(const pair_t *p, void *buf, MPI_Count count, ol_datatype_t *dt,
                             ol_request_t **in_flight)
{
    return ol_pt2pt_irecv(buf, count, dt, p->peer, ol_coll_tag(p->comm, p->tag), p->comm,
                          OL_TAGSPACE_COLL, in_flight);
}

static ol_status_t send_to_peer(const pair_t *p, const void *buf, MPI_Count count,
                                ol_datatype_t *dt, ol_send_mode_t mode)
{
    return ol_pt2pt_send(buf, count, dt, p->peer, ol_coll_tag(p->comm, p->tag), p->comm,
                         OL_TAGSPACE_COLL, mode);
}

/* Receives in_count elements from the peer while sending out_count
 * elements and making the copy `meanwhile`. The peer posts its receive
 * before it sends, and takes this rank's message while it waits for its
 * own: the send goes in ready mode, which on one host lets pt2pt send it
 * by address also when this rank's receive has already matched (a
 * standard blocking send then went through the ring, so one direction was
 * copied twice; a ready send that comes early is matched as any other).
 * 2 ranks, 6 alternating runs: osu_allgather 8 KiB 2.2-3.2 -> 1.8-2.7 us,
 * osu_alltoall 8 KiB 2.1-3.1 -> 1.9-3.0. */
static ol_status_t exchange(const pair_t *p, const void *out, MPI_Count out_count,
                            void *in, MPI_Count in_count, ol_datatype_t *dt,
                            const local_copy_t *meanwhile)
{
    ol_request_t *in_flight;
    ol_status_t rc = post_recv(p, in, in_count, dt, &in_flight);
    if (rc != OL_OK)
        return rc;
    rc = send_to_peer(p, out, out_count, dt, OL_SEND_READY);
    if (rc != OL_OK)
        ol_pt2pt_cancel(in_flight);
    ol_status_t wait_rc = copy_then_wait(in_flight, in_count, dt, meanwhile);
    return rc != OL_OK ? rc : wait_rc;
}

static ol_status_t recv_from_peer(const pair_t *p, void *buf, MPI_Count count,
                                  ol_datatype_t *dt)
{
    MPI_Status status;
    ol_status_t rc = ol_pt2pt_recv(buf, count, dt, p->peer, ol_coll_tag(p->comm, p->tag),
                                   p->comm, OL_TAGSPACE_COLL, &status);
    return received(rc, &status, count, dt);
}

/* A reduction's result is rank 0's vector op rank 1's, whatever the op's
 * commutativity. It starts as this rank's own vector, copied while the
 * peer's comes, except on rank 0 with an op that does not commute. */
static bool result_starts_as_mine(const pair_t *p, const ol_op_t *op)
{
    return p->me == 1 || op->commutative;
}

static local_copy_t copy_of_mine(const pair_t *p, const ol_op_t *op, void *result,
                                 const void *mine, MPI_Count count)
{
    return result_starts_as_mine(p, op) ? (local_copy_t){result, mine, count} : no_copy;
}

/* Finishes result with the peer's vector, theirs (scratch, overwritten). */
static ol_status_t combine(const pair_t *p, void *result, const void *mine, void *theirs,
                           MPI_Count count, ol_datatype_t *dt, ol_op_t *op)
{
    if (result_starts_as_mine(p, op))
        return ol_op_apply(op, theirs, result, count, dt);
    ol_status_t rc = ol_op_apply(op, mine, theirs, count, dt);
    return rc == OL_OK ? ol_coll_copy(result, theirs, count, dt) : rc;
}

static ol_status_t allreduce(const pair_t *p, const ol_coll_args_t *a, void *tmp)
{
    const void *mine = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    local_copy_t start = copy_of_mine(p, a->op, a->recvbuf, mine, a->recvcount);
    ol_status_t rc = exchange(p, mine, a->recvcount, tmp, a->recvcount, a->recvtype, &start);
    return rc == OL_OK ? combine(p, a->recvbuf, mine, tmp, a->recvcount, a->recvtype, a->op)
                       : rc;
}

static ol_status_t reduce(const pair_t *p, const ol_coll_args_t *a, void *tmp)
{
    if (p->me != a->root)
        return send_to_peer(p, a->sendbuf, a->sendcount, a->sendtype, OL_SEND_STANDARD);
    const void *mine = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    local_copy_t start = copy_of_mine(p, a->op, a->recvbuf, mine, a->recvcount);
    ol_request_t *in_flight;
    ol_status_t rc = post_recv(p, tmp, a->recvcount, a->recvtype, &in_flight);
    if (rc == OL_OK)
        rc = copy_then_wait(in_flight, a->recvcount, a->recvtype, &start);
    return rc == OL_OK ? combine(p, a->recvbuf, mine, tmp, a->recvcount, a->recvtype, a->op)
                       : rc;
}

/* reduce_scatter and reduce_scatter_block: rank i keeps block i. */
static ol_status_t reduce_scatter(const pair_t *p, const ol_coll_args_t *a, void *tmp)
{
    MPI_Count count[2] = {a->recvcount, a->recvcount};
    if (a->recvcounts) {
        count[0] = a->recvcounts[0];
        count[1] = a->recvcounts[1];
    }
    ol_datatype_t *dt = a->recvtype;
    const void *mine = ol_coll_at(a->sendbuf, p->me ? count[0] : 0, dt);
    const void *theirs = ol_coll_at(a->sendbuf, p->peer ? count[0] : 0, dt);
    local_copy_t start = copy_of_mine(p, a->op, a->recvbuf, mine, count[p->me]);
    ol_status_t rc = exchange(p, theirs, count[p->peer], tmp, count[p->me], dt, &start);
    return rc == OL_OK ? combine(p, a->recvbuf, mine, tmp, count[p->me], dt, a->op) : rc;
}

static ol_status_t allgather(const pair_t *p, const ol_coll_args_t *a)
{
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    void *my_block = ol_coll_at(a->recvbuf, p->me * n, dt);
    const void *mine = ol_coll_in_place(a) ? my_block : a->sendbuf;
    local_copy_t own = {my_block, mine, n};
    return exchange(p, mine, n, ol_coll_at(a->recvbuf, p->peer * n, dt), n, dt, &own);
}

static ol_status_t alltoall(const pair_t *p, const ol_coll_args_t *a)
{
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    local_copy_t own = {ol_coll_at(a->recvbuf, p->me * n, dt),
                        ol_coll_at(a->sendbuf, p->me * n, dt), n};
    return exchange(p, ol_coll_at(a->sendbuf, p->peer * n, dt), n,
                    ol_coll_at(a->recvbuf, p->peer * n, dt), n, dt, &own);
}

ol_status_t ol_coll_pair_run(const ol_coll_args_t *a)
{
    pair_t p = {.comm = a->comm, .me = a->comm->rank, .peer = 1 - a->comm->rank,
                .tag = ol_sched_next_tag(a->comm)};
    max_align_t scratch[PAIR_MAX_BYTES / sizeof(max_align_t)];
    /* the peer's vector, laid out like the user's (contiguous) buffer */
    void *tmp = a->recvtype ? ol_dt_buffer_for(scratch, a->recvtype) : NULL;
    switch (a->kind) {
    case OL_COLL_BARRIER:
        return exchange(&p, NULL, 0, NULL, 0, ol_dt_from_handle(MPI_BYTE), &no_copy);
    case OL_COLL_BCAST:
        return p.me == a->root
                   ? send_to_peer(&p, a->recvbuf, a->recvcount, a->recvtype, OL_SEND_STANDARD)
                   : recv_from_peer(&p, a->recvbuf, a->recvcount, a->recvtype);
    case OL_COLL_ALLREDUCE: return allreduce(&p, a, tmp);
    case OL_COLL_REDUCE: return reduce(&p, a, tmp);
    case OL_COLL_REDUCE_SCATTER:
    case OL_COLL_REDUCE_SCATTER_BLOCK: return reduce_scatter(&p, a, tmp);
    case OL_COLL_ALLGATHER: return allgather(&p, a);
    case OL_COLL_ALLTOALL: return alltoall(&p, a);
    default: return MPI_ERR_INTERN;
    }
}
