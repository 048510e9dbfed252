/* Sends and receives over UCX tag matching: blocking calls without request
 * objects, nonblocking and persistent ones with them. */
#include "device.h"
#include "endpoint.h"
#include "match.h"
#include "ol_log.h"
#include "path_counters.h"
#include "pt2pt.h"
#include "shm_copy.h"
#include "ucx_datatype.h"
#include "ucx_ops.h"

#include <string.h>

/* UCX's own request space holds nothing of ours: completion goes to the
 * ol_request_t passed as user data. */
const ol_rt_request_spec_t ol_pt2pt_request_spec = {.request_size = 0, .request_init = NULL};

void ol_pt2pt_params_load(void)
{
    ol_ucx_datatype_params_load();
    ol_dev_params_load();
    ol_match_params_load();
}

void ol_pt2pt_params_print(FILE *out)
{
    ol_ucx_datatype_params_print(out);
    ol_dev_params_print(out);
    ol_match_params_print(out);
}

ol_status_t ol_pt2pt_init(void)
{
    ol_ucx_datatype_init();
    ol_pt2pt_params_load();
    ol_status_t rc = ol_ep_init();
    return rc == OL_OK ? ol_match_init() : rc;
}

/* Nonblocking sends that UCX still holds. MPI_Finalize lets them end: a
 * send freed by MPI_Request_free, or never waited for, may still wait for
 * its receiver's answer to a rendezvous, which a message over the
 * same-host rings can overtake. */
static int sends_in_flight;

typedef struct {
    double deadline;
} sends_wait_t;

/* At most a second: a send no receive ever matches never ends. */
static bool sends_ended(void *arg)
{
    const sends_wait_t *w = arg;
    return __atomic_load_n(&sends_in_flight, __ATOMIC_ACQUIRE) == 0 ||
           ol_rt_wtime() > w->deadline;
}

ol_p2p_path_counts_t ol_p2p_path_counts[OL_P2P_PATHS];

void ol_pt2pt_counters(ol_pt2pt_counters_t *c)
{
    c->ring_messages_sent = ol_match_messages_sent();
    ol_shm_copy_written(&c->copy_chunks_written, &c->copy_bytes_written);
    int in_flight = __atomic_load_n(&sends_in_flight, __ATOMIC_RELAXED);
    c->sends_in_flight = in_flight > 0 ? (unsigned)in_flight : 0;
    c->backlogged_peers = ol_match_backlogged_peers();
    for (int p = 0; p < OL_P2P_PATHS; p++) {
        const ol_p2p_path_counts_t *from = &ol_p2p_path_counts[p];
        c->paths[p] = (ol_p2p_path_counts_t){ol_counter_read(&from->messages_sent),
                                             ol_counter_read(&from->bytes_sent),
                                             ol_counter_read(&from->messages_received),
                                             ol_counter_read(&from->bytes_received)};
    }
    ol_match_queue_levels(&c->unexpected, &c->unexpected_high_water, &c->posted);
}

void ol_pt2pt_finalize(void)
{
    sends_wait_t wait = {ol_rt_wtime() + 1.0};
    ol_progress_wait(sends_ended, &wait);
    ol_bsend_finalize();
    ol_dev_finalize();
    ol_match_finalize();
    ol_ep_close_all();
    ol_ucx_datatype_finalize();
}

void ol_status_set_bytes(MPI_Status *status, MPI_Count bytes)
{
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
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    ol_status_set_bytes(status, 0);
    ol_status_set_cancelled(status, false);
}

void ol_status_set_proc_null(MPI_Status *status)
{
    ol_status_set_empty(status);
    status->MPI_SOURCE = MPI_PROC_NULL;
}

ol_status_t ol_ucx_status(ucs_status_t st)
{
    switch (st) {
    case UCS_OK: return OL_OK;
    case UCS_ERR_CANCELED: return OL_OK; /* reported through the status */
    case UCS_ERR_MESSAGE_TRUNCATED: return MPI_ERR_TRUNCATE;
    case UCS_ERR_NO_MEMORY: return MPI_ERR_NO_MEM;
    default: return MPI_ERR_OTHER;
    }
}

