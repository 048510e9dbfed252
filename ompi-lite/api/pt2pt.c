/* Point-to-point calls of the API: send modes, receives, probes, buffered
 * sends. Each large-count implementation (_c) also serves the int binding
 * (see gen_bindings.py). They hand over to pt2pt/. */
#include "gen_impl.h"
#include "pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* ---- blocking sends and receives ---------------------------------------- */

int ol_api_send_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                  ol_comm_t *comm)
{
    return ol_pt2pt_send(buf, count, datatype, dest, tag, comm, OL_TAGSPACE_USER,
                         OL_SEND_STANDARD);
}

int ol_api_ssend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                   ol_comm_t *comm)
{
    return ol_pt2pt_send(buf, count, datatype, dest, tag, comm, OL_TAGSPACE_USER,
                         OL_SEND_SYNCHRONOUS);
}

int ol_api_rsend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                   ol_comm_t *comm)
{
    return ol_pt2pt_send(buf, count, datatype, dest, tag, comm, OL_TAGSPACE_USER, OL_SEND_READY);
}

int ol_api_bsend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                   ol_comm_t *comm)
{
    return ol_pt2pt_send(buf, count, datatype, dest, tag, comm, OL_TAGSPACE_USER,
                         OL_SEND_BUFFERED);
}

int ol_api_recv_c(void *buf, MPI_Count count, ol_datatype_t *datatype, int source, int tag,
                  ol_comm_t *comm, MPI_Status *status)
{
    return ol_pt2pt_recv(buf, count, datatype, source, tag, comm, OL_TAGSPACE_USER, status);
}

/* ---- nonblocking and persistent ----------------------------------------- */

static int start_send(const void *buf, MPI_Count count, ol_datatype_t *dt, int dest, int tag,
                      ol_comm_t *comm, ol_send_mode_t mode, MPI_Request *request)
{
    ol_request_t *req;
    int rc = ol_pt2pt_isend(buf, count, dt, dest, tag, comm, OL_TAGSPACE_USER, mode, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_isend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                   ol_comm_t *comm, MPI_Request *request)
{
    return start_send(buf, count, datatype, dest, tag, comm, OL_SEND_STANDARD, request);
}

int ol_api_issend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                    ol_comm_t *comm, MPI_Request *request)
{
    return start_send(buf, count, datatype, dest, tag, comm, OL_SEND_SYNCHRONOUS, request);
}

int ol_api_irsend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                    ol_comm_t *comm, MPI_Request *request)
{
    return start_send(buf, count, datatype, dest, tag, comm, OL_SEND_READY, request);
}

int ol_api_ibsend_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest, int tag,
                    ol_comm_t *comm, MPI_Request *request)
{
    return start_send(buf, count, datatype, dest, tag, comm, OL_SEND_BUFFERED, request);
}

int ol_api_irecv_c(void *buf, MPI_Count count, ol_datatype_t *datatype, int source, int tag,
                   ol_comm_t *comm, MPI_Request *request)
{
    ol_request_t *req;
    int rc = ol_pt2pt_irecv(buf, count, datatype, source, tag, comm, OL_TAGSPACE_USER, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

/* A persistent request is prepared now and started by MPI_Start; it begins
 * inactive, so that waiting on it before MPI_Start returns at once. */
static int make_persistent(ol_request_kind_t kind, const void *buf, MPI_Count count,
                           ol_datatype_t *dt, int peer, int tag, ol_comm_t *comm,
                           ol_send_mode_t mode, MPI_Request *request)
{
    ol_op_args_t args = {(void *)buf, count, dt, peer, tag, comm, OL_TAGSPACE_USER, mode};
    ol_request_t *req;
    int rc = ol_pt2pt_prepare(kind, &args, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    req->persistent = true;
    req->active = false;
    req->complete = 1;
    ol_status_set_empty(&req->status);
    *request = ol_request_to_handle(req);
    return MPI_SUCCESS;
}

int ol_api_send_init_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                       int tag, ol_comm_t *comm, MPI_Request *request)
{
    return make_persistent(OL_REQ_SEND, buf, count, datatype, dest, tag, comm, OL_SEND_STANDARD,
                           request);
}

int ol_api_ssend_init_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                        int tag, ol_comm_t *comm, MPI_Request *request)
{
    return make_persistent(OL_REQ_SEND, buf, count, datatype, dest, tag, comm,
                           OL_SEND_SYNCHRONOUS, request);
}

int ol_api_rsend_init_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                        int tag, ol_comm_t *comm, MPI_Request *request)
{
    return make_persistent(OL_REQ_SEND, buf, count, datatype, dest, tag, comm, OL_SEND_READY,
                           request);
}

