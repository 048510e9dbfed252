/* Point-to-point over UCX: the interface the API layer and the collectives
 * call. Buffers are (buf, count, datatype); ranks are ranks of the
 * communicator; the tag space separates user from collective traffic. */
#ifndef OL_PT2PT_H
#define OL_PT2PT_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_runtime.h"
#include "request.h"
#include "tag_layout.h"

extern const ol_rt_request_spec_t ol_pt2pt_request_spec;

ol_status_t ol_pt2pt_init(void);
/* Point-to-point's parameters (bounce buffers, the device-message protocol). */
void ol_pt2pt_params_load(void);
void ol_pt2pt_params_print(FILE *out);
/* Waits for buffered sends, closes every endpoint flushing what is in flight. */
void ol_pt2pt_finalize(void);

/* A communicator with other jobs' processes (MPI_Comm_spawn, connect,
 * join) sends all its messages through UCX, whose matching reaches every
 * process, not through the rings of one job's ranks: on (at creation) or
 * off (when its context id is released). */
void ol_pt2pt_context_over_ucx(uint32_t context_id, bool over_ucx);

/* The paths an MPI message takes, as the tool interface's performance
 * variables tell them apart (path_counters.h counts them). */
typedef enum {
    OL_P2P_PATH_SHM_RING,      /* same-host rings: bytes in the ring, or copied by address */
    OL_P2P_PATH_UCX_SHM,       /* UCX tag messages to a process of this host (its shm transports) */
    OL_P2P_PATH_UCX_NET,       /* UCX tag messages to another host's (tcp, or InfiniBand) */
    OL_P2P_PATH_DEVICE_IPC,    /* device buffers copied through CUDA IPC (device.c) */
    OL_P2P_PATH_DEVICE_STAGED, /* device buffers staged through pinned host memory */
    OL_P2P_PATHS
} ol_p2p_path_t;

typedef struct {
    uint64_t messages_sent, bytes_sent, messages_received, bytes_received;
} ol_p2p_path_counts_t;

/* What point-to-point counts, for the tool interface's performance
 * variables (api/tool.c): read without a lock, each field on its own, from
 * the runtime's start (0 when it is not running). */
typedef struct {
    uint64_t ring_messages_sent;  /* messages into the same-host rings (match.c) */
    uint64_t copy_chunks_written; /* chunks of large messages written into their */
    uint64_t copy_bytes_written;  /*   receivers by the waiting sender (shm_copy.c) */
    unsigned sends_in_flight;     /* nonblocking sends UCX still holds */
    unsigned backlogged_peers;    /* peers whose ring is full, messages waiting */
    ol_p2p_path_counts_t paths[OL_P2P_PATHS]; /* since the process started */
    /* ompi-lite's own matching (the same-host rings; UCX keeps its queues
     * to itself): messages nobody has received yet, the most there were
     * since the last ol_pt2pt_reset_unexpected_high_water, and receives
     * posted that no message has matched yet. */
    unsigned unexpected, unexpected_high_water, posted;
} ol_pt2pt_counters_t;
void ol_pt2pt_counters(ol_pt2pt_counters_t *counters);
void ol_pt2pt_reset_unexpected_high_water(void);

/* Blocking calls: no request object on this path. */
ol_status_t ol_pt2pt_send(const void *buf, MPI_Count count, ol_datatype_t *dt, int dest, int tag,
                          ol_comm_t *comm, ol_tagspace_t space, ol_send_mode_t mode);
ol_status_t ol_pt2pt_recv(void *buf, MPI_Count count, ol_datatype_t *dt, int source, int tag,
                          ol_comm_t *comm, ol_tagspace_t space, MPI_Status *status);

/* Nonblocking calls: *request is always a request (complete at once for
 * MPI_PROC_NULL). Persistent requests: ol_pt2pt_prepare + ol_pt2pt_start. */
ol_status_t ol_pt2pt_isend(const void *buf, MPI_Count count, ol_datatype_t *dt, int dest, int tag,
                           ol_comm_t *comm, ol_tagspace_t space, ol_send_mode_t mode,
                           ol_request_t **request);
ol_status_t ol_pt2pt_irecv(void *buf, MPI_Count count, ol_datatype_t *dt, int source, int tag,
                           ol_comm_t *comm, ol_tagspace_t space, ol_request_t **request);
ol_status_t ol_pt2pt_prepare(ol_request_kind_t kind, const ol_op_args_t *args,
                             ol_request_t **request);
ol_status_t ol_pt2pt_start(ol_request_t *request);

/* Partitioned communication (part.c). A partitioned request is persistent:
 * made inactive here, started by ol_pt2pt_start, completed and freed like
 * any request. args holds the buffer, count and datatype of one partition,
 * the peer, tag and communicator. Each function checks its arguments and
 * says what was wrong (ol_error_detail). */
ol_status_t ol_part_init(ol_request_kind_t direction, const ol_op_args_t *args, int partitions,
                         ol_request_t **request);
ol_status_t ol_part_start(ol_request_t *request);
/* MPI_Pready_range and MPI_Pready_list (a range is low .. high). */
ol_status_t ol_part_ready_range(ol_request_t *request, int low, int high);
ol_status_t ol_part_ready_list(ol_request_t *request, int length, const int partitions[]);
/* MPI_Parrived on an active partitioned receive. */
ol_status_t ol_part_arrived(ol_request_t *request, int partition, int *flag);
void ol_part_explain(const ol_request_t *request);

/* The sentence of a completed request's error, where pt2pt knows more
 * than its class (a truncated receive: both sizes); else leaves it. */
