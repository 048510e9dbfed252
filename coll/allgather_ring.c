/* Allgather, ring.
 *
 * Cost: p - 1 steps; in step i each rank sends the block it received in
 * step i - 1 to its right neighbour: (p - 1) * block bytes sent per rank,
 * bandwidth-optimal, any p.
 *
 * Example, p = 3: step 1: 0 sends block 0 to 1, 1 block 1 to 2, 2 block 2
 * to 0; step 2: each forwards the block it just got. */
#include "coll_util.h"

ol_status_t ol_coll_allgather_ring(const void *sendbuf, MPI_Count sendcount,
                                   ol_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                                   ol_datatype_t *recvtype, ol_comm_t *comm)
{
    int rank = comm->rank, p = comm->size;
    ol_status_t rc = OL_OK;
    if (sendbuf != MPI_IN_PLACE) { /* own block: a local send-receive */
        rc = ol_coll_sendrecv(sendbuf, sendcount, sendtype, rank,
                              ol_coll_at(recvbuf, rank * recvcount, recvtype), recvcount,
                              recvtype, rank, OL_COLL_TAG_ALLGATHER, comm);
    }
    int right = (rank + 1) % p, left = (rank - 1 + p) % p;
    for (int i = 0; rc == OL_OK && i < p - 1; i++) {
        int send_block = (rank - i + p) % p, recv_block = (rank - i - 1 + p) % p;
        rc = ol_coll_sendrecv(ol_coll_at(recvbuf, send_block * recvcount, recvtype), recvcount,
                              recvtype, right,
                              ol_coll_at(recvbuf, recv_block * recvcount, recvtype), recvcount,
                              recvtype, left, OL_COLL_TAG_ALLGATHER + 1, comm);
    }
    return rc;
}