int ol_api_bsend_init_c(const void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                        int tag, ol_comm_t *comm, MPI_Request *request)
{
    return make_persistent(OL_REQ_SEND, buf, count, datatype, dest, tag, comm, OL_SEND_BUFFERED,
                           request);
}

int ol_api_recv_init_c(void *buf, MPI_Count count, ol_datatype_t *datatype, int source, int tag,
                       ol_comm_t *comm, MPI_Request *request)
{
    return make_persistent(OL_REQ_RECV, buf, count, datatype, source, tag, comm,
                           OL_SEND_STANDARD, request);
}

/* ---- send-receive -------------------------------------------------------- */

int ol_api_sendrecv_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype, int dest,
                      int sendtag, void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                      int source, int recvtag, ol_comm_t *comm, MPI_Status *status)
{
    ol_request_t *recv_req;
    int rc = ol_pt2pt_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm,
                            OL_TAGSPACE_USER, &recv_req);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ol_pt2pt_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, OL_TAGSPACE_USER,
                       OL_SEND_STANDARD);
    if (rc != MPI_SUCCESS) {
        ol_pt2pt_cancel(recv_req);
        ol_pt2pt_wait(recv_req, NULL);
        return rc;
    }
    return ol_pt2pt_wait(recv_req, status);
}

/* Compound request of Isendrecv: a parent that completes with its two
 * children; the status is the receive's. */
static void copy_recv_status(ol_request_t *parent)
{
    ol_request_t *recv = parent->bounce;
    parent->status = recv->status;
    if (parent->error == MPI_SUCCESS)
        parent->error = recv->error;
}

/* The parent's completion: the receive child has given all it had. */
static void sendrecv_done(ol_request_t *parent)
{
    copy_recv_status(parent);
    ol_request_free_when_complete(parent->bounce);
    parent->bounce = NULL;
}

static void replace_done(ol_request_t *parent);

/* Sendrecv_replace's receive: into scratch, packed, then unpacked over
 * (buf, count, dt) when both directions are done. */
typedef struct {
    void *scratch;
    void *buf;
    MPI_Count count;
    ol_datatype_t *dt;
} replace_t;

/* replace: NULL for Isendrecv. The parent's arguments are the unpack's
 * target before a child starts: both may complete inside this call. */
static int start_sendrecv(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                          int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                          ol_datatype_t *recvtype, int source, int recvtag, ol_comm_t *comm,
                          const replace_t *replace, ol_request_t **request)
{
    ol_request_t *parent = ol_request_alloc(OL_REQ_COMPOUND);
    if (!parent)
        return MPI_ERR_NO_MEM;
    parent->args.buf = replace ? replace->buf : NULL;
    parent->args.count = replace ? replace->count : recvcount;
    parent->args.dt = replace ? replace->dt : recvtype;
    ol_dt_retain(parent->args.dt);
    parent->pending_children = 3; /* two children, and this function */
    parent->on_complete = replace ? replace_done : sendrecv_done;

    ol_request_t *recv_req, *send_req;
    int rc = ol_pt2pt_prepare(OL_REQ_RECV,
                              &(ol_op_args_t){recvbuf, recvcount, recvtype, source, recvtag, comm,
                                              OL_TAGSPACE_USER, OL_SEND_STANDARD},
                              &recv_req);
    if (rc != MPI_SUCCESS) {
        free(replace ? replace->scratch : NULL);
        ol_request_release(parent);
        return rc;
    }
    recv_req->parent = parent;
    parent->bounce = recv_req; /* released when the parent completes */
    rc = ol_pt2pt_start(recv_req);
    if (rc == MPI_SUCCESS)
        rc = ol_pt2pt_prepare(OL_REQ_SEND,
                              &(ol_op_args_t){(void *)sendbuf, sendcount, sendtype, dest, sendtag,
                                              comm, OL_TAGSPACE_USER, OL_SEND_STANDARD},
                              &send_req);
    if (rc == MPI_SUCCESS) {
        send_req->parent = parent;
        ol_request_free_when_complete(send_req);
        rc = ol_pt2pt_start(send_req);
    }
    if (rc != MPI_SUCCESS) { /* the receive may still be in flight: take it back */
        ol_pt2pt_cancel(recv_req);
        ol_request_wait_complete(recv_req);
        ol_request_free_when_complete(recv_req);
        free(replace ? replace->scratch : NULL);
        ol_dt_release(parent->args.dt);
        parent->args.dt = NULL;
        ol_request_release(parent);
        return rc;
    }
    if (__atomic_sub_fetch(&parent->pending_children, 1, __ATOMIC_ACQ_REL) == 0)
        ol_request_complete(parent, MPI_SUCCESS);
    *request = parent;
    return MPI_SUCCESS;
}

