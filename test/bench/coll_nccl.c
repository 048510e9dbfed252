/* coll_perf_nccl's library: NCCL's collectives on the device buffers that
 * coll_perf.c allocates (see coll_perf.h), the yardstick for ompi-lite's
 * device collectives. One rank per process and per GPU; the communicator is
 * bootstrapped over MPI (rank 0's ncclGetUniqueId, broadcast), and MPI
 * otherwise only times and checks. Calls are queued on a non-blocking
 * stream of this program's own, as nccl-tests does, and waited for with it. */
#include <stdio.h>

#include <mpi.h>
#include <nccl.h>

#include "bench.h"
#include "coll_perf.h"
#include "devmem.h"

const char coll_lib_program[] = "coll_perf_nccl";
const int coll_lib_device_only = 1;

static ncclComm_t comm;
static cudaStream_t stream;

/* Ends the job on an NCCL error: nothing is left to measure. */
static void check_nccl(ncclResult_t r, const char *call)
{
    if (r == ncclSuccess)
        return;
    fprintf(stderr, "%s: rank %d: %s failed: %s (%s)\n", coll_lib_program, bench_rank, call,
            ncclGetErrorString(r), ncclGetLastError(comm));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static ncclDataType_t nccl_type(enum type t)
{
    switch (t) {
    case F32: return ncclFloat32;
    case F64: return ncclFloat64;
    case I8: return ncclInt8;
    case U8: return ncclUint8;
    case I32: return ncclInt32;
    case U32: return ncclUint32;
    case I64: return ncclInt64;
    default: return ncclUint64;
    }
}

static ncclRedOp_t nccl_op(enum op o)
{
    switch (o) {
    case SUM: return ncclSum;
    case PROD: return ncclProd;
    case MAX: return ncclMax;
    default: return ncclMin;
    }
}

/* NCCL refuses two ranks of a communicator on one GPU ("Duplicate GPU
 * detected", ncclInvalidUsage): say so and skip rather than fail. */
void coll_lib_open(int local_rank, int local_size)
{
    ncclUniqueId id;
    char why[160];
    int gpus = devmem_device_count();

    snprintf(why, sizeof why, "NCCL takes one GPU per rank: %d ranks on this host, %d GPU%s",
             local_size, gpus, gpus == 1 ? "" : "s");
    coll_skip_unless_all_ok(local_size > gpus, why, local_rank);
    if (bench_rank == 0)
        check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    /* devmem_init made this rank's GPU current: NCCL takes that one. */
    check_nccl(ncclCommInitRank(&comm, bench_size, id, bench_rank), "ncclCommInitRank");
    stream = devmem_stream_create();
    if (!stream) {
        fprintf(stderr, "%s: rank %d: cannot create a CUDA stream\n", coll_lib_program, bench_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

void coll_lib_version(char *s, size_t len)
{
    int v = 0;
    ncclGetVersion(&v);
    /* major * 10000 + minor * 100 + patch since NCCL 2.9 */
    snprintf(s, len, "NCCL %d.%d.%d (built against %d.%d.%d)", v / 10000, v / 100 % 100, v % 100,
             NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
}

/* ncclAlltoAll is new and missing from older libnccl.so.2 that a GPU
 * machine may have; a group of sends and receives (as nccl-tests does)
 * works with any NCCL 2.7 or later. */
static ncclResult_t alltoall(const struct coll_call *c, ncclDataType_t t)
{
    size_t bytes = c->block * c->type_size;
    ncclResult_t r = ncclGroupStart(), end;

    for (int peer = 0; r == ncclSuccess && peer < bench_size; peer++) {
        r = ncclSend((char *)c->send + (size_t)peer * bytes, c->block, t, peer, comm, stream);
        if (r == ncclSuccess)
            r = ncclRecv((char *)c->recv + (size_t)peer * bytes, c->block, t, peer, comm, stream);
    }
    end = ncclGroupEnd(); /* also after an error: a group must be closed */
    return r != ncclSuccess ? r : end;
}

void coll_lib_call(const struct coll_call *c)
{
    static const char *const names[] = { [ALLREDUCE] = "ncclAllReduce",
                                         [ALLGATHER] = "ncclAllGather",
                                         [REDUCE_SCATTER] = "ncclReduceScatter",
                                         [BCAST] = "ncclBroadcast",
                                         [ALLTOALL] = "ncclSend/ncclRecv (alltoall)" };
    ncclDataType_t t = nccl_type(c->type);
    ncclResult_t r = ncclSuccess;

    switch (c->coll) {
    case ALLREDUCE:
        r = ncclAllReduce(c->send, c->recv, c->block, t, nccl_op(c->op), comm, stream);
        break;
    case BCAST: r = ncclBroadcast(c->recv, c->recv, c->block, t, 0, comm, stream); break;
    case ALLGATHER: r = ncclAllGather(c->send, c->recv, c->block, t, comm, stream); break;
    case REDUCE_SCATTER:
        r = ncclReduceScatter(c->send, c->recv, c->block, t, nccl_op(c->op), comm, stream);
        break;
    case ALLTOALL: r = alltoall(c, t); break;
    }
    check_nccl(r, names[c->coll]);
}

void coll_lib_wait(void)
{
    if (devmem_stream_sync(stream) != 0) {
        fprintf(stderr, "%s: rank %d: the stream of NCCL's calls failed (cuStreamSynchronize)\n",
                coll_lib_program, bench_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

void coll_lib_close(void)
{
    check_nccl(ncclCommDestroy(comm), "ncclCommDestroy");
}
