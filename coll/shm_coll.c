/* Blocking collectives through the communicator's shared-memory segment
 * (layout and waiting: shm.h, shm_segment.c), for communicators whose
 * members all run on this host and calls of at most COLL_SHM_MAX_BYTES per
 * rank.
 *
 * Every rank packs what it contributes into its own slot (the datatype
 * engine's pack, through host memory for device buffers), announces it by
 * setting its arrival word to the call's number, and unpacks what it needs
 * out of the others' slots once their words say it is there: one copy in,
 * one copy out, and cache lines instead of messages. Reductions combine
 * the contributions in rank order, c0 op (c1 op (... op cp-1)), so that
 * non-commutative ops are right and every rank gets the same bits: small
 * vectors each rank (reduce: the root) alone; from COLL_SHM_SLICE_BYTES on,
 * each rank its slice of the vector into the shared result slot, which
 * every rank (reduce: the root) then copies out.
 *
 * Measured on the 2-core development machine (shared with other jobs, load
 * 5-14), osu benchmarks, medians of 5 alternating runs (contrib/compare.sh),
 * us per call, ompi-lite with this path (4 slots per rank, 64 KiB slots)
 * against Open MPI 4.1:
 *
 *   2 ranks     allreduce        bcast          reduce
 *   bytes      ol     ompi     ol    ompi     ol    ompi
 *      8      0.21    0.18    0.13   0.08    0.16   0.11
 *    512      0.32    0.41    0.14   0.31    0.21   0.30
 *   4096      1.03    1.16    0.37   7.13    0.88  29.80
 *  16384      3.49    7.56    1.98   2.98    3.07   3.35
 *  32768      6.83   10.80    3.88   4.09    6.12   4.72
 *  65536     12.83   97.84    7.84   6.22   55.23   7.44
 *
 * Past 32 KiB the rooted collectives lose to messages (a root's one copy
 * in then serves one reader at a time), hence COLL_SHM_MAX_BYTES = 32 KiB.
 * On 4 ranks (2 cores, oversubscribed) allreduce and barrier run at
 * 0.3-0.6 of Open MPI's times; back-to-back bcast and reduce, where Open
 * MPI's root runs far ahead, took 2.2-2.9 us at 8 B against its 0.4-0.5
 * with 4 slots per rank, 0.7-1.0 with 16 (8: 1.3-1.6), hence
 * OL_SHM_DEPTH = 16. Allreduce on 4 ranks, sliced or not (us, 3 runs):
 *
 *   bytes       1 KiB   4 KiB   8 KiB   16 KiB   32 KiB
 *   whole        19.4    25.8    37.1     72.2    125.4
 *   sliced       23.0    35.6    39.3     52.6     66.9
 *
 * hence COLL_SHM_SLICE_BYTES = 16 KiB. On 2 ranks, each on its own core,
 * slicing loses below it: a slice reads as many of the peer's lines as the
 * whole vector (half its contribution, then half the result) and waits once
 * more. osu_allreduce, medians of 7 alternating runs, us:
 *
 *   bytes       1 KiB   2 KiB   4 KiB   8 KiB
 *   whole        0.96    1.37    1.46    1.97
 *   sliced       0.96    1.68    1.95    2.43
 *
 * and osu_reduce (the segment's 4-8 KiB) 0.72/1.00 against 1.67/2.16. A
 * former 2 KiB threshold for 2 ranks had measured the other way (sliced
 * 0.61-1.84 us against 0.73-2.44 at 2-8 KiB), before the reduction loops
 * and the messages got faster. */
#include "shm.h"
#include "coll_select.h"
#include "coll_util.h"
#include "ol_accel.h"
#include "ol_runtime.h"
#include "reduce_util.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const ol_coll_args_t *a;
    ol_coll_shm_t *shm;
    uint32_t s; /* the call's number */
    int me, p;
} call_t;

static MPI_Count bytes_of(MPI_Count count, const ol_datatype_t *dt)
{
    return count * (MPI_Count)dt->size;
}

/* Bytes the largest contribution of the call puts into a slot, from what
 * every rank knows alike (the type signatures match); -1 for the kinds the
 * path does not take (the v and w forms: a rank does not know the others'
 * counts; scan, exscan, neighbourhood collectives). */