void ol_ucx_fill_recv_status(MPI_Status *status, const ucp_tag_recv_info_t *info,
                             ucs_status_t st)
{
    if (st == UCS_ERR_CANCELED) { /* nothing arrived */
        ol_status_set_empty(status);
        ol_status_set_cancelled(status, true);
        return;
    }
    status->MPI_SOURCE = ol_tag_source(info->sender_tag);
    status->MPI_TAG = ol_tag_mpi_tag(info->sender_tag);
    status->MPI_ERROR = ol_ucx_status(st);
    ol_status_set_bytes(status, (MPI_Count)info->length);
    ol_status_set_cancelled(status, false);
}

/* ---- the receive mask of MPI matching ---------------------------------- */

void ol_ucx_match_of(const ol_comm_t *comm, ol_tagspace_t space, int source, int tag,
                     ucp_tag_t *ucx_tag, ucp_tag_t *mask)
{
    /* Data, or the announcement of device data: a mask with a hole, which
     * UCX matches on a slower queue than full masks; without device
     * messages the mask stays full. */
    *mask = ol_dev_messages ? ~(ucp_tag_t)OL_DEVICE_MASK : ~(ucp_tag_t)0;
    if (space == OL_TAGSPACE_PART) /* never from device memory (tag_layout.h) */
        *mask = ~(ucp_tag_t)0;
    if (source == MPI_ANY_SOURCE) {
        *mask &= ~OL_SOURCE_MASK;
        source = 0;
    }
    if (tag == MPI_ANY_TAG) {
        *mask &= ~OL_TAG_MASK;
        tag = 0;
    }
    *ucx_tag = ol_tag_make(comm->context_id, space, ol_comm_tag_rank(comm, source), tag);
}

/* The world rank a receive from source takes messages of, or -1 for any. */
static int world_source(const ol_comm_t *comm, int source)
{
    return source == MPI_ANY_SOURCE ? -1 : ol_comm_world_rank(comm, source);
}

/* ---- UCX completion callbacks ------------------------------------------ */

/* A send's bounce buffer goes back to the pool before the request
 * completes: a completed request may be released at once. */
static void send_complete(ol_request_t *req, ol_status_t error)
{
    ol_ucx_bounce_put(req->ucx_bounce);
    req->ucx_bounce = NULL;
    ol_request_complete(req, error);
}

static void send_done(void *ucx_request, ucs_status_t st, void *user_data)
{
    __atomic_sub_fetch(&sends_in_flight, 1, __ATOMIC_RELEASE);
    ol_match_request_free(ucx_request);
    send_complete(user_data, ol_ucx_status(st));
}

static void device_message_done(void *ctx, ol_status_t error, size_t bytes)
{
    ol_request_t *req = ctx;
    ol_status_set_bytes(&req->status, (MPI_Count)bytes);
    req->status.MPI_ERROR = error;
    ol_request_complete(req, error);
}

/* A receive that involves device memory: an announcement matched (the data
 * follows by the device protocol), or host data landed in the pinned buffer
 * of a receive into device memory. */
static void recv_device_continue(ol_request_t *req, ucs_status_t st, uint64_t sender_tag)
{
    const ol_op_args_t *a = &req->args;
    void *landing = req->landing;
    req->landing = NULL;
    if (st == UCS_OK && ol_tag_is_device_announce(sender_tag)) {
        ol_dev_landing_free(landing);
        req->matched = true;
        req->ucx_request = NULL;
        ol_dev_recv_announced(a->buf, a->count, a->dt, sender_tag, device_message_done, req);
        return;
    }
    if (landing && req->status.MPI_ERROR == MPI_SUCCESS && !ol_status_is_cancelled(&req->status))
        req->status.MPI_ERROR = ol_dev_landing_finish(landing, a->buf, a->count, a->dt,
                                                      (size_t)ol_status_get_bytes(&req->status));
    ol_dev_landing_free(landing);
    ol_request_complete(req, req->status.MPI_ERROR);
}

