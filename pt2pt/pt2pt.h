/* Point-to-point over UCX: the interface the API layer and the collectives
 * call. Buffers are described by (buf, count, datatype); ranks are ranks of
 * the communicator; the tag space separates user from collective traffic. */
#ifndef OL_PT2PT_H
#define OL_PT2PT_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_runtime.h"
#include "tag_layout.h"

/* A UCX request, or NULL for an operation that completed at once. */
typedef struct ol_pt2pt_request ol_pt2pt_request_t;

extern const ol_rt_request_spec_t ol_pt2pt_request_spec;

ol_status_t ol_pt2pt_init(void);
/* Closes every endpoint, flushing what is in flight. */
void ol_pt2pt_finalize(void);

ol_status_t ol_pt2pt_send(const void *buf, MPI_Count count, const ol_datatype_t *dt, int dest,
                          int tag, ol_comm_t *comm, ol_tagspace_t space);
ol_status_t ol_pt2pt_recv(void *buf, MPI_Count count, const ol_datatype_t *dt, int source,
                          int tag, ol_comm_t *comm, ol_tagspace_t space, MPI_Status *status);

ol_status_t ol_pt2pt_isend(const void *buf, MPI_Count count, const ol_datatype_t *dt, int dest,
                           int tag, ol_comm_t *comm, ol_tagspace_t space,
                           ol_pt2pt_request_t **request);
ol_status_t ol_pt2pt_irecv(void *buf, MPI_Count count, const ol_datatype_t *dt, int source,
                           int tag, ol_comm_t *comm, ol_tagspace_t space,
                           ol_pt2pt_request_t **request);

/* Waits for one request and releases it; fills status (may be NULL). */
ol_status_t ol_pt2pt_wait(ol_pt2pt_request_t *request, MPI_Status *status);

/* Cancels a request that has not completed, and releases it. */
void ol_pt2pt_cancel(ol_pt2pt_request_t *request);

/* Status fields the standard leaves to the implementation. */
void ol_status_set_bytes(MPI_Status *status, MPI_Count bytes);
MPI_Count ol_status_get_bytes(const MPI_Status *status);
void ol_status_set_empty(MPI_Status *status);

#endif
