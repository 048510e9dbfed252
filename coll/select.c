/* Selection: which algorithm runs for each collective. Today one per
 * collective; the collectives issue adds the registry and thresholds. */
#include "coll.h"

ol_status_t ol_coll_barrier_dissemination(ol_comm_t *comm);
ol_status_t ol_coll_bcast_binomial(void *buf, MPI_Count count, ol_datatype_t *dt, int root,
                                   ol_comm_t *comm);
ol_status_t ol_coll_allreduce_recursive_doubling(const void *sendbuf, void *recvbuf,
                                                 MPI_Count count, ol_datatype_t *dt,
                                                 ol_op_t *op, ol_comm_t *comm);
ol_status_t ol_coll_allgather_ring(const void *sendbuf, MPI_Count sendcount,
                                   ol_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                                   ol_datatype_t *recvtype, ol_comm_t *comm);

ol_status_t ol_coll_barrier(ol_comm_t *comm)
{
    return comm->size == 1 ? OL_OK : ol_coll_barrier_dissemination(comm);
}

ol_status_t ol_coll_bcast(void *buf, MPI_Count count, ol_datatype_t *dt, int root, ol_comm_t *comm)
{
    return comm->size == 1 ? OL_OK : ol_coll_bcast_binomial(buf, count, dt, root, comm);
}

ol_status_t ol_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                              ol_datatype_t *dt, ol_op_t *op, ol_comm_t *comm)
{
    return ol_coll_allreduce_recursive_doubling(sendbuf, recvbuf, count, dt, op, comm);
}

ol_status_t ol_coll_allgather(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                              void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                              ol_comm_t *comm)
{
    return ol_coll_allgather_ring(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm);
}
