/* Allreduce through CUDA IPC, for the ranks of one host: every rank maps
 * every other rank's vector and reduces its own slice of the vector
 * straight out of all of them (one kernel reading p inputs), then copies
 * the other slices out of their owners' vectors. Per rank the device moves
 * p reads and one write of n/p elements, then p - 1 copies of n/p: no
 * staging, no host copy, no message carries data.
 *
 *   1. each rank's work vector holds its input (the receive buffer, or
 *      device scratch for a rank whose buffers are in host memory)
 *   2. allgather of the IPC handles of the work vectors (host memory), and
 *      one allreduce that agrees whether every rank exported and mapped
 *      them all; if one could not, every rank leaves (below). Exporting
 *      records an event after the work the program queued on the legacy
 *      default stream (an in-place vector may still be being written), and
 *      mapping makes our stream wait for each peer's event
 *   3. rank i: work_i[slice i] = work_0[slice i] op ... op work_{p-1}[slice i]
 *   4. barrier: every slice reduced
 *   5. rank i: work_i[slice j] = work_j[slice j] for every j != i; then the
 *      mappings are released (a peer's scratch is closed at once)
 *   6. barrier: nobody reads or maps work_i any more, the caller may reuse
 *      it and a rank with device scratch may free it
 *
 * When it runs (ol_coll_allreduce_ipc_applies): a blocking allreduce of a
 * predefined type and op that has a kernel, on an intracommunicator of at
 * most OL_ACCEL_REDUCE_MAX_INPUTS ranks of one host, vectors of at least
 * ALLREDUCE_DEVICE_IPC_BYTES, device memory on at least one rank for this
 * call (one small allreduce of a flag agrees on that, so a rank with host
 * buffers takes part through device scratch), ranks that all can use CUDA
 * (agreed once per communicator, and only after the flag: while no rank
 * has device memory the driver is asked nothing, so that a host-only
 * program never has the library load it), and not in reproducible
 * mode (REPRODUCIBLE: its kernel combines the ranks left to right, which
 * rounds differently from the tree that every other path then takes). Every
 * input of that decision is the same on every rank, so all ranks take the
 * same path.
 *
 * What only the driver knows is found out in step 2: it refuses legacy IPC
 * for pool (cudaMallocAsync), managed and cuMemCreate memory, and mapping
 * fails between GPUs without peer access or processes that see different
 * devices (CUDA_VISIBLE_DEVICES); and a rank whose reduction kernels do not
 * load (an old driver or GPU: ol_accel_kernels_usable) takes part as one
 * that could not share its vector, and then for good: the communicator
 * stops trying the IPC allreduce. A rank alone cannot fall back, since the
 * others would wait for it in the barriers or read a vector it never
 * shared; so the agreement of step 2 makes all ranks leave together, before
 * anyone read a peer or wrote anything the other algorithms need (the work
 * vector holds the input, which they read again from the send buffer), and
 * the caller runs a host-staged algorithm instead. */
#include "ol_accel.h"
#include "reduce_util.h"
#include "ol_log.h"
#include "ol_runtime.h"

#include <stdint.h>
#include <stdlib.h>

/* The communicator's CUDA-IPC readiness, agreed once: every member on this
 * host and able to use CUDA. */
static ol_status_t comm_ipc_ready(ol_comm_t *comm, bool *ready)
{
    if (comm->device_ipc_ready == 0) {
        int mine = ol_accel_usable() ? 1 : 0;
        for (int r = 0; r < comm->size && mine; r++)
            mine = ol_rt_same_host(ol_comm_world_rank(comm, r));
        ol_status_t rc = ol_coll_allreduce(MPI_IN_PLACE, &mine, 1, ol_dt_from_handle(MPI_INT),
                                           ol_op_from_handle(MPI_MIN), comm);
        if (rc != OL_OK)
            return rc;
        comm->device_ipc_ready = mine ? 1 : -1;
    }
    *ready = comm->device_ipc_ready > 0;
    return OL_OK;
}

static bool buffer_on_device(const void *buf)
{
    return buf != MPI_IN_PLACE && buf != NULL && ol_accel_is_device(buf);
}