int ol_api_isendrecv_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                       int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                       ol_datatype_t *recvtype, int source, int recvtag, ol_comm_t *comm,
                       MPI_Request *request)
{
    ol_request_t *req;
    int rc = start_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, comm, NULL, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

/* Sendrecv_replace receives into a packed scratch buffer and unpacks it
 * over the send buffer once both directions are done. */
static void replace_done(ol_request_t *parent)
{
    ol_request_t *recv = parent->bounce;
    ol_datatype_t *dt = parent->args.dt;
    copy_recv_status(parent);
    /* Only what arrived replaces the buffer: nothing from MPI_PROC_NULL. */
    MPI_Count arrived = dt->size ? ol_status_get_bytes(&recv->status) / (MPI_Count)dt->size : 0;
    if (recv->error == MPI_SUCCESS && arrived > 0) {
        ol_status_t rc = ol_pt2pt_unpack(recv->args.buf, parent->args.buf, arrived, dt);
        if (rc != OL_OK)
            parent->error = parent->status.MPI_ERROR = rc;
    }
    free(recv->args.buf);
    ol_request_free_when_complete(recv);
    parent->bounce = NULL;
}

static int start_replace(void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                         int sendtag, int source, int recvtag, ol_comm_t *comm,
                         ol_request_t **request)
{
    size_t bytes = (size_t)count * datatype->size;
    void *scratch = malloc(bytes ? bytes : 1);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    /* The scratch holds packed bytes: it is received as MPI_BYTE. */
    ol_datatype_t *byte = ol_dt_from_handle(MPI_BYTE);
    replace_t replace = {scratch, buf, count, datatype};
    return start_sendrecv(buf, count, datatype, dest, sendtag, scratch, (MPI_Count)bytes, byte,
                          source, recvtag, comm, &replace, request);
}

int ol_api_isendrecv_replace_c(void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                               int sendtag, int source, int recvtag, ol_comm_t *comm,
                               MPI_Request *request)
{
    ol_request_t *req;
    int rc = start_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_sendrecv_replace_c(void *buf, MPI_Count count, ol_datatype_t *datatype, int dest,
                              int sendtag, int source, int recvtag, ol_comm_t *comm,
                              MPI_Status *status)
{
    ol_request_t *req;
    int rc = start_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return ol_pt2pt_wait(req, status);
}

/* ---- probes and matched receives ----------------------------------------- */

int ol_api_probe(int source, int tag, ol_comm_t *comm, MPI_Status *status)
{
    return ol_pt2pt_probe(source, tag, comm, false, NULL, status);
}

int ol_api_iprobe(int source, int tag, ol_comm_t *comm, int *flag, MPI_Status *status)
{
    return ol_pt2pt_iprobe(source, tag, comm, false, flag, NULL, status);
}

int ol_api_mprobe(int source, int tag, ol_comm_t *comm, MPI_Message *message, MPI_Status *status)
{
    ol_message_t *m;
    int rc = ol_pt2pt_probe(source, tag, comm, true, &m, status);
    if (rc == MPI_SUCCESS)
        *message = ol_message_to_handle(m);
    return rc;
}

int ol_api_improbe(int source, int tag, ol_comm_t *comm, int *flag, MPI_Message *message,
                   MPI_Status *status)
{
    ol_message_t *m = NULL;
    int rc = ol_pt2pt_iprobe(source, tag, comm, true, flag, &m, status);
    if (rc == MPI_SUCCESS && *flag)
        *message = ol_message_to_handle(m);
    return rc;
}

static int take_message(MPI_Message *handle, ol_message_t **message)
{
    *message = ol_message_from_handle(*handle);
    if (!*message) {
        ol_api_set_detail("message is MPI_MESSAGE_NULL or not a message of MPI_Mprobe");
        return MPI_ERR_REQUEST;
    }
    *handle = MPI_MESSAGE_NULL; /* the receive consumes it */
    if (ol_message_comm(*message))
        ol_api_set_error_comm(ol_message_comm(*message));
    return MPI_SUCCESS;
}

int ol_api_imrecv_c(void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Message *message,
                    MPI_Request *request)
{
    ol_message_t *m;
    int rc = take_message(message, &m);
    ol_request_t *req;
    if (rc == MPI_SUCCESS)
        rc = ol_pt2pt_imrecv(buf, count, datatype, m, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_mrecv_c(void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Message *message,
                   MPI_Status *status)
{
    ol_message_t *m;
    int rc = take_message(message, &m);
    ol_request_t *req;
    if (rc == MPI_SUCCESS)
        rc = ol_pt2pt_imrecv(buf, count, datatype, m, &req);
    if (rc == MPI_SUCCESS)
        rc = ol_pt2pt_wait(req, status);
    return rc;
}

/* ---- counts ------------------------------------------------------------- */

static MPI_Count count_of(const MPI_Status *status, const ol_datatype_t *dt)
{
    MPI_Count bytes = ol_status_get_bytes(status);
    if (dt->size == 0)
        return bytes == 0 ? 0 : MPI_UNDEFINED;
    return bytes % (MPI_Count)dt->size ? MPI_UNDEFINED : bytes / (MPI_Count)dt->size;
}

int ol_api_get_count_c(const MPI_Status *status, ol_datatype_t *datatype, MPI_Count *count)
{
    *count = count_of(status, datatype);
    return MPI_SUCCESS;
}

int ol_api_get_count(const MPI_Status *status, ol_datatype_t *datatype, int *count)
{
    MPI_Count c = count_of(status, datatype);
    *count = c > INT32_MAX ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

/* ---- buffers for buffered sends ------------------------------------------ */

/* The attach, detach and iflush of every buffer slot: the process's, a
 * communicator's, a session's (session.c). */
int ol_api_buffer_attach_to(ol_bsend_buffer_t **slot, void *buffer, MPI_Count size)
{
    if (size < 0) {
        ol_api_set_detail("size is %lld, a buffer size must not be negative", (long long)size);
        return MPI_ERR_ARG;
    }
    return ol_bsend_attach(slot, buffer, size);
}

int ol_api_buffer_detach_int(ol_bsend_buffer_t **slot, void *buffer_addr, int *size)
{
    MPI_Count big;
    int rc = ol_bsend_detach(slot, (void **)buffer_addr, &big);
    if (rc == MPI_SUCCESS)
        *size = big > INT32_MAX ? MPI_UNDEFINED : (int)big;
    return rc;
}

int ol_api_buffer_iflush_of(ol_bsend_buffer_t **slot, MPI_Request *request)
{
    ol_request_t *req;
    int rc = ol_bsend_iflush(slot, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_buffer_attach_c(void *buffer, MPI_Count size)
{
    return ol_api_buffer_attach_to(ol_bsend_slot(NULL), buffer, size);
}

int ol_api_buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return ol_bsend_detach(ol_bsend_slot(NULL), (void **)buffer_addr, size);
}

int ol_api_buffer_detach(void *buffer_addr, int *size)
{
    return ol_api_buffer_detach_int(ol_bsend_slot(NULL), buffer_addr, size);
}

int ol_api_buffer_flush(void)
{
    return ol_bsend_flush(ol_bsend_slot(NULL));
}

int ol_api_buffer_iflush(MPI_Request *request)
{
    return ol_api_buffer_iflush_of(ol_bsend_slot(NULL), request);
}

int ol_api_comm_attach_buffer_c(ol_comm_t *comm, void *buffer, MPI_Count size)
{
    return ol_api_buffer_attach_to(ol_bsend_slot(comm), buffer, size);
}

int ol_api_comm_detach_buffer_c(ol_comm_t *comm, void *buffer_addr, MPI_Count *size)
{
    return ol_bsend_detach(ol_bsend_slot(comm), (void **)buffer_addr, size);
}

int ol_api_comm_detach_buffer(ol_comm_t *comm, void *buffer_addr, int *size)
{
    return ol_api_buffer_detach_int(ol_bsend_slot(comm), buffer_addr, size);
}

int ol_api_comm_flush_buffer(ol_comm_t *comm)
{
    return ol_bsend_flush(ol_bsend_slot(comm));
}

int ol_api_comm_iflush_buffer(ol_comm_t *comm, MPI_Request *request)
{
    return ol_api_buffer_iflush_of(ol_bsend_slot(comm), request);
}