static MPI_Count slot_bytes_needed(const ol_coll_args_t *a)
{
    MPI_Count p = a->comm->size;
    bool root = a->comm->rank == a->root;
    bool in_place = ol_coll_in_place(a);
    switch (a->kind) {
    case OL_COLL_BARRIER: return 0;
    case OL_COLL_BCAST:
    case OL_COLL_REDUCE:
    case OL_COLL_ALLREDUCE: return bytes_of(a->recvcount, a->recvtype);
    case OL_COLL_GATHER:
        return root ? bytes_of(a->recvcount, a->recvtype) : bytes_of(a->sendcount, a->sendtype);
    case OL_COLL_SCATTER:
        return p * (root ? bytes_of(a->sendcount, a->sendtype)
                         : bytes_of(a->recvcount, a->recvtype));
    case OL_COLL_ALLGATHER:
        return in_place ? bytes_of(a->recvcount, a->recvtype) : bytes_of(a->sendcount, a->sendtype);
    case OL_COLL_ALLTOALL:
        return p * (in_place ? bytes_of(a->recvcount, a->recvtype)
                             : bytes_of(a->sendcount, a->sendtype));
    case OL_COLL_REDUCE_SCATTER_BLOCK: return p * bytes_of(a->recvcount, a->recvtype);
    default: return -1;
    }
}

/* On two processes the root of a small bcast or reduce sends its one
 * message and returns, running ahead of its peer, and the segment's
 * bookkeeping loses to that: 8 B back to back (osu), bcast 0.08 us through
 * pair.c against 0.25 here, reduce 0.09 against 0.15 on a quiet machine.
 * From 4 KiB a bcast is faster here: its peer only reads the root's slot,
 * whereas it clears the lines of each ring record of up to 8 KiB
 * (shm_ring.c), and the root's next records then wait for every line to
 * come back. osu_bcast, medians of 5 alternating runs, us, here against
 * pair.c (the ring up to 8 KiB, CMA beyond): 4/8/16/32 KiB 0.40-0.43/
 * 0.54-0.73/0.78-0.98/1.06-1.16 against 0.42-0.82/1.91-1.98/1.18-1.27/
 * 1.46-1.94; 1-2 KiB even. A reduce gains only where the ring clears
 * its records, 4-8 KiB: 1.64/2.07 us here against 1.75/3.43 at 4/8 KiB,
 * but 2.62/3.93 against 1.28/2.48 at 16/32 KiB (medians of 7 alternating
 * runs). On a 2-core Intel Xeon (2026-12-06, three alternating pairs of
 * 3 runs, ompi-lite alone) a 4 KiB bcast went the other way, 0.36-0.43 us
 * through pair.c (one ring record) against 0.55-0.59 here, while 8 KiB,
 * by address while pt2pt sent from 4 KiB so, stayed here (0.90-0.95
 * against 1.37-2.01). Since 8 KiB messages are one ring record again
 * (2026-12-07, 2-core AMD EPYC VM, nine alternating pairs, ompi-lite
 * alone) an 8 KiB bcast took 0.34-0.56 us through pair.c against 0.87-0.95
 * here (0.83-1.04 against 3.66-3.70 in the VM's slow phases): hence
 * messages up to 8 KiB. An allgather or alltoall
 * exchange of
 * blocks of 2 KiB or more is faster as one message each way too (the
 * receiver copies once, out of the FIFO, instead of the segment's copy in
 * and copy out): 4/8/16/32 KiB 0.64/0.94/1.8/3.5 us against
 * 0.84/1.6/2.9/5.4 (allgather, quiet machine; alltoall alike), 1 KiB
 * even, below it the segment wins (0.19 against 0.24 us at 8 B). Since
 * the reduction loops are vectorised, one message each way and a local
 * reduction win from 16 KiB of vector for allreduce (8/16/32 KiB
 * 2.23-2.33/2.23-2.31/3.78-3.98 us against 1.97/2.76/4.48 here, whole,
 * medians of 5-7 alternating runs; 2/4 KiB here 1.35-1.37/1.46-1.50
 * against 1.09-1.13/1.61-1.67) and at 32 KiB for reduce_scatter_block
 * (2.60 against 3.46 us; 8/16 KiB 0.87/1.75 against 0.80/1.61, 9 runs).
 * On 4 ranks the segment wins at every size up to its limit (bcast 0.9-4
 * us against 0.7-50, reduce 0.8-63 against 2.3-180, at load 5). */
