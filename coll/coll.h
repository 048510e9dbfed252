/* Collectives: the interface the API layer (and the communicator layer,
 * for its agreements) calls.
 *
 * Every collective call is described by one ol_coll_args_t. Selection
 * (select.c) picks an algorithm from the collective's table (one file per
 * algorithm, all with the signature ol_coll_build_t) and the algorithm
 * appends its steps to a schedule (coll_sched.h); the caller runs the schedule
 * at once (blocking), starts it (nonblocking) or keeps it (persistent). */
#ifndef OL_COLL_H
#define OL_COLL_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_op.h"
#include "request.h"

typedef enum {
    OL_COLL_BARRIER,
    OL_COLL_BCAST,
    OL_COLL_REDUCE,
    OL_COLL_ALLREDUCE,
    OL_COLL_GATHER,
    OL_COLL_GATHERV,
    OL_COLL_SCATTER,
    OL_COLL_SCATTERV,
    OL_COLL_ALLGATHER,
    OL_COLL_ALLGATHERV,
    OL_COLL_ALLTOALL,
    OL_COLL_ALLTOALLV,
    OL_COLL_ALLTOALLW,
    OL_COLL_REDUCE_SCATTER,
    OL_COLL_REDUCE_SCATTER_BLOCK,
    OL_COLL_SCAN,
    OL_COLL_EXSCAN,
    OL_COLL_NEIGHBOR_ALLGATHER,
    OL_COLL_NEIGHBOR_ALLGATHERV,
    OL_COLL_NEIGHBOR_ALLTOALL,
    OL_COLL_NEIGHBOR_ALLTOALLV,
    OL_COLL_NEIGHBOR_ALLTOALLW,
    OL_COLL_KINDS
} ol_coll_kind_t;

/* The arguments of any collective call, as the standard names them. The
 * vector forms' counts and displacements are MPI_Count / MPI_Aint arrays
 * (the API layer widens int arrays); displacements of the v forms are in
 * elements, of the w forms in bytes. Unused fields are zero. */
typedef struct {
    ol_coll_kind_t kind;
    const void *sendbuf;   /* MPI_IN_PLACE where the standard allows it */
    void *recvbuf;
    MPI_Count sendcount, recvcount;
    ol_datatype_t *sendtype, *recvtype;
    const MPI_Count *sendcounts, *recvcounts;
    const MPI_Aint *sdispls, *rdispls;
    ol_datatype_t *const *sendtypes, *const *recvtypes;
    ol_op_t *op;
    int root;
    ol_comm_t *comm;
} ol_coll_args_t;

typedef struct ol_sched ol_sched_t;

/* Builds the schedule of a call; *sched is the caller's to run, start or
 * keep (see coll_sched.h). */
ol_status_t ol_coll_schedule(const ol_coll_args_t *args, ol_sched_t **sched);

/* Runs a call to completion (blocking collectives). */
ol_status_t ol_coll_run(const ol_coll_args_t *args);
/* Starts a call; *request completes with it (nonblocking collectives). */
ol_status_t ol_coll_start(const ol_coll_args_t *args, ol_request_t **request);
/* Prepares an inactive persistent request; MPI_Start runs it (ol_coll_restart). */
ol_status_t ol_coll_prepare(const ol_coll_args_t *args, ol_request_t **request);
ol_status_t ol_coll_restart(ol_request_t *request);

/* Releases what the collectives keep per communicator (the shared-memory
 * segment of shm_segment.c): when it is freed, and for the predefined ones
 * at MPI_Finalize. */
void ol_coll_comm_release(ol_comm_t *comm);
/* Marks a transient copy of a communicator (the communicator layer's views
 * of a subgroup or of an intercommunicator's local group, on the stack and
 * never freed): the collectives keep no state for it and share none with
 * the original, so its calls go the pt2pt way. */
void ol_coll_comm_view(ol_comm_t *view);

/* Loads the collectives' parameters (algorithms, thresholds); prints them. */
void ol_coll_params_load(void);
void ol_coll_params_print(FILE *out);

/* Work that waits for collectives it started and then starts others (the
 * context-id agreement of MPI_Comm_idup): run after every progress call
 * that advanced schedules, outside their lock. Set while such work is in
 * flight, which always has a schedule in flight, else NULL. */
extern int (*volatile ol_coll_followup)(void);

/* Shortcuts for the communicator layer's agreements. */
ol_status_t ol_coll_barrier(ol_comm_t *comm);
ol_status_t ol_coll_bcast(void *buf, MPI_Count count, ol_datatype_t *dt, int root, ol_comm_t *comm);
ol_status_t ol_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                              ol_datatype_t *dt, ol_op_t *op, ol_comm_t *comm);
ol_status_t ol_coll_allgather(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                              void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                              ol_comm_t *comm);

/* Sends to dest while receiving from source, in the collective tag space
 * (tag shifted by comm->coll_tag_base): for the leaders' exchanges of the
 * communicator layer. Tags below OL_COLL_TAG_RANGE are the schedules'. */
enum { OL_COLL_TAG_RANGE = 0x1000 };
ol_status_t ol_coll_sendrecv(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                             int dest, void *recvbuf, MPI_Count recvcount,
                             ol_datatype_t *recvtype, int source, int tag, ol_comm_t *comm);

#endif