void ol_ucx_recv_done(void *ucx_request, ucs_status_t st, const ucp_tag_recv_info_t *info,
                      void *user_data)
{
    ol_request_t *req = user_data;
    ucp_tag_recv_info_t arrived = *info; /* info lives in the UCX request */
    if (req->sender_known)
        arrived.sender_tag = req->sender_tag;
    ol_match_count_ucx_received(&arrived, st, req->args.comm);
    ol_ucx_fill_recv_status(&req->status, &arrived, st);
    uint64_t sender_tag = st == UCS_OK ? arrived.sender_tag : 0;
    ol_match_request_free(ucx_request);
    if (req->ucx_bounce) { /* an announcement is empty: it unpacks nothing */
        const ol_op_args_t *a = &req->args;
        ol_ucx_bounce_finish(req->ucx_bounce, a->buf, a->count, a->dt, st, arrived.length);
        req->ucx_bounce = NULL;
    }
    if (OL_UNLIKELY(req->landing || ol_tag_is_device_announce(sender_tag))) {
        recv_device_continue(req, st, sender_tag);
        return;
    }
    ol_request_complete(req, req->status.MPI_ERROR);
}

/* How a receive into (buf, count, dt) is handed to UCX: the user's memory,
 * a bounce buffer, or, for device memory, a pinned host buffer that the
 * data lands in. */
ol_status_t ol_ucx_describe_recv(ol_request_t *req, ol_ucx_data_t *data)
{
    const ol_op_args_t *a = &req->args;
    if (OL_LIKELY(!ol_dev_buffer(a->buf, a->count, a->dt))) {
        ol_status_t rc = ol_ucx_describe(a->dt, a->buf, a->count, OL_UCX_RECV, data);
        req->ucx_bounce = data->bounce;
        return rc;
    }
    size_t capacity = (size_t)a->count * a->dt->size;
    ol_status_t rc = ol_accel_check_device(ol_dt_data_at(a->buf, a->dt), capacity);
    if (rc != OL_OK)
        return rc;
    req->landing = ol_dev_landing_alloc(capacity);
    if (!req->landing)
        return MPI_ERR_NO_MEM;
    ol_ucx_describe_bytes(ol_dev_landing_data(req->landing), capacity, data);
    data->bounce = NULL;
    return OL_OK;
}

void ol_ucx_forget_recv(ol_request_t *req)
{
    ol_dev_landing_free(req->landing);
    req->landing = NULL;
    ol_ucx_bounce_put(req->ucx_bounce);
    req->ucx_bounce = NULL;
}

/* ---- starting operations on a request ---------------------------------- */

static ol_status_t start_send(ol_request_t *req)
{
    const ol_op_args_t *a = &req->args;
    if (a->peer == MPI_PROC_NULL) {
        ol_request_complete(req, OL_OK);
        return OL_OK;
    }
    if (a->mode == OL_SEND_BUFFERED) { /* completes once the data is copied */
        ol_status_t rc = ol_bsend_start(a, &req->ring_seq);
        if (rc == OL_OK)
            ol_request_complete(req, OL_OK);
        return rc;
    }
    ucp_ep_h ep;
    ol_ucx_data_t data;
    ucp_tag_t tag = ol_tag_make(a->comm->context_id, a->space,
                                ol_comm_tag_rank(a->comm, a->comm->rank), a->tag);
    int peer = ol_comm_world_rank(a->comm, a->peer);
    ol_status_t rc = ol_ep_get(peer, &ep);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    if (OL_UNLIKELY(ol_dev_buffer(a->buf, a->count, a->dt)))
        return ol_dev_send_start(req, ep, tag);
    rc = ol_ucx_describe(a->dt, a->buf, a->count, OL_UCX_SEND, &data);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    req->ucx_bounce = data.bounce;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE,
        .cb.send = send_done,
        .user_data = req,
        .datatype = data.datatype,
    };
    void *ucx_req = ol_match_send(ep, peer, &data, tag, a->mode == OL_SEND_SYNCHRONOUS, false,
                                  &param, &req->ring_seq);
    if (ucx_req == NULL) {
        send_complete(req, OL_OK);
    } else if (UCS_PTR_IS_ERR(ucx_req)) {
        ol_ucx_bounce_put(req->ucx_bounce);
        req->ucx_bounce = NULL;
        return ol_ucx_status(UCS_PTR_STATUS(ucx_req));
    } else {
        __atomic_add_fetch(&sends_in_flight, 1, __ATOMIC_RELAXED);
        req->ucx_request = ucx_req;
    }
    return OL_OK;
}

