/* Probes and matched receives (MPI_Probe, MPI_Mprobe, MPI_Mrecv). A matched
 * probe takes the message out of matching at once, so no other receive
 * can take it before MPI_Mrecv. */
#include "device.h"
#include "match.h"
#include "ucx_datatype.h"
#include "ucx_ops.h"

#include <stdlib.h>

struct ol_message {
    ol_match_message_t taken;       /* NULL: MPI_MESSAGE_NO_PROC */
    ucp_tag_recv_info_t info;
    ol_comm_t *comm;                /* probed on; NULL: MPI_MESSAGE_NO_PROC */
};

ol_comm_t *ol_message_comm(const ol_message_t *message)
{
    return message->comm;
}

static ol_message_t message_no_proc;

ol_message_t *ol_message_from_handle(MPI_Message handle)
{
    if (handle == MPI_MESSAGE_NO_PROC)
        return &message_no_proc;
    if ((uintptr_t)handle < 4096)
        return NULL; /* MPI_MESSAGE_NULL */
    return (ol_message_t *)handle;
}

MPI_Message ol_message_to_handle(ol_message_t *message)
{
    return message == &message_no_proc ? MPI_MESSAGE_NO_PROC : (MPI_Message)message;
}

/* The status of a probed message. For the announcement of a message from
 * device memory, the size comes from its control message, fetched ahead. */
static ol_status_t status_of_message(MPI_Status *status, const ucp_tag_recv_info_t *info)
{
    size_t bytes = info->length;
    if (OL_UNLIKELY(ol_tag_is_device_announce(info->sender_tag))) {
        ol_status_t rc = ol_dev_announced_bytes(info->sender_tag, &bytes);
        if (rc != OL_OK)
            return rc;
    }
    if (status) {
        ol_ucx_fill_recv_status(status, info, UCS_OK);
        ol_status_set_bytes(status, (MPI_Count)bytes);
    }
    return OL_OK;
}

/* One look at UCX's unexpected messages, after progressing once. */
static ol_status_t probe_once(int source, int tag, ol_comm_t *comm, bool remove, int *flag,
                              ol_message_t **message, MPI_Status *status)
{
    ucp_tag_t ucx_tag, mask;
    ucp_tag_recv_info_t info;
    ol_ucx_match_of(comm, OL_TAGSPACE_USER, source, tag, &ucx_tag, &mask);
    ol_match_message_t found = ol_match_probe(ucx_tag, mask, remove, &info);
    *flag = found != NULL;
    if (!found)
        return OL_OK;
    ol_status_t rc = status_of_message(status, &info);
    if (rc != OL_OK)
        return rc; /* a matched message stays in matching; only a device fetch fails here */
    if (remove) {
        ol_message_t *m = malloc(sizeof(*m));
        if (!m)
            return MPI_ERR_NO_MEM; /* cannot happen without losing the message */
        m->taken = found;
        m->info = info;
        m->comm = comm;
        *message = m;
    }
    return OL_OK;
}

ol_status_t ol_pt2pt_iprobe(int source, int tag, ol_comm_t *comm, bool remove, int *flag,
                            ol_message_t **message, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        if (status)
            ol_status_set_proc_null(status);
        if (remove)
            *message = &message_no_proc;
        return OL_OK;
    }
    int events = ol_progress();
    ol_status_t rc = probe_once(source, tag, comm, remove, flag, message, status);
    if (rc == OL_OK && !*flag && events == 0)
        ol_poll_found_nothing();
    return rc;
}

ol_status_t ol_pt2pt_iprobe_arrived(int source, int tag, ol_comm_t *comm, bool remove, int *flag,
                                    ol_message_t **message, MPI_Status *status)
{
    return probe_once(source, tag, comm, remove, flag, message, status);
}

typedef struct {
    int source, tag;
    ol_comm_t *comm;
    bool remove;
    int flag;
    ol_message_t **message;
    MPI_Status *status;
    ol_status_t rc;
} probe_wait_t;

/* A matched probe takes the message it finds out of matching: the wait
 * looks no more once a look has found it (ol_progress_wait). */
static bool probe_found(void *arg)
{
    probe_wait_t *p = arg;
    p->rc = probe_once(p->source, p->tag, p->comm, p->remove, &p->flag, p->message, p->status);
    return p->flag || p->rc != OL_OK;
}

ol_status_t ol_pt2pt_probe(int source, int tag, ol_comm_t *comm, bool remove,
                           ol_message_t **message, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        int flag;
        return ol_pt2pt_iprobe(source, tag, comm, remove, &flag, message, status);
    }
    probe_wait_t p = {source, tag, comm, remove, 0, message, status, OL_OK};
    ol_progress_wait(probe_found, &p);
    return p.rc;
}

static void drained(void *ucx_req, ucs_status_t st, const ucp_tag_recv_info_t *info,
                    void *user_data)
{
    (void)st;
    (void)info;
    free(user_data);
    ol_match_request_free(ucx_req);
}

/* A matched message whose receive failed before it started (a bad buffer)
 * is still taken, into memory of our own, so that its sender completes. */
static void drain(ol_message_t *message)
{
    void *sink = malloc(message->info.length ? message->info.length : 1);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = drained,
        .user_data = sink,
    };
    /* Without memory, a zero-length receive still ends the sender's wait
     * (the data is cut off: truncation). */
    ol_ucx_data_t data;
    ol_ucx_describe_bytes(sink, sink ? message->info.length : 0, &data);
    void *r = ol_match_msg_recv(&data, message->taken, &param);
    if (UCS_PTR_IS_ERR(r))
        free(sink);
    free(message);
}

ol_status_t ol_pt2pt_imrecv(void *buf, MPI_Count count, ol_datatype_t *dt, ol_message_t *message,
                            ol_request_t **request)
{
    ol_op_args_t args = {buf, count, dt, MPI_PROC_NULL, 0, message->comm, OL_TAGSPACE_USER,
                         OL_SEND_STANDARD};
    ol_status_t rc = ol_pt2pt_prepare(OL_REQ_RECV, &args, request);
    if (rc != OL_OK)
        return rc;
    ol_request_t *req = *request;
    if (message == &message_no_proc) {
        ol_status_set_proc_null(&req->status);
        ol_request_complete(req, OL_OK);
        return OL_OK;
    }
    /* An announcement is received as the empty message it is; the device
     * protocol then brings the data (ol_ucx_recv_done). */
    ol_ucx_data_t data = {ucp_dt_make_contig(1), NULL, 0, NULL, NULL};
    if (!ol_tag_is_device_announce(message->info.sender_tag))
        rc = ol_ucx_describe_recv(req, &data);
    if (rc != OL_OK) {
        ol_ucx_forget_recv(req);
        drain(message);
        ol_request_release(req);
        return rc;
    }
    req->sender_tag = message->info.sender_tag; /* see ol_ucx_post_receive */
    req->sender_known = true;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = ol_ucx_recv_done,
        .user_data = req,
        .datatype = data.datatype,
    };
    void *ucx_req = ol_match_msg_recv(&data, message->taken, &param);
    free(message);
    if (UCS_PTR_IS_ERR(ucx_req)) {
        ol_ucx_forget_recv(req);
        ol_request_release(req);
        return ol_ucx_status(UCS_PTR_STATUS(ucx_req));
    }
    if (!ol_request_is_complete(req) && !req->matched)
        req->ucx_request = ucx_req;
    return OL_OK;
}