static bool messages_win_on_two(const ol_coll_args_t *a, MPI_Count slot_bytes)
{
    if (a->comm->size != 2)
        return false;
    switch (a->kind) {
    case OL_COLL_BCAST: return slot_bytes <= 8192;
    case OL_COLL_REDUCE: return slot_bytes < 4096 || slot_bytes > 8192;
    case OL_COLL_ALLGATHER: return slot_bytes >= 2048;
    case OL_COLL_ALLTOALL: return slot_bytes / 2 >= 2048; /* the slot holds both blocks */
    case OL_COLL_ALLREDUCE: return slot_bytes >= 16384;
    case OL_COLL_REDUCE_SCATTER_BLOCK: return slot_bytes >= 32768; /* the whole vector */
    default: return false;
    }
}

/* A bcast or reduce longer than a slot, on 3 or more processes, goes
 * through the segment slot by slot, one call number per piece: the root
 * of a bcast fills the next pieces while the others copy out the first (it
 * may run OL_SHM_DEPTH - 1 pieces ahead), and each piece of a reduce is an
 * ordinary reduce of a slot's worth of elements. Through messages a bcast
 * costs each receiver a copy by address out of the root's buffer, and a
 * reduce a binomial tree of copies and reductions. osu_bcast / osu_reduce,
 * us, 2-core AMD EPYC VM (2026-12-07), 3 runs at 4 ranks (2 at 8), pieces
 * off / on against Open MPI in the same run:
 *
 *   4 ranks   bcast: off   on        ompi      reduce: off   on        ompi
 *   64 KiB    20-25        12-12     18-25     31-43         19-19     24-34
 *   256 KiB   69-77        38-41     53-85     108-120       72-76     86-91
 *   1 MiB     175-205      160-166   168-312   379-500       301-479   333-337
 *   8 ranks
 *   64 KiB    53-54        26-40     52-58     116-146       55-132    87-156
 *   1 MiB     445-523      314-353   400-800   1211-1735     707-1948  2457-2525
 *
 * (a third 4-rank run in one of the VM's slow phases took 2-3 times as
 * long for everyone), hence COLL_SHM_PIECES_BYTES = 1 MiB. Beside two
 * busy processes (4 ranks, three alternating runs) a reduce in pieces lost
 * from 256 KiB (256 KiB / 1 MiB 1350-1658 / 2954-6294 us against
 * 803-918 / 617-2101 through messages, Open MPI 277-318 / 1152-1768; 64
 * KiB 338-426 against 486-569): each piece waits twice for every rank.
 * Since a reduce's root combines alone where ranks share cores
 * (root_combines_alone), so that the others no longer wait for each piece,
 * 512 KiB in pieces wins both ways: three series of osu_reduce, 4 ranks,
 * ratio to Open MPI, pieces up to 256 KiB / 1 MiB: quiet 512 KiB
 * 0.45-0.53 / 0.28-0.31, beside two busy processes 0.39-0.54 / 0.36-0.54;
 * but 1 MiB in pieces went from a loss (1.34-1.46) to a win (0.79-0.83)
 * quiet and from a tie (0.93-1.56) to a loss (1.19-2.07) beside busy
 * processes. Hence COLL_SHM_REDUCE_PIECES_BYTES = 512 KiB. Two processes
 * keep the messages (messages_win_on_two), one copy instead of two. */
static bool in_pieces(const ol_coll_args_t *a, MPI_Count bytes)
{
    if (a->comm->size < 3 || bytes <= ol_coll_shm_max_bytes)
        return false;
    /* a bcast is cut by bytes (the ranks' datatypes may differ), a reduce
     * by elements (its datatype is the same everywhere) */
    if (a->kind == OL_COLL_BCAST)
        return bytes <= ol_coll_shm_pieces_bytes;
    return a->kind == OL_COLL_REDUCE && bytes <= ol_coll_shm_reduce_pieces_bytes &&
           a->recvtype->size <= (size_t)ol_coll_shm_max_bytes;
}

const char *ol_coll_shm_why(const ol_coll_args_t *a)
{
    if (!in_pieces(a, slot_bytes_needed(a)))
        return ol_coll_why("blocking, all %d processes on this host, at most "
                           "COLL_SHM_MAX_BYTES=%d per process",
                           a->comm->size, ol_coll_shm_max_bytes);
    bool bcast = a->kind == OL_COLL_BCAST;
    return ol_coll_why("blocking, all %d processes on this host, in pieces of "
                       "COLL_SHM_MAX_BYTES=%d, up to %s=%d",
                       a->comm->size, ol_coll_shm_max_bytes,
                       bcast ? "COLL_SHM_PIECES_BYTES" : "COLL_SHM_REDUCE_PIECES_BYTES",
                       bcast ? ol_coll_shm_pieces_bytes : ol_coll_shm_reduce_pieces_bytes);
}