static ol_status_t start_recv(ol_request_t *req)
{
    const ol_op_args_t *a = &req->args;
    if (a->peer == MPI_PROC_NULL) {
        ol_status_set_proc_null(&req->status);
        ol_request_complete(req, OL_OK);
        return OL_OK;
    }
    ol_ucx_data_t data;
    ol_status_t rc = ol_ucx_describe_recv(req, &data);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    /* Always through the callback: UCX up to 1.15 returns NULL for a receive
     * that completes at once (an eager message already unexpected) without
     * filling param->recv_info (openucx/ucx issue 9425, fixed by PR 9440
     * for 1.16); re-checked on 1.13.1: length and sender_tag stay unwritten,
     * also on truncation. The request this costs is taken while the receive
     * waits, not on a ping-pong's critical path. */
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = ol_ucx_recv_done,
        .user_data = req,
        .datatype = data.datatype,
    };
    ucp_tag_t tag, mask;
    ol_ucx_match_of(a->comm, a->space, a->peer, a->tag, &tag, &mask);
    void *ucx_req = ol_match_recv(&data, world_source(a->comm, a->peer), tag, mask, &param,
                                  &req->sender_tag, &req->sender_known);
    if (UCS_PTR_IS_ERR(ucx_req)) {
        ol_ucx_forget_recv(req);
        return ol_ucx_status(UCS_PTR_STATUS(ucx_req));
    }
    /* The callback may already have run inside ol_match_recv. */
    if (!ol_request_is_complete(req) && !req->matched)
        req->ucx_request = ucx_req;
    return OL_OK;
}

ol_status_t ol_pt2pt_prepare(ol_request_kind_t kind, const ol_op_args_t *args,
                             ol_request_t **request)
{
    ol_request_t *req = ol_request_alloc(kind);
    if (!req)
        return MPI_ERR_NO_MEM;
    req->args = *args;
    if (args->dt)
        ol_dt_retain(args->dt);
    *request = req;
    return OL_OK;
}

ol_status_t ol_pt2pt_start(ol_request_t *req)
{
    req->complete = 0;
    req->active = true;
    req->error = OL_OK;
    req->ring_seq = 0;
    ol_status_set_cancelled(&req->status, false);
    req->matched = false;
    req->sender_known = false;
    req->ucx_request = NULL;
    if (req->kind == OL_REQ_PART)
        return ol_part_start(req);
    return req->kind == OL_REQ_SEND ? start_send(req) : start_recv(req);
}

static ol_status_t prepare_and_start(ol_request_kind_t kind, const ol_op_args_t *args,
                                     ol_request_t **request)
{
    ol_status_t rc = ol_pt2pt_prepare(kind, args, request);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    rc = ol_pt2pt_start(*request);
    if (OL_UNLIKELY(rc != OL_OK)) {
        ol_request_release(*request);
        *request = NULL;
    }
    return rc;
}

ol_status_t ol_pt2pt_isend(const void *buf, MPI_Count count, ol_datatype_t *dt, int dest, int tag,
                           ol_comm_t *comm, ol_tagspace_t space, ol_send_mode_t mode,
                           ol_request_t **request)
{
    ol_op_args_t args = {(void *)buf, count, dt, dest, tag, comm, space, mode};
    return prepare_and_start(OL_REQ_SEND, &args, request);
}

ol_status_t ol_pt2pt_irecv(void *buf, MPI_Count count, ol_datatype_t *dt, int source, int tag,
                           ol_comm_t *comm, ol_tagspace_t space, ol_request_t **request)
{
    ol_op_args_t args = {buf, count, dt, source, tag, comm, space, OL_SEND_STANDARD};
    return prepare_and_start(OL_REQ_RECV, &args, request);
}

/* A receive of count elements of dt that a longer message of `arrived`
 * bytes truncated: both sizes, for the error's sentence. */