ol_status_t ol_coll_allreduce_ipc_applies(const ol_coll_args_t *a, long long min_bytes,
                                          bool *applies)
{
    *applies = false;
    ol_comm_t *comm = a->comm;
    long long bytes = (long long)a->recvcount * (long long)a->recvtype->size;
    if (ol_coll_reproducible || ol_comm_is_inter(comm) || comm->size < 2 ||
        comm->size > OL_ACCEL_REDUCE_MAX_INPUTS || min_bytes < 0 || bytes < min_bytes ||
        !a->recvtype->predefined || !ol_accel_built() ||
        !ol_op_device_kernel(a->op, a->recvtype) || a->recvcount < comm->size)
        return OL_OK;
    if (comm->device_ipc_ready < 0) /* agreed before: never here */
        return OL_OK;
    /* Device memory first: while no rank has any, the driver is asked
     * nothing (a host-only program never loads it, DESIGN.md). */
    int device = buffer_on_device(a->sendbuf) || buffer_on_device(a->recvbuf);
    ol_status_t rc = ol_coll_allreduce(MPI_IN_PLACE, &device, 1, ol_dt_from_handle(MPI_INT),
                                       ol_op_from_handle(MPI_MAX), comm);
    if (rc != OL_OK || !device)
        return rc;
    bool ready;
    rc = comm_ipc_ready(comm, &ready);
    *applies = rc == OL_OK && ready;
    return rc;
}

/* Waits for a queued device operation, keeping UCX progressing. */
static ol_status_t wait_event(ol_accel_event_t *ev)
{
    ol_status_t err = OL_OK;
    while (!ol_accel_event_done(ev, &err) && err == OL_OK)
        ol_progress();
    ol_accel_event_free(ev);
    return err;
}

typedef struct {
    ol_comm_t *comm;
    int p, me;
    size_t elem;
    MPI_Count n;
    char *work;           /* this rank's vector on the device */
    char *scratch;        /* device scratch when the receive buffer is host memory */
    void *peers[OL_ACCEL_REDUCE_MAX_INPUTS];
    ol_accel_ipc_t shared[OL_ACCEL_REDUCE_MAX_INPUTS]; /* the peers' vectors */
    bool mapped[OL_ACCEL_REDUCE_MAX_INPUTS];           /* to release */
} ipc_run_t;

static size_t slice_start(const ipc_run_t *r, int i)
{
    return (size_t)(r->n * i / r->p) * r->elem;
}

static size_t slice_bytes(const ipc_run_t *r, int i)
{
    return slice_start(r, i + 1) - slice_start(r, i);
}

/* Step 1: the input into the work vector. */
static ol_status_t load_input(ipc_run_t *r, const ol_coll_args_t *a)
{
    size_t bytes = (size_t)r->n * r->elem;
    const void *input = a->sendbuf == MPI_IN_PLACE ? a->recvbuf : a->sendbuf;
    if (ol_accel_is_device(a->recvbuf)) {
        r->work = a->recvbuf;
    } else {
        r->work = r->scratch = ol_accel_device_alloc(bytes);
        if (!r->scratch)
            return MPI_ERR_NO_MEM;
    }
    return input == r->work ? OL_OK : ol_accel_copy(r->work, input, bytes);
}

/* What each rank contributes to the allgather of step 2. */
typedef struct {
    int32_t exported;     /* 0: `ipc` is meaningless, do not map it */
    int32_t pad;
    ol_accel_ipc_t ipc;
} shared_vector_t;

/* Step 2: everyone's work vector mapped here (our own as is). `ready` says
 * whether this rank has its input in place; a rank that is not, or cannot
 * export, still takes part in the allgather (with a zeroed entry marked
 * not exported), so that nobody waits for it or maps garbage. */
static ol_status_t map_peers(ipc_run_t *r, bool ready)
{
    shared_vector_t mine = {0}, all[OL_ACCEL_REDUCE_MAX_INPUTS]; /* p is at most that */
    ol_status_t rc = ready ? ol_accel_ipc_export(r->work, &mine.ipc) : MPI_ERR_OTHER;
    if (rc != OL_OK && ready)
        OL_INFO("coll", "CUDA IPC allreduce: %s", ol_error_detail_take());
    mine.exported = rc == OL_OK;
    ol_datatype_t *bytes = ol_dt_from_handle(MPI_BYTE);
    ol_status_t gathered = ol_coll_allgather(&mine, sizeof(mine), bytes, all, sizeof(mine),
                                             bytes, r->comm);
    rc = gathered != OL_OK ? gathered : mine.exported ? OL_OK : MPI_ERR_UNSUPPORTED_OPERATION;
    for (int i = 0; i < r->p && rc == OL_OK; i++) {
        if (i == r->me)
            continue;
        if (!all[i].exported)
            rc = MPI_ERR_UNSUPPORTED_OPERATION;
        else if ((rc = ol_accel_ipc_import(ol_comm_world_rank(r->comm, i), &all[i].ipc,
                                           &r->peers[i])) != OL_OK)
            OL_INFO("coll", "CUDA IPC allreduce: cannot map rank %d's vector: %s", i,
                    ol_error_detail_take());
        r->shared[i] = all[i].ipc;
        r->mapped[i] = rc == OL_OK;
    }
    r->peers[r->me] = r->work;
    return rc;
}