ol_status_t ol_coll_shm_applies(const ol_coll_args_t *a, bool *applies)
{
    *applies = false;
    if (!ol_coll_shm_enabled || ol_comm_is_inter(a->comm) || a->comm->size < 2)
        return OL_OK;
    /* the tests force every algorithm, and reproducible mode promises one
     * reduction order for all of them: let them run what they ask for */
    const char *forced = *ol_coll_tables[a->kind]->forced;
    if ((forced && *forced) || ol_coll_reproducible)
        return OL_OK;
    MPI_Count bytes = slot_bytes_needed(a);
    if (bytes < 0 || messages_win_on_two(a, bytes))
        return OL_OK;
    if (bytes > ol_coll_shm_max_bytes && !in_pieces(a, bytes))
        return OL_OK;
    ol_coll_shm_t *shm;
    ol_status_t rc = ol_shm_segment(a->comm, &shm);
    *applies = shm != NULL;
    return rc;
}

/* ---- steps every collective uses ------------------------------------------ */

static void arrive(const call_t *c)
{
    ol_shm_arrive(c->shm, c->me, c->s);
}

static void wait_data(const call_t *c, int rank)
{
    ol_shm_wait_data(c->shm, rank, c->s);
}

static char *slot(const call_t *c, int rank)
{
    return ol_shm_slot(c->shm, rank, c->s);
}

/* Packs (buf, count, dt) into this rank's slot at offset bytes and
 * announces it; announced even when the packing failed (a device error),
 * so that no peer waits for ever. */
static ol_status_t contribute(const call_t *c, const void *buf, MPI_Count count,
                              ol_datatype_t *dt)
{
    ol_shm_wait_slots_free(c->shm, c->s);
    ol_status_t rc = ol_pt2pt_pack(buf, count, dt, slot(c, c->me));
    *ol_shm_slot_length(c->shm, c->me, c->s) = (uint64_t)bytes_of(count, dt);
    ol_shm_arrive_with_data(c->shm, c->me, c->s);
    return rc;
}

static ol_status_t first_error(ol_status_t a, ol_status_t b)
{
    return a != OL_OK ? a : b;
}

/* rc, else whether rank q's data of this call is count elements of dt long,
 * as this rank's arguments say (ol_coll_check_length). Reading a slot
 * stays inside it either way: this rank's own length passed the path's
 * limit. */
static ol_status_t check_length(const call_t *c, ol_status_t rc, int q, MPI_Count count,
                                const ol_datatype_t *dt)
{
    MPI_Count got = (MPI_Count)*ol_shm_slot_length(c->shm, q, c->s);
    return first_error(rc, ol_coll_check_length(got, q, count, dt));
}

/* The same for the contribution of every rank to a reduction. */
static ol_status_t check_lengths(const call_t *c, ol_status_t rc, MPI_Count count)
{
    for (int q = 0; q < c->p && rc == OL_OK; q++)
        rc = check_length(c, rc, q, count, c->a->recvtype);
    return rc;
}

/* ---- barrier, bcast, gather, scatter, allgather, alltoall --------------- */

static ol_status_t barrier(const call_t *c)
{
    arrive(c);
    ol_shm_wait_all_arrived(c->shm, c->s);
    return OL_OK;
}

static ol_status_t bcast(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    if (c->me == a->root)
        return contribute(c, a->recvbuf, a->recvcount, a->recvtype);
    arrive(c);
    wait_data(c, a->root);
    return check_length(c, ol_pt2pt_unpack(slot(c, a->root), a->recvbuf, a->recvcount,
                                           a->recvtype),
                        a->root, a->recvcount, a->recvtype);
}

static ol_status_t gather(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    bool root = c->me == a->root, in_place = ol_coll_in_place(a);
    ol_status_t rc = OL_OK;
    if (root && in_place)
        arrive(c);
    else
        rc = contribute(c, a->sendbuf, a->sendcount, a->sendtype);
    if (!root)
        return rc;
    for (int q = 0; q < c->p; q++) {
        if (q == c->me && in_place)
            continue;
        wait_data(c, q); /* copies out of the early ones while others still come */
        rc = first_error(rc, ol_pt2pt_unpack(slot(c, q),
                                             ol_coll_at(a->recvbuf, q * a->recvcount, a->recvtype),
                                             a->recvcount, a->recvtype));
        rc = check_length(c, rc, q, a->recvcount, a->recvtype);
    }
    return rc;
}