static void truncation_detail(MPI_Count arrived, MPI_Count count, const ol_datatype_t *dt)
{
    MPI_Count room = count * (MPI_Count)dt->size;
    if (arrived > room)
        ol_error_detail("a message of %lld bytes arrived for a receive of %lld elements of %s "
                        "(%lld bytes)",
                        (long long)arrived, (long long)count, ol_dt_name(dt), (long long)room);
    else
        ol_error_detail("a message longer than the receive's %lld elements of %s (%lld bytes) "
                        "arrived",
                        (long long)count, ol_dt_name(dt), (long long)room);
}

void ol_pt2pt_explain(const ol_request_t *req)
{
    if (req->kind == OL_REQ_PART)
        ol_part_explain(req);
    if (req->error == MPI_ERR_TRUNCATE && req->kind == OL_REQ_RECV && req->args.dt)
        truncation_detail(ol_status_get_bytes(&req->status), req->args.count, req->args.dt);
}

ol_status_t ol_pt2pt_wait(ol_request_t *req, MPI_Status *status)
{
    ol_request_wait_complete(req);
    ol_status_t rc = req->error;
    if (OL_UNLIKELY(rc != OL_OK))
        ol_pt2pt_explain(req);
    if (status)
        *status = req->status;
    if (req->persistent)
        req->active = false;
    else
        ol_request_free_when_complete(req);
    return rc;
}

static bool send_ended(void *arg)
{
    return __atomic_load_n(&((ol_request_t *)arg)->complete, __ATOMIC_ACQUIRE);
}

/* A send to this rank itself is decided inside MPI_Cancel: the receives
 * and probes that could meet its message are this rank's own, so a status
 * that MPI_Cancel leaves undecided must mean that the message stays (a
 * receive posted then gets it). One taken back completes before
 * MPI_Cancel returns, on this rank's own progress alone; cancel_pending
 * keeps other threads from completing it as not cancelled meanwhile. */
static void cancel_own_send(ol_request_t *req, uint32_t seq)
{
    if (ol_match_cancel_own_send(seq)) {
        ol_status_set_cancelled(&req->status, true);
        if (!send_ended(req))
            ol_progress_wait(send_ended, req);
    }
    __atomic_store_n(&req->cancel_pending, false, __ATOMIC_RELEASE);
}

/* A send is taken back only from the unexpected queue of a receiver on
 * this host (match.h); the request stays incomplete until it answers. */
static void cancel_send(ol_request_t *req)
{
    /* Asked once, also by threads that cancel at once: a second MPI_Cancel
     * does nothing, and no second answer comes to a request that the first
     * let complete and be freed. */
    uint32_t seq = __atomic_exchange_n(&req->ring_seq, 0, __ATOMIC_ACQ_REL);
    if (seq == 0)
        return;
    __atomic_store_n(&req->cancel_pending, true, __ATOMIC_RELEASE);
    int peer = ol_comm_world_rank(req->args.comm, req->args.peer);
    if (peer == ol_rt.rank)
        cancel_own_send(req, seq);
    else if (!ol_match_cancel_send(peer, seq, req))
        __atomic_store_n(&req->cancel_pending, false, __ATOMIC_RELEASE);
}

void ol_match_cancel_answered(void *asker, bool taken_back)
{
    ol_request_t *req = asker;
    if (taken_back)
        ol_status_set_cancelled(&req->status, true);
    __atomic_store_n(&req->cancel_pending, false, __ATOMIC_RELEASE);
}

void ol_pt2pt_cancel(ol_request_t *req)
{
    void *ucx_req = req->ucx_request;
    if (req->kind == OL_REQ_SEND)
        cancel_send(req);
    else if (req->kind == OL_REQ_RECV && ucx_req && !req->matched && !ol_request_is_complete(req))
        ol_match_cancel(ucx_req);
}

/* ---- blocking calls ----------------------------------------------------- */

static bool ucx_request_done(void *ucx_req)
{
    return ol_match_request_status(ucx_req) != UCS_INPROGRESS;
}

/* The end of a send that UCX answered with ucx_req: done at once (NULL),
 * failed, or a request to wait for and free. */
