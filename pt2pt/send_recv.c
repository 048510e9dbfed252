/* Sends and receives of contiguous data over UCX tag matching. */
#include "endpoint.h"
#include "ol_log.h"
#include "pt2pt.h"

#include <string.h>

/* Lives in the space UCX reserves in front of each of its requests. */
struct ol_pt2pt_request {
    volatile int completed;
    ucs_status_t status;
    ucp_tag_t sender_tag;
    size_t length;
};

static void request_init(void *request)
{
    struct ol_pt2pt_request *req = request;
    req->completed = 0;
}

const ol_rt_request_spec_t ol_pt2pt_request_spec = {
    .request_size = sizeof(struct ol_pt2pt_request),
    .request_init = request_init,
};

ol_status_t ol_pt2pt_init(void)
{
    return ol_ep_init();
}

void ol_pt2pt_finalize(void)
{
    ol_ep_close_all();
}

void ol_status_set_bytes(MPI_Status *status, MPI_Count bytes)
{
    /* MPI_internal[0..1] hold the received byte count, [2] the cancelled flag. */
    memcpy(&status->MPI_internal[0], &bytes, sizeof(bytes));
}

MPI_Count ol_status_get_bytes(const MPI_Status *status)
{
    MPI_Count bytes;
    memcpy(&bytes, &status->MPI_internal[0], sizeof(bytes));
    return bytes;
}

void ol_status_set_empty(MPI_Status *status)
{
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    ol_status_set_bytes(status, 0);
    status->MPI_internal[2] = 0;
}

static ol_status_t status_from_ucs(ucs_status_t st)
{
    switch (st) {
    case UCS_OK: return OL_OK;
    case UCS_ERR_MESSAGE_TRUNCATED: return MPI_ERR_TRUNCATE;
    case UCS_ERR_NO_MEMORY: return MPI_ERR_NO_MEM;
    case UCS_ERR_CANCELED: return OL_OK;
    default: return MPI_ERR_OTHER;
    }
}

static void send_complete(void *request, ucs_status_t status, void *user_data)
{
    (void)user_data;
    struct ol_pt2pt_request *req = request;
    req->status = status;
    req->completed = 1;
}

static void recv_complete(void *request, ucs_status_t status, const ucp_tag_recv_info_t *info,
                          void *user_data)
{
    (void)user_data;
    struct ol_pt2pt_request *req = request;
    req->status = status;
    req->sender_tag = info->sender_tag;
    req->length = info->length;
    req->completed = 1;
}

static bool request_completed(void *request)
{
    return ((struct ol_pt2pt_request *)request)->completed;
}

static size_t bytes_of(MPI_Count count, const ol_datatype_t *dt)
{
    return (size_t)count * dt->size;
}

static ol_status_t start_send(const void *buf, MPI_Count count, const ol_datatype_t *dt, int dest,
                              int tag, ol_comm_t *comm, ol_tagspace_t space,
                              ol_pt2pt_request_t **request)
{
    ucp_ep_h ep;
    ol_status_t rc = ol_ep_get(ol_comm_world_rank(comm, dest), &ep);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK,
        .cb.send = send_complete,
    };
    ucp_tag_t ucx_tag = ol_tag_make(comm->context_id, space, comm->rank, tag);
    void *req = ucp_tag_send_nbx(ep, buf, bytes_of(count, dt), ucx_tag, &param);
    if (OL_UNLIKELY(UCS_PTR_IS_ERR(req)))
        return status_from_ucs(UCS_PTR_STATUS(req));
    *request = req;
    return OL_OK;
}

static ol_status_t start_recv(void *buf, MPI_Count count, const ol_datatype_t *dt, int source,
                              int tag, ol_comm_t *comm, ol_tagspace_t space,
                              ol_pt2pt_request_t **request)
{
    ucp_tag_t mask = ~(ucp_tag_t)0;
    if (source == MPI_ANY_SOURCE) {
        mask &= ~OL_SOURCE_MASK;
        source = 0;
    }
    if (tag == MPI_ANY_TAG) {
        mask &= ~OL_TAG_MASK;
        tag = 0;
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = recv_complete,
    };
    ucp_tag_t ucx_tag = ol_tag_make(comm->context_id, space, source, tag);
    void *req = ucp_tag_recv_nbx(ol_rt.ucp_worker, buf, bytes_of(count, dt), ucx_tag, mask, &param);
    if (OL_UNLIKELY(UCS_PTR_IS_ERR(req)))
        return status_from_ucs(UCS_PTR_STATUS(req));
    *request = req;
    return OL_OK;
}

ol_status_t ol_pt2pt_isend(const void *buf, MPI_Count count, const ol_datatype_t *dt, int dest,
                           int tag, ol_comm_t *comm, ol_tagspace_t space,
                           ol_pt2pt_request_t **request)
{
    *request = NULL;
    if (dest == MPI_PROC_NULL)
        return OL_OK;
    return start_send(buf, count, dt, dest, tag, comm, space, request);
}

ol_status_t ol_pt2pt_irecv(void *buf, MPI_Count count, const ol_datatype_t *dt, int source,
                           int tag, ol_comm_t *comm, ol_tagspace_t space,
                           ol_pt2pt_request_t **request)
{
    *request = NULL;
    if (source == MPI_PROC_NULL)
        return OL_OK;
    return start_recv(buf, count, dt, source, tag, comm, space, request);
}

static void fill_recv_status(const struct ol_pt2pt_request *req, ol_status_t rc,
                             MPI_Status *status)
{
    status->MPI_SOURCE = ol_tag_source(req->sender_tag);
    status->MPI_TAG = ol_tag_mpi_tag(req->sender_tag);
    status->MPI_ERROR = rc;
    status->MPI_internal[2] = 0;
    ol_status_set_bytes(status, (MPI_Count)req->length);
}

ol_status_t ol_pt2pt_wait(ol_pt2pt_request_t *request, MPI_Status *status)
{
    if (!request) { /* completed at once, or MPI_PROC_NULL */
        if (status)
            ol_status_set_empty(status);
        return OL_OK;
    }
    if (!request->completed)
        ol_progress_wait(request_completed, request);
    ol_status_t rc = status_from_ucs(request->status);
    if (status)
        fill_recv_status(request, rc, status);
    request->completed = 0; /* UCX reuses the request without calling init */
    ucp_request_free(request);
    return rc;
}

void ol_pt2pt_cancel(ol_pt2pt_request_t *request)
{
    if (!request)
        return;
    ucp_request_cancel(ol_rt.ucp_worker, request);
    ol_pt2pt_wait(request, NULL);
}

ol_status_t ol_pt2pt_send(const void *buf, MPI_Count count, const ol_datatype_t *dt, int dest,
                          int tag, ol_comm_t *comm, ol_tagspace_t space)
{
    if (dest == MPI_PROC_NULL)
        return OL_OK;
    ol_pt2pt_request_t *req = NULL;
    ol_status_t rc = start_send(buf, count, dt, dest, tag, comm, space, &req);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    return ol_pt2pt_wait(req, NULL);
}

ol_status_t ol_pt2pt_recv(void *buf, MPI_Count count, const ol_datatype_t *dt, int source,
                          int tag, ol_comm_t *comm, ol_tagspace_t space, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        if (status)
            ol_status_set_empty(status);
        return OL_OK;
    }
    ol_pt2pt_request_t *req = NULL;
    ol_status_t rc = start_recv(buf, count, dt, source, tag, comm, space, &req);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    return ol_pt2pt_wait(req, status);
}