static ol_status_t scatter(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    ol_status_t rc = OL_OK;
    if (c->me == a->root) {
        rc = contribute(c, a->sendbuf, c->p * a->sendcount, a->sendtype);
        if (a->recvbuf == MPI_IN_PLACE) /* the root's block stays where it is */
            return rc;
    } else {
        arrive(c);
        wait_data(c, a->root);
    }
    MPI_Count block = bytes_of(a->recvcount, a->recvtype);
    rc = first_error(rc, ol_pt2pt_unpack(slot(c, a->root) + c->me * block, a->recvbuf,
                                         a->recvcount, a->recvtype));
    return check_length(c, rc, a->root, c->p * a->recvcount, a->recvtype);
}

/* Each rank's data is copied out as soon as it is there, this rank's own
 * first, while the others' still come, not after waiting for them all:
 * osu_allgather and osu_alltoall 4 B-1 KiB, medians of 5-7 alternating
 * runs, 0.82-1.00 of the time on 2 ranks (0.92-1.00 in a quieter hour),
 * 0.95-1.00 on 4 ranks on 2 cores. */
static ol_status_t allgather(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    MPI_Count n = a->recvcount;
    bool in_place = ol_coll_in_place(a);
    ol_status_t rc = in_place ? contribute(c, ol_coll_at(a->recvbuf, c->me * n, a->recvtype), n,
                                           a->recvtype)
                              : contribute(c, a->sendbuf, a->sendcount, a->sendtype);
    for (int i = 0; i < c->p; i++) {
        int q = (c->me + i) % c->p;
        wait_data(c, q);
        if (q != c->me || !in_place)
            rc = first_error(rc, ol_pt2pt_unpack(slot(c, q),
                                                 ol_coll_at(a->recvbuf, q * n, a->recvtype), n,
                                                 a->recvtype));
        rc = check_length(c, rc, q, n, a->recvtype);
    }
    return rc;
}

/* In place works too: this rank's data is packed before anything is
 * unpacked. As in allgather, each block is copied out as soon as it is
 * there, this rank's own first. */
static ol_status_t alltoall(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    MPI_Count n = a->recvcount;
    ol_status_t rc = ol_coll_in_place(a)
                         ? contribute(c, a->recvbuf, c->p * n, a->recvtype)
                         : contribute(c, a->sendbuf, c->p * a->sendcount, a->sendtype);
    MPI_Count block = bytes_of(n, a->recvtype);
    for (int i = 0; i < c->p; i++) {
        int q = (c->me + i) % c->p;
        wait_data(c, q);
        rc = first_error(rc, ol_pt2pt_unpack(slot(c, q) + c->me * block,
                                             ol_coll_at(a->recvbuf, q * n, a->recvtype), n,
                                             a->recvtype));
        rc = check_length(c, rc, q, c->p * n, a->recvtype);
    }
    return rc;
}

/* ---- reductions ---------------------------------------------------------- */

/* n elements typed like dt in host scratch (*mem to free), or NULL. */
static void *typed_scratch(const ol_datatype_t *dt, MPI_Count n, void **mem)
{
    *mem = malloc(ol_dt_scratch_span(dt, n));
    return *mem ? ol_dt_buffer_for(*mem, dt) : NULL;
}

/* Elements [first, first + n) of rank q's packed contribution as a buffer
 * typed like dt: the slot itself when dt is contiguous (packed data is then
 * its layout), else unpacked into view. */
static const void *contribution(const call_t *c, int q, MPI_Count first, MPI_Count n, void *view)
{
    const ol_datatype_t *dt = c->a->recvtype;
    const char *packed = slot(c, q) + first * (MPI_Count)dt->size;
    if (dt->contiguous)
        return ol_dt_buffer_for((void *)packed, dt);
    ol_dt_unpack_all(dt, view, n, packed);
    return view;
}

/* acc (host, typed like dt) = elements [first, first + n) of all
 * contributions, combined in rank order (ol_op_apply: inout = in op inout,
 * so from the last rank down). */