static ucs_status_t wait_ucx_send(void *ucx_req)
{
    if (OL_LIKELY(ucx_req == NULL))
        return UCS_OK;
    if (UCS_PTR_IS_ERR(ucx_req))
        return UCS_PTR_STATUS(ucx_req);
    ol_progress_wait(ucx_request_done, ucx_req);
    ucs_status_t st = ol_match_request_status(ucx_req);
    ol_match_request_free(ucx_req);
    return st;
}

/* A blocking MPI_Send whose message its receiver has not begun to copy
 * after this many microseconds is moved aside by its sender, which goes on
 * (ol_match_send_move). Under the 5 us that a rank with a core of its own
 * spins before it may sleep, so that a sender never sleeps on a message it
 * could move; a receiver that waits in MPI takes the message well within
 * it (pt2pt/README.md, "By address above 8 KiB"). */
#define SEND_MOVE_US 4

typedef struct {
    void *request;
    double move_at; /* 0: not looked at the clock yet */
    bool moved;
} blocking_send_t;

static bool blocking_send_done(void *arg)
{
    blocking_send_t *b = arg;
    if (ol_match_request_status(b->request) != UCS_INPROGRESS)
        return true;
    double now = ol_rt_wtime();
    if (b->move_at == 0)
        b->move_at = now + 1e-6 * SEND_MOVE_US;
    return now >= b->move_at && (b->moved = ol_match_send_move(b->request));
}

/* wait_ucx_send for a blocking standard send; only a movable one looks
 * at the clock while it waits. */
static ucs_status_t wait_blocking_send(void *ucx_req)
{
    if (OL_LIKELY(ucx_req == NULL) || UCS_PTR_IS_ERR(ucx_req) ||
        !ol_match_send_movable(ucx_req))
        return wait_ucx_send(ucx_req);
    blocking_send_t b = {.request = ucx_req};
    ol_progress_wait(blocking_send_done, &b);
    ucs_status_t st = b.moved ? UCS_OK : ol_match_request_status(ucx_req);
    ol_match_request_free(ucx_req);
    return st;
}

static ol_status_t wait_nonblocking_send(const void *buf, MPI_Count count, ol_datatype_t *dt,
                                         int dest, int tag, ol_comm_t *comm, ol_tagspace_t space,
                                         ol_send_mode_t mode)
{
    ol_request_t *req;
    ol_status_t rc = ol_pt2pt_isend(buf, count, dt, dest, tag, comm, space, mode, &req);
    return rc == OL_OK ? ol_pt2pt_wait(req, NULL) : rc;
}

ol_status_t ol_pt2pt_send(const void *buf, MPI_Count count, ol_datatype_t *dt, int dest, int tag,
                          ol_comm_t *comm, ol_tagspace_t space, ol_send_mode_t mode)
{
    if (dest == MPI_PROC_NULL)
        return OL_OK;
    if (mode == OL_SEND_BUFFERED) {
        ol_op_args_t args = {(void *)buf, count, dt, dest, tag, comm, space, mode};
        uint32_t seq; /* a blocking send is never cancelled */
        return ol_bsend_start(&args, &seq);
    }
    if (OL_UNLIKELY(ol_dev_buffer(buf, count, dt))) /* the device protocol needs a request */
        return wait_nonblocking_send(buf, count, dt, dest, tag, comm, space, mode);
    ucp_ep_h ep;
    ol_ucx_data_t data;
    int peer = ol_comm_world_rank(comm, dest);
    ol_status_t rc = ol_ep_get(peer, &ep);
    if (OL_LIKELY(rc == OL_OK))
        rc = ol_ucx_describe(dt, buf, count, OL_UCX_SEND, &data);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                                 .datatype = data.datatype};
    ucp_tag_t ucx_tag = ol_tag_make(comm->context_id, space, ol_comm_tag_rank(comm, comm->rank),
                                    tag);
    uint32_t seq; /* a blocking send is never cancelled */
    void *ucx_req = ol_match_send(ep, peer, &data, ucx_tag, mode == OL_SEND_SYNCHRONOUS,
                                  mode == OL_SEND_STANDARD, &param, &seq);
    ucs_status_t st = mode == OL_SEND_STANDARD ? wait_blocking_send(ucx_req)
                                               : wait_ucx_send(ucx_req);
    ol_ucx_bounce_put(data.bounce);
    return OL_LIKELY(st == UCS_OK) ? OL_OK : ol_ucx_status(st);
}

