/* Collectives: the interface the API layer (and the communicator layer, for
 * its agreements) calls. Each collective has a selection function that picks
 * an algorithm (one file each, same signature); algorithms talk through
 * pt2pt in the collective tag space. Buffers are (buf, count, datatype) as
 * in MPI; MPI_IN_PLACE is accepted where the standard allows it. */
#ifndef OL_COLL_H
#define OL_COLL_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_op.h"

/* Tags inside the collective tag space: one range per collective, so that
 * traffic of different collectives on one communicator never matches.
 * comm->coll_tag_base shifts them for the transient communicators of
 * MPI_Comm_create_group. */
enum {
    OL_COLL_TAG_BARRIER = 0x100,
    OL_COLL_TAG_BCAST = 0x200,
    OL_COLL_TAG_ALLREDUCE = 0x300,
    OL_COLL_TAG_ALLGATHER = 0x400,
    OL_COLL_TAG_RANGE = 0x1000, /* every collective tag is below this */
};

ol_status_t ol_coll_barrier(ol_comm_t *comm);

/* Sends to dest while receiving from source, in the collective tag space
 * (tag is shifted by comm->coll_tag_base): the building block of the
 * algorithms, and of the communicator layer's exchanges between leaders. */
ol_status_t ol_coll_sendrecv(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                             int dest, void *recvbuf, MPI_Count recvcount,
                             ol_datatype_t *recvtype, int source, int tag, ol_comm_t *comm);
ol_status_t ol_coll_bcast(void *buf, MPI_Count count, ol_datatype_t *dt, int root, ol_comm_t *comm);
ol_status_t ol_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                              ol_datatype_t *dt, ol_op_t *op, ol_comm_t *comm);
ol_status_t ol_coll_allgather(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                              void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                              ol_comm_t *comm);

#endif