static ol_status_t combine(const call_t *c, MPI_Count first, MPI_Count n, void *acc)
{
    ol_datatype_t *dt = c->a->recvtype;
    void *view_mem = NULL, *view = NULL;
    if (!dt->contiguous && !(view = typed_scratch(dt, n, &view_mem)))
        return MPI_ERR_NO_MEM;
    ol_dt_unpack_all(dt, acc, n, slot(c, c->p - 1) + first * (MPI_Count)dt->size);
    ol_status_t rc = OL_OK;
    for (int q = c->p - 2; q >= 0 && rc == OL_OK; q--)
        rc = ol_op_apply(c->a->op, contribution(c, q, first, n, view), acc, n, dt);
    free(view_mem);
    return rc;
}

/* dst (the user's, typed like dt, host or device) = elements [first,
 * first + n) of the reduction. */
static ol_status_t combine_into_user(const call_t *c, MPI_Count first, MPI_Count n, void *dst)
{
    ol_datatype_t *dt = c->a->recvtype;
    if (n == 0)
        return OL_OK;
    if (!ol_accel_is_device(ol_dt_data_at(dst, dt)))
        return combine(c, first, n, dst);
    void *mem, *acc = typed_scratch(dt, n, &mem);
    ol_status_t rc = acc ? combine(c, first, n, acc) : MPI_ERR_NO_MEM;
    if (rc == OL_OK)
        rc = ol_coll_copy(dst, acc, n, dt);
    free(mem);
    return rc;
}

/* This rank's slice of count elements. */
static void my_slice(const call_t *c, MPI_Count count, MPI_Count *first, MPI_Count *n)
{
    *first = count * c->me / c->p;
    *n = count * (c->me + 1) / c->p - *first;
}

/* Reduces this rank's slice into the shared result slot (packed) and
 * announces it; announced even on an error. */
static ol_status_t reduce_my_slice(const call_t *c, MPI_Count count)
{
    ol_datatype_t *dt = c->a->recvtype;
    MPI_Count first, n;
    my_slice(c, count, &first, &n);
    char *packed = ol_shm_result(c->shm, c->s) + first * (MPI_Count)dt->size;
    ol_status_t rc = OL_OK;
    if (n > 0 && dt->contiguous) {
        rc = combine(c, first, n, ol_dt_buffer_for(packed, dt));
    } else if (n > 0) {
        void *mem, *acc = typed_scratch(dt, n, &mem);
        rc = acc ? combine(c, first, n, acc) : MPI_ERR_NO_MEM;
        if (rc == OL_OK)
            ol_dt_pack_all(dt, acc, n, packed);
        free(mem);
    }
    ol_shm_publish(c->shm, &ol_shm_control(c->shm, c->me)->reduced, c->s);
    return rc;
}

/* Copies every slice of the result into the user's buffer as its owner
 * announces it. */
static ol_status_t copy_out_result(const call_t *c, MPI_Count count, void *dst)
{
    ol_datatype_t *dt = c->a->recvtype;
    ol_status_t rc = OL_OK;
    for (int q = 0; q < c->p; q++) {
        MPI_Count first = count * q / c->p, n = count * (q + 1) / c->p - first;
        ol_shm_wait(c->shm, &ol_shm_control(c->shm, q)->reduced, c->s);
        rc = first_error(rc, ol_pt2pt_unpack(ol_shm_result(c->shm, c->s) + first * (MPI_Count)dt->size,
                                             ol_coll_at(dst, first, dt), n, dt));
    }
    return rc;
}

static bool sliced(const call_t *c, MPI_Count count)
{
    return bytes_of(count, c->a->recvtype) >= ol_coll_shm_slice_bytes && count >= c->p;
}

static ol_status_t allreduce(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    MPI_Count count = a->recvcount;
    const void *mine = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    ol_status_t rc = contribute(c, mine, count, a->recvtype);
    ol_shm_wait_all_data(c->shm, c->s);
    rc = check_lengths(c, rc, count);
    if (!sliced(c, count))
        return first_error(rc, combine_into_user(c, 0, count, a->recvbuf));
    rc = first_error(rc, reduce_my_slice(c, count));
    return first_error(rc, copy_out_result(c, count, a->recvbuf));
}