/* A blocking receive completes into this, on the waiting thread's stack
 * (through the callback always: see start_recv). */
typedef struct {
    volatile int done;
    ucp_tag_recv_info_t info;
    ucs_status_t status;
    ol_status_t device_error;
    bool sender_known;
    uint64_t sender_tag;
    void *bounce;              /* see ol_ucx_describe */
    void *buf;
    MPI_Count count;
    ol_datatype_t *dt;
    const ol_comm_t *comm;
} blocking_recv_t;

static void blocking_device_done(void *ctx, ol_status_t error, size_t bytes)
{
    blocking_recv_t *r = ctx;
    r->info.length = bytes;
    r->device_error = error;
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static void blocking_recv_done(void *ucx_request, ucs_status_t st,
                               const ucp_tag_recv_info_t *info, void *user_data)
{
    blocking_recv_t *r = user_data;
    r->info = *info;
    if (r->sender_known)
        r->info.sender_tag = r->sender_tag;
    ol_match_count_ucx_received(&r->info, st, r->comm);
    r->status = st;
    ol_match_request_free(ucx_request);
    if (r->bounce) /* an announcement is empty: it unpacks nothing */
        ol_ucx_bounce_finish(r->bounce, r->buf, r->count, r->dt, st, r->info.length);
    if (OL_UNLIKELY(st == UCS_OK && ol_tag_is_device_announce(r->info.sender_tag))) {
        ol_dev_recv_announced(r->buf, r->count, r->dt, r->info.sender_tag, blocking_device_done,
                              r);
        return;
    }
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

static bool blocking_recv_complete(void *arg)
{
    return __atomic_load_n(&((blocking_recv_t *)arg)->done, __ATOMIC_ACQUIRE);
}

ol_status_t ol_pt2pt_recv(void *buf, MPI_Count count, ol_datatype_t *dt, int source, int tag,
                          ol_comm_t *comm, ol_tagspace_t space, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        if (status)
            ol_status_set_proc_null(status);
        return OL_OK;
    }
    if (OL_UNLIKELY(ol_dev_buffer(buf, count, dt))) { /* lands in host memory first */
        ol_request_t *req;
        ol_status_t rc = ol_pt2pt_irecv(buf, count, dt, source, tag, comm, space, &req);
        return rc == OL_OK ? ol_pt2pt_wait(req, status) : rc;
    }
    ol_ucx_data_t data;
    ol_status_t rc = ol_ucx_describe(dt, buf, count, OL_UCX_RECV, &data);
    if (OL_UNLIKELY(rc != OL_OK))
        return rc;
    blocking_recv_t r = {.done = 0, .status = UCS_OK, .device_error = OL_OK,
                         .bounce = data.bounce, .buf = buf, .count = count, .dt = dt,
                         .comm = comm};
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = blocking_recv_done,
        .user_data = &r,
        .datatype = data.datatype,
    };
    ucp_tag_t ucx_tag, mask;
    ol_ucx_match_of(comm, space, source, tag, &ucx_tag, &mask);
    ol_match_await_sender(world_source(comm, source), ucx_tag, mask);
    void *ucx_req = ol_match_recv(&data, world_source(comm, source), ucx_tag, mask, &param,
                                  &r.sender_tag, &r.sender_known);
    if (OL_UNLIKELY(UCS_PTR_IS_ERR(ucx_req))) {
        ol_ucx_bounce_put(data.bounce);
        return ol_ucx_status(UCS_PTR_STATUS(ucx_req));
    }
    ol_progress_wait(blocking_recv_complete, &r);
    if (OL_UNLIKELY(r.status == UCS_ERR_MESSAGE_TRUNCATED))
        truncation_detail((MPI_Count)r.info.length, count, dt);
    if (status) {
        ol_ucx_fill_recv_status(status, &r.info, r.status);
        if (r.device_error != OL_OK)
            status->MPI_ERROR = r.device_error;
    }
    return r.device_error != OL_OK ? r.device_error : ol_ucx_status(r.status);
}