void ol_pt2pt_explain(const ol_request_t *req);
/* Waits for a request, copies its status out (status may be NULL) and,
 * unless it is persistent, releases it. Returns the operation's error. */
ol_status_t ol_pt2pt_wait(ol_request_t *request, MPI_Status *status);
/* Asks a pending receive to complete as cancelled, or the receiver of a
 * send to take it back if no receive has it yet (only on one host, where
 * messages go through the shared-memory rings: UCX cannot take a send
 * back, and MPI lets a cancel fail). */
void ol_pt2pt_cancel(ol_request_t *request);

/* Probes: a matching message, without receiving it (or, with a message
 * handle, taking it out of matching for ol_pt2pt_mrecv). */
typedef struct ol_message ol_message_t;
ol_status_t ol_pt2pt_iprobe(int source, int tag, ol_comm_t *comm, bool remove, int *flag,
                            ol_message_t **message, MPI_Status *status);
/* ol_pt2pt_iprobe without a progress call first: for a progress hook,
 * which runs inside one. */
ol_status_t ol_pt2pt_iprobe_arrived(int source, int tag, ol_comm_t *comm, bool remove, int *flag,
                                    ol_message_t **message, MPI_Status *status);
ol_status_t ol_pt2pt_probe(int source, int tag, ol_comm_t *comm, bool remove,
                           ol_message_t **message, MPI_Status *status);
ol_status_t ol_pt2pt_imrecv(void *buf, MPI_Count count, ol_datatype_t *dt, ol_message_t *message,
                            ol_request_t **request);
ol_message_t *ol_message_from_handle(MPI_Message handle);
/* The communicator a message was probed on (NULL for MPI_MESSAGE_NO_PROC):
 * its error handler hears the receive's errors. */
ol_comm_t *ol_message_comm(const ol_message_t *message);
MPI_Message ol_message_to_handle(ol_message_t *message);

/* Buffered-send buffers (MPI_Buffer_attach, MPI_Comm_attach_buffer,
 * MPI_Session_attach_buffer), each in a slot: the communicator's, the
 * session's (a pointer the session keeps; a communicator derived from the
 * session points at it, ol_comm_t.session_bsend_buffer), or the process's,
 * which ol_bsend_slot(NULL) gives. */
typedef struct ol_bsend_buffer ol_bsend_buffer_t;
ol_bsend_buffer_t **ol_bsend_slot(ol_comm_t *comm);
ol_status_t ol_bsend_attach(ol_bsend_buffer_t **slot, void *buffer, MPI_Count size);
/* Waits until the buffer's messages have left, then empties the slot. */
ol_status_t ol_bsend_detach(ol_bsend_buffer_t **slot, void **buffer, MPI_Count *size);
ol_status_t ol_bsend_flush(ol_bsend_buffer_t **slot);
/* The same without waiting: *request completes when no message is pending. */
ol_status_t ol_bsend_iflush(ol_bsend_buffer_t **slot, ol_request_t **request);
/* Copies the message into the attached buffer and starts sending the copy. */
ol_status_t ol_bsend_start(const ol_op_args_t *args, uint32_t *ring_seq);
void ol_bsend_finalize(void);

/* The UCX endpoint to a process (its world index), made at first use: for
 * the one-sided operations that UCX carries itself (rma/ucx.c). */
ol_status_t ol_pt2pt_endpoint(int world_rank, ucp_ep_h *ep);

/* Whether this process copies from and to the memory of rank `rank` of
 * comm through the kernel (process_vm_readv/writev), as the same-host
 * rings do: the job's ranks all on this host with the rings in use, comm
 * within the job, and the kernel letting this process read that one. For
 * the collectives that work on each other's buffers (coll/reduce_split.c). */
bool ol_pt2pt_reaches_memory(const ol_comm_t *comm, int rank);
/* Copies `bytes` from `address` in that process's memory to dst, or from
 * src to there; false (errno set) when the kernel refuses or moves less. */
bool ol_pt2pt_read_memory(const ol_comm_t *comm, int rank, void *dst, uint64_t address,
                          size_t bytes);
bool ol_pt2pt_write_memory(const ol_comm_t *comm, int rank, uint64_t address, const void *src,
                           size_t bytes);

/* Packs all of (buf, count, dt) into dst / unpacks it from src, for
 * buffers in host or device memory (buffered sends, Sendrecv_replace). */
ol_status_t ol_pt2pt_pack(const void *buf, MPI_Count count, ol_datatype_t *dt, void *dst);
ol_status_t ol_pt2pt_unpack(const void *src, void *buf, MPI_Count count, ol_datatype_t *dt);

/* Status fields the standard leaves to the implementation: MPI_internal[0..1]
 * hold the received byte count, [2] the cancelled flag. */
void ol_status_set_bytes(MPI_Status *status, MPI_Count bytes);
MPI_Count ol_status_get_bytes(const MPI_Status *status);
/* The empty status (MPI 3.7.3) of a null or inactive request:
 * MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, no bytes. */
void ol_status_set_empty(MPI_Status *status);
/* The status of a receive or probe from MPI_PROC_NULL (MPI 3.11):
 * source MPI_PROC_NULL, tag MPI_ANY_TAG, no bytes. */
void ol_status_set_proc_null(MPI_Status *status);
static inline void ol_status_set_cancelled(MPI_Status *status, bool cancelled)
{
    status->MPI_internal[2] = cancelled;
}
static inline bool ol_status_is_cancelled(const MPI_Status *status)
{
    return status->MPI_internal[2] != 0;
}

#endif