/* Where the ranks share cores (more of them on this host than cores), a
 * reduce's root combines every contribution alone (up to
 * COLL_SHM_ROOT_ALONE_BYTES from the others, no limit by default): the
 * others then contribute and go on to their next call, where a slice of
 * the work each costs every rank a wait for all the others, which on a
 * shared core is a turn of the scheduler, and beside another job's busy
 * processes a time slice. osu_reduce on the 2-core machine, us, sliced ->
 * root alone (alternating runs): 4 ranks 16 KiB 7.7-13.5 -> 3.8-4.7, 32
 * KiB 9.6-16.5 -> 7.7-10.3, 256 KiB (32 KiB pieces) 74-90 -> 63-76, and
 * beside two busy processes 16 KiB 188-225 -> 35-37, 256 KiB 761-1471 ->
 * 421-478; 3 ranks 16-256 KiB in half the time; 8 ranks 16 KiB 23 ->
 * 14-16, 32 KiB the same within the noise, 64 / 256 KiB 52 / 177 -> 73 /
 * 295 in one pair on cores that share a cache (the root combines 7
 * vectors where slices share them), but beside two busy processes 32 / 64
 * / 256 KiB 757-897 / 1618-1703 / 6724-7037 -> 114-125 / 259-281 /
 * 1010-1179: hence no limit.
 * With a core per rank, waits are polls and slices share the work: as
 * before. */
static bool root_combines_alone(const call_t *c, MPI_Count count)
{
    if (ol_rt_core_per_local_rank())
        return false;
    MPI_Count from_others = (MPI_Count)(c->p - 1) * bytes_of(count, c->a->recvtype);
    return ol_coll_shm_root_alone_bytes < 0 || from_others <= ol_coll_shm_root_alone_bytes;
}

static ol_status_t reduce(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    MPI_Count count = a->recvcount;
    bool root = c->me == a->root;
    const void *mine = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    ol_status_t rc = contribute(c, mine, count, a->recvtype);
    if (!sliced(c, count) || root_combines_alone(c, count)) {
        if (!root)
            return rc;
        ol_shm_wait_all_data(c->shm, c->s);
        rc = check_lengths(c, rc, count);
        return first_error(rc, combine_into_user(c, 0, count, a->recvbuf));
    }
    ol_shm_wait_all_data(c->shm, c->s);
    rc = check_lengths(c, rc, count);
    rc = first_error(rc, reduce_my_slice(c, count));
    return root ? first_error(rc, copy_out_result(c, count, a->recvbuf)) : rc;
}

/* Rank i reduces block i straight into its buffer: the slices are the blocks. */
static ol_status_t reduce_scatter_block(const call_t *c)
{
    const ol_coll_args_t *a = c->a;
    MPI_Count n = a->recvcount;
    const void *mine = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    ol_status_t rc = contribute(c, mine, c->p * n, a->recvtype);
    ol_shm_wait_all_data(c->shm, c->s);
    rc = check_lengths(c, rc, c->p * n);
    return first_error(rc, combine_into_user(c, c->me * n, n, a->recvbuf));
}

/* ---- bcast and reduce longer than a slot ---------------------------------- */

/* A slot header's length with this bit set: the root could not pack its
 * data, the piece carries none. */
#define PIECE_WITHOUT_DATA (1ull << 63)

static MPI_Count min_count(MPI_Count a, MPI_Count b)
{
    return a < b ? a : b;
}

/* The root's side of a broadcast in pieces: piece k of its packed stream
 * of total bytes into its slot of call s + k, with the total in every
 * header, so that each reader walks the root's pieces even where its own
 * count differs. A NULL stream sends the pieces marked empty. */
static void put_pieces(call_t *c, const char *stream, MPI_Count total)
{
    MPI_Count piece = ol_coll_shm_max_bytes;
    for (MPI_Count off = 0; off < total; off += piece) {
        if (off > 0)
            c->s = ol_shm_next_call(c->shm);
        ol_shm_wait_slots_free(c->shm, c->s);
        if (stream != NULL)
            memcpy(slot(c, c->me), stream + off, (size_t)min_count(piece, total - off));
        uint64_t header = (uint64_t)total | (stream != NULL ? 0 : PIECE_WITHOUT_DATA);
        *ol_shm_slot_length(c->shm, c->me, c->s) = header;
        ol_shm_arrive_with_data(c->shm, c->me, c->s);
    }
}

/* A reader's side: the root's pieces into stream (mine bytes long; NULL:
 * taken and dropped), as many as the root's total says; *total = it. */
