/* Requests: the object behind an MPI_Request handle, used alike by the API
 * layer, by pt2pt's operations and by the collectives.
 *
 * A request completes once: a UCX callback (or an immediate completion, or
 * MPI_Grequest_complete, or the last child of a compound request) calls
 * ol_request_complete(), which records the status and sets `complete`.
 * Waiting is the progress engine's ol_progress_wait on that flag. */
#ifndef OL_PT2PT_REQUEST_H
#define OL_PT2PT_REQUEST_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_runtime.h"
#include "tag_layout.h"

#define OL_REQUEST_MAGIC 0x6f6c7271U /* "olrq" */

typedef enum {
    OL_REQ_SEND,
    OL_REQ_RECV,
    OL_REQ_COMPOUND,     /* completes when all its children have */
    OL_REQ_GENERALIZED,  /* MPI_Grequest_start */
    OL_REQ_COLL,         /* a collective's schedule (coll/sched.h) */
    OL_REQ_RMA,          /* MPI_Rput and kin (rma/): complete at the origin */
    OL_REQ_PART,         /* MPI_Psend_init, MPI_Precv_init (part.c): persistent */
    OL_REQ_IO,           /* MPI_File_iread and kin (io/) */
} ol_request_kind_t;

typedef enum {
    OL_SEND_STANDARD,
    OL_SEND_SYNCHRONOUS,
    OL_SEND_BUFFERED,
    OL_SEND_READY,
} ol_send_mode_t;

typedef struct ol_request ol_request_t;

/* What a persistent request needs to start again, and what a pending
 * operation keeps: the arguments of the call. */
typedef struct {
    void *buf;
    MPI_Count count;
    ol_datatype_t *dt;
    int peer;
    int tag;
    ol_comm_t *comm;
    ol_tagspace_t space;
    ol_send_mode_t mode;
} ol_op_args_t;

typedef struct {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
} ol_grequest_fns_t;

struct ol_request {
    uint32_t magic;
    ol_request_kind_t kind;
    bool persistent;          /* made by *_init: MPI_Start restarts it */
    bool active;              /* started, not yet returned by wait/test */
    int release_claims;       /* completion and MPI_Request_free each claim once */
    volatile int complete;
    ol_status_t error;
    MPI_Status status;
    void *ucx_request;        /* UCX operation in flight, for cancel */
    ol_op_args_t args;
    void *bounce;             /* buffered sends: the copy; replace: the receive copy */
    void *landing;            /* receives into device memory: the host buffer UCX fills */
    void *ucx_bounce;         /* small non-contiguous messages: the pool buffer UCX sends
                                 from or receives into (ucx_datatype.h) */
    bool matched;             /* a device message matched: no UCX request left to cancel */
    uint32_t ring_seq;        /* a send through the shared-memory rings that MPI_Cancel
                                 has not asked about: its number there
                                 (ol_match_cancel_send), else 0 */
    volatile bool cancel_pending; /* MPI_Cancel asked the receiver of a send, which has
                                     not answered yet: not complete till then */
    bool sender_known;        /* the receive took an arrived message: its tag is sender_tag */
    uint64_t sender_tag;
    ol_request_t *parent;     /* compound requests: who waits for this child */
    int pending_children;
    void (*on_complete)(ol_request_t *request); /* runs once, at completion */
    ol_grequest_fns_t grequest;
    void *owner;              /* collectives: the schedule this request runs; I/O: the file */
    void (*on_release)(ol_request_t *request); /* frees what owner holds */
    ol_request_t *next_free;
    /* Pool requests in use, for the state record's pending list. */
    ol_request_t *live_prev, *live_next;
    bool live;
};

ol_request_t *ol_request_alloc(ol_request_kind_t kind);
/* Returns a completed request to the pool (drops its datatype). */
void ol_request_release(ol_request_t *request);

/* Completion path: sets status and complete, informs a parent, frees a
 * request the user has already released. */
void ol_request_complete(ol_request_t *request, ol_status_t error);

/* Nobody will wait for this request (MPI_Request_free, or an internal
 * operation): it is released when it completes, or now if it has. Of the
 * two claims, completion's and this one, the second releases it, whatever
 * thread makes it. */
void ol_request_free_when_complete(ol_request_t *request);

static inline bool ol_request_is_complete(const ol_request_t *request)
{
    return __atomic_load_n(&request->complete, __ATOMIC_ACQUIRE) &&
           !__atomic_load_n(&request->cancel_pending, __ATOMIC_ACQUIRE);
}

/* Waits for one request (progressing and sleeping as needed). */
void ol_request_wait_complete(ol_request_t *request);

ol_request_t *ol_request_from_handle(MPI_Request handle);

static inline MPI_Request ol_request_to_handle(ol_request_t *request)
{
    return (MPI_Request)request;
}

#endif