/* After our last read of the peers' vectors (our stream drained first, in
 * case a failure left a copy queued). */
static void release_peers(ipc_run_t *r)
{
    ol_accel_synchronize();
    for (int i = 0; i < r->p; i++)
        if (r->mapped[i])
            ol_accel_ipc_release(ol_comm_world_rank(r->comm, i), &r->shared[i]);
}

/* The agreement of step 2: true when every rank mapped every vector. A
 * rank without kernels says -1, which no later call would change: then
 * the communicator is marked not ready, so that it stops trying. */
static ol_status_t all_mapped(ipc_run_t *r, ol_status_t mine, bool kernels, bool *everyone)
{
    int ok = !kernels ? -1 : mine == OL_OK;
    ol_status_t rc = ol_coll_allreduce(MPI_IN_PLACE, &ok, 1, ol_dt_from_handle(MPI_INT),
                                       ol_op_from_handle(MPI_MIN), r->comm);
    *everyone = rc == OL_OK && ok > 0;
    if (rc == OL_OK && ok < 0) {
        OL_INFO("coll", "CUDA IPC allreduce: a rank cannot use the reduction kernels; "
                "this communicator no longer tries it");
        r->comm->device_ipc_ready = -1;
    }
    return rc;
}

/* Step 3: our slice, reduced from every rank's vector in rank order. */
static ol_status_t reduce_own_slice(ipc_run_t *r, const ol_coll_args_t *a)
{
    const void *ins[OL_ACCEL_REDUCE_MAX_INPUTS];
    size_t at = slice_start(r, r->me);
    for (int i = 0; i < r->p; i++)
        ins[i] = (const char *)r->peers[i] + at;
    ol_accel_event_t *ev;
    ol_status_t rc = ol_accel_reduce_many_async(a->op, a->recvtype, ins, r->p, r->work + at,
                                                slice_bytes(r, r->me) / r->elem, &ev);
    return rc == OL_OK ? wait_event(ev) : rc;
}

/* Step 5: the other slices, copied from their owners. */
static ol_status_t gather_slices(ipc_run_t *r)
{
    ol_accel_event_t *last = NULL;
    ol_status_t rc = OL_OK;
    for (int i = 0; i < r->p && rc == OL_OK; i++) {
        if (i == r->me || slice_bytes(r, i) == 0)
            continue;
        if (last)
            ol_accel_event_free(last);
        last = NULL;
        rc = ol_accel_copy_async(r->work + slice_start(r, i),
                                 (const char *)r->peers[i] + slice_start(r, i), slice_bytes(r, i),
                                 &last);
    }
    /* One stream: the last copy's event covers the earlier ones. */
    if (last)
        rc = rc == OL_OK ? wait_event(last) : (ol_accel_event_free(last), rc);
    return rc;
}

ol_status_t ol_coll_allreduce_ipc(const ol_coll_args_t *a, bool *taken)
{
    ipc_run_t r = {.comm = a->comm, .p = a->comm->size, .me = a->comm->rank,
                   .elem = a->recvtype->size, .n = a->recvcount};
    ol_status_t rc = load_input(&r, a);
    /* Asked once the input is on the device (which chose the context);
     * a rank that got no further is not held against the communicator. */
    bool kernels = rc != OL_OK || ol_accel_kernels_usable(r.work);
    bool everyone;
    ol_status_t agreed = all_mapped(&r, map_peers(&r, rc == OL_OK && kernels), kernels, &everyone);
    *taken = agreed != OL_OK || everyone;
    if (!*taken) {
        OL_INFO("coll", "CUDA IPC allreduce: not every rank could share or map the vectors; "
                "all ranks use another algorithm");
        release_peers(&r);
        /* A peer may have mapped our scratch: it is freed once all closed it. */
        ol_status_t b = ol_coll_barrier(r.comm);
        if (r.scratch)
            ol_accel_device_free(r.scratch);
        return b;
    }
    if (rc == OL_OK)
        rc = agreed;
    if (rc == OL_OK)
        rc = reduce_own_slice(&r, a);
    /* The barriers run whatever happened here, so no rank waits forever
     * for one that failed. */
    ol_status_t b = ol_coll_barrier(r.comm);
    if (rc == OL_OK)
        rc = b == OL_OK ? gather_slices(&r) : b;
    release_peers(&r);
    b = ol_coll_barrier(r.comm);
    if (rc == OL_OK)
        rc = b;
    if (rc == OL_OK && r.scratch)
        rc = ol_accel_copy(a->recvbuf, r.scratch, (size_t)r.n * r.elem);
    if (r.scratch)
        ol_accel_device_free(r.scratch);
    return rc;
}
