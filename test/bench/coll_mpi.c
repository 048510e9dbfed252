/* coll_perf's library: MPI's collectives (see coll_perf.h). They have
 * finished when they return, on host or device buffers alike. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "coll_perf.h"

const char coll_lib_program[] = "coll_perf";
const int coll_lib_device_only = 0;

static MPI_Datatype mpi_type(enum type t)
{
    switch (t) {
    case F32: return MPI_FLOAT;
    case F64: return MPI_DOUBLE;
    case I8: return MPI_INT8_T;
    case U8: return MPI_UINT8_T;
    case I32: return MPI_INT32_T;
    case U32: return MPI_UINT32_T;
    case I64: return MPI_INT64_T;
    default: return MPI_UINT64_T;
    }
}

static MPI_Op mpi_op(enum op o)
{
    switch (o) {
    case SUM: return MPI_SUM;
    case PROD: return MPI_PROD;
    case MAX: return MPI_MAX;
    default: return MPI_MIN;
    }
}

void coll_lib_open(int local_rank, int local_size)
{
    (void)local_rank;
    (void)local_size;
}

void coll_lib_version(char *s, size_t len)
{
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int n;
    MPI_Get_library_version(ver, &n);
    ver[strcspn(ver, "\n")] = '\0';
    snprintf(s, len, "%s", ver);
}

void coll_lib_call(const struct coll_call *c)
{
    MPI_Datatype t = mpi_type(c->type);
    int b = (int)c->block;
    switch (c->coll) {
    case ALLREDUCE: MPI_Allreduce(c->send, c->recv, b, t, mpi_op(c->op), MPI_COMM_WORLD); break;
    case BCAST: MPI_Bcast(c->recv, b, t, 0, MPI_COMM_WORLD); break;
    case ALLGATHER: MPI_Allgather(c->send, b, t, c->recv, b, t, MPI_COMM_WORLD); break;
    case REDUCE_SCATTER:
        MPI_Reduce_scatter_block(c->send, c->recv, b, t, mpi_op(c->op), MPI_COMM_WORLD);
        break;
    case ALLTOALL: MPI_Alltoall(c->send, b, t, c->recv, b, t, MPI_COMM_WORLD); break;
    }
}

void coll_lib_wait(void)
{
}

void coll_lib_close(void)
{
}