static ol_status_t take_pieces(call_t *c, int root, char *stream, MPI_Count mine, MPI_Count *total)
{
    MPI_Count piece = ol_coll_shm_max_bytes;
    ol_status_t rc = OL_OK;
    *total = 0;
    for (MPI_Count off = 0; off == 0 || off < *total; off += piece) {
        if (off > 0)
            c->s = ol_shm_next_call(c->shm);
        arrive(c);
        wait_data(c, root);
        uint64_t header = *ol_shm_slot_length(c->shm, root, c->s);
        *total = (MPI_Count)(header & ~PIECE_WITHOUT_DATA);
        if (header & PIECE_WITHOUT_DATA) {
            if (rc == OL_OK)
                ol_error_detail("the root of a broadcast (rank %d) could not pack its data", root);
            rc = first_error(rc, MPI_ERR_OTHER);
        } else if (stream != NULL && off < mine) {
            MPI_Count end = min_count(*total, mine);
            memcpy(stream + off, slot(c, root), (size_t)min_count(piece, end - off));
        }
    }
    return rc;
}

/* A broadcast longer than a slot, cut by bytes (the ranks' datatypes may
 * differ where their signatures match): each rank's data as one packed
 * stream, its own memory where that is contiguous host memory, else a
 * host copy packed before (the root) or unpacked after (the others). */
static ol_status_t bcast_in_pieces(call_t *c)
{
    const ol_coll_args_t *a = c->a;
    ol_datatype_t *dt = a->recvtype;
    MPI_Count bytes = bytes_of(a->recvcount, dt);
    bool root = c->me == a->root;
    bool direct = dt->contiguous && !ol_accel_is_device(ol_dt_data_at(a->recvbuf, dt));
    char *stream = direct ? ol_dt_data_at(a->recvbuf, dt) : malloc((size_t)bytes);
    ol_status_t rc = stream != NULL ? OL_OK : MPI_ERR_NO_MEM;
    if (root) {
        if (!direct && stream != NULL)
            rc = ol_pt2pt_pack(a->recvbuf, a->recvcount, dt, stream);
        put_pieces(c, rc == OL_OK ? stream : NULL, bytes);
    } else {
        MPI_Count total;
        rc = first_error(rc, take_pieces(c, a->root, stream, bytes, &total));
        rc = first_error(rc, ol_coll_check_length(total, a->root, a->recvcount, dt));
        if (!direct && rc == OL_OK)
            rc = ol_pt2pt_unpack(stream, a->recvbuf, a->recvcount, dt);
    }
    if (!direct)
        free(stream);
    return rc;
}

/* A reduce longer than a slot: the ordinary reduce on each slot-sized run
 * of elements in turn, each a call of its own (every rank passes the same
 * count and datatype, so all cut alike). */
static ol_status_t reduce_in_pieces(call_t *c)
{
    const ol_coll_args_t *a = c->a;
    const ol_datatype_t *dt = a->recvtype;
    MPI_Count per = ol_coll_shm_max_bytes / (MPI_Count)dt->size;
    bool in_place = ol_coll_in_place(a);
    ol_coll_args_t piece = *a;
    c->a = &piece;
    ol_status_t rc = OL_OK;
    for (MPI_Count first = 0; first < a->recvcount; first += per) {
        piece.recvcount = min_count(per, a->recvcount - first);
        piece.recvbuf = ol_coll_at(a->recvbuf, first, dt);
        if (!in_place)
            piece.sendbuf = ol_coll_at(a->sendbuf, first, dt);
        if (first > 0)
            c->s = ol_shm_next_call(c->shm);
        rc = first_error(rc, reduce(c));
    }
    return rc;
}

ol_status_t ol_coll_shm_run(const ol_coll_args_t *a)
{
    ol_sched_next_tag(a->comm); /* every blocking call takes a number, whichever way it goes */
    call_t c = {.a = a, .shm = a->comm->coll_shm, .me = a->comm->rank, .p = a->comm->size};
    c.s = ol_shm_next_call(c.shm);
    if (in_pieces(a, slot_bytes_needed(a)))
        return a->kind == OL_COLL_BCAST ? bcast_in_pieces(&c) : reduce_in_pieces(&c);
    switch (a->kind) {
    case OL_COLL_BARRIER: return barrier(&c);
    case OL_COLL_BCAST: return bcast(&c);
    case OL_COLL_GATHER: return gather(&c);
    case OL_COLL_SCATTER: return scatter(&c);
    case OL_COLL_ALLGATHER: return allgather(&c);
    case OL_COLL_ALLTOALL: return alltoall(&c);
    case OL_COLL_ALLREDUCE: return allreduce(&c);
    case OL_COLL_REDUCE: return reduce(&c);
    case OL_COLL_REDUCE_SCATTER_BLOCK: return reduce_scatter_block(&c);
    default: return MPI_ERR_INTERN;
    }
}
