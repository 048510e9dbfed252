/* The blocks of the data-movement collectives, peer by peer (see
 * alltoall_blocks.h). Displacements of the v forms count elements of the
 * block's type, of the w forms bytes. */
#include "alltoall_blocks.h"
#include "coll_util.h"

static ol_coll_block_t elements_at(const void *buf, MPI_Count first, MPI_Count count,
                                   ol_datatype_t *dt)
{
    return (ol_coll_block_t){ol_coll_at(buf, first, dt), count, dt};
}

static ol_coll_block_t bytes_at(const void *buf, MPI_Aint offset, MPI_Count count,
                                ol_datatype_t *dt)
{
    return (ol_coll_block_t){(char *)buf + offset, count, dt};
}

ol_coll_block_t ol_coll_send_block(const ol_coll_args_t *a, int i)
{
    switch (a->kind) {
    case OL_COLL_SCATTER:
    case OL_COLL_ALLTOALL:
    case OL_COLL_NEIGHBOR_ALLTOALL:
        return elements_at(a->sendbuf, i * a->sendcount, a->sendcount, a->sendtype);
    case OL_COLL_SCATTERV:
    case OL_COLL_ALLTOALLV:
    case OL_COLL_NEIGHBOR_ALLTOALLV:
        return elements_at(a->sendbuf, a->sdispls[i], a->sendcounts[i], a->sendtype);
    case OL_COLL_ALLTOALLW:
    case OL_COLL_NEIGHBOR_ALLTOALLW:
        return bytes_at(a->sendbuf, a->sdispls[i], a->sendcounts[i], a->sendtypes[i]);
    case OL_COLL_ALLGATHER:
    case OL_COLL_ALLGATHERV:
        if (ol_coll_in_place(a))
            return ol_coll_recv_block(a, a->comm->rank);
        break;
    default: /* gather(v), neighbour allgather(v) */ break;
    }
    return (ol_coll_block_t){(void *)a->sendbuf, a->sendcount, a->sendtype};
}

ol_coll_block_t ol_coll_recv_block(const ol_coll_args_t *a, int i)
{
    switch (a->kind) {
    case OL_COLL_GATHERV:
    case OL_COLL_ALLGATHERV:
    case OL_COLL_ALLTOALLV:
    case OL_COLL_NEIGHBOR_ALLGATHERV:
    case OL_COLL_NEIGHBOR_ALLTOALLV:
        return elements_at(a->recvbuf, a->rdispls[i], a->recvcounts[i], a->recvtype);
    case OL_COLL_ALLTOALLW:
    case OL_COLL_NEIGHBOR_ALLTOALLW:
        return bytes_at(a->recvbuf, a->rdispls[i], a->recvcounts[i], a->recvtypes[i]);
    case OL_COLL_SCATTER:
    case OL_COLL_SCATTERV: return (ol_coll_block_t){a->recvbuf, a->recvcount, a->recvtype};
    default: /* gather, allgather, alltoall, neighbour allgather and alltoall */
        return elements_at(a->recvbuf, i * a->recvcount, a->recvcount, a->recvtype);
    }
}

/* The send side of the snapshot: block i is bytes[i] bytes at offset[i] of
 * the packed copy; the w form needs a type per block, all MPI_BYTE. */
static ol_status_t describe_snapshot(ol_sched_t *s, ol_coll_args_t *out, const MPI_Count *bytes,
                                     const MPI_Aint *offset, void *packed)
{
    ol_datatype_t *byte = ol_dt_from_handle(MPI_BYTE);
    int p = out->comm->size;
    out->sendbuf = packed;
    out->sendtype = byte;
    if (out->kind == OL_COLL_ALLTOALL) {
        out->sendcount = bytes[0];
        return OL_OK;
    }
    out->sendcounts = bytes;
    out->sdispls = offset;
    if (out->kind == OL_COLL_ALLTOALLW) {
        ol_datatype_t **types = ol_sched_scratch(s, sizeof(*types) * (size_t)p);
        if (!types)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < p; i++)
            types[i] = byte;
        out->sendtypes = types;
    }
    return OL_OK;
}

ol_status_t ol_coll_alltoall_snapshot(ol_sched_t *s, const ol_coll_args_t *a, ol_coll_args_t *out)
{
    *out = *a;
    bool alltoall =
        a->kind == OL_COLL_ALLTOALL || a->kind == OL_COLL_ALLTOALLV || a->kind == OL_COLL_ALLTOALLW;
    if (!alltoall || !ol_coll_in_place(a))
        return OL_OK; /* allgather's own block is only ever sent */
    int p = a->comm->size;
    MPI_Count *bytes = ol_sched_scratch(s, sizeof(*bytes) * (size_t)p);
    MPI_Aint *offset = ol_sched_scratch(s, sizeof(*offset) * (size_t)p);
    if (!bytes || !offset)
        return MPI_ERR_NO_MEM;
    MPI_Aint total = 0;
    for (int i = 0; i < p; i++) {
        ol_coll_block_t b = ol_coll_recv_block(a, i);
        bytes[i] = b.count * (MPI_Count)b.dt->size;
        offset[i] = total;
        total += bytes[i];
    }
    char *packed = ol_sched_buffer(s, (size_t)total);
    if (!packed)
        return MPI_ERR_NO_MEM;
    ol_datatype_t *byte = ol_dt_from_handle(MPI_BYTE);
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < p; i++) {
        ol_coll_block_t b = ol_coll_recv_block(a, i);
        rc = ol_sched_copy(s, b.buf, b.count, b.dt, packed + offset[i], bytes[i], byte);
    }
    return rc == OL_OK ? describe_snapshot(s, out, bytes, offset, packed) : rc;
}
