/* The protocol of messages sent from device memory (see device.h).
 *
 * Every operation in flight is a small state machine on one list; the
 * progress hook (ol_progress_hooks[OL_PROGRESS_ACCEL]) steps them. UCX callbacks only
 * count completions and set flags, so no UCX call happens inside another
 * one's callback except posting the control receive, which must happen at
 * the match: control messages of one (context, source, tag) are taken in
 * the order their announcements matched.
 *
 * The side channel: tag with D=0 K=1, source field the world rank of the
 * process that sends on it, tag field DIR | cookie, where the cookie is the
 * device sender's number for the message (unique among its messages in
 * flight) and DIR says data (from the device sender) or reply (to it). */
#include "device.h"
#include "path_counters.h"
#include "endpoint.h"
#include "match.h"
#include "ol_log.h"
#include "ol_param_table.h"
#include "pt2pt.h"
#include "ucx_ops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ------------------------------------------------------------ */

static struct {
    int messages;     /* DEVICE_MESSAGES */
    int ipc;          /* DEVICE_IPC */
    int stage_chunk;  /* DEVICE_STAGE_CHUNK */
    int stage_depth;  /* DEVICE_STAGE_DEPTH */
} param;

bool ol_dev_messages;

static const ol_param_t device_params[] = {
    {"DEVICE_MESSAGES", OL_PARAM_INT, "-1",
     "1: messages may be sent from device memory, so every receive also matches their "
     "announcements (which costs UCX's hashed matching, about 0.02 us a message here); 0: host "
     "memory only, a device send buffer is an error; -1: 1 when CUDA support is built. Must be "
     "the same on every rank",
     &param.messages, -1, 1},
    {"DEVICE_IPC", OL_PARAM_INT, "1",
     "1: ranks of one host move device messages by CUDA IPC (the receiver copies out of the "
     "sender's buffer); 0: always stage through pinned host memory",
     &param.ipc, 0, 1},
    {"DEVICE_STAGE_CHUNK", OL_PARAM_INT, "1048576",
     "bytes per chunk when a device message is staged through pinned host memory", &param.stage_chunk, 4096, 1073741824},
    {"DEVICE_STAGE_DEPTH", OL_PARAM_INT, "4",
     "chunks of a staged device message being copied or sent at once", &param.stage_depth, 1, 64},
};

void ol_dev_params_load(void)
{
    ol_param_table_load(device_params, OL_ARRAY_SIZE(device_params));
    ol_dev_messages = param.messages < 0 ? ol_accel_built() : param.messages != 0;
}

void ol_dev_params_print(FILE *out)
{
    ol_param_table_print(device_params, OL_ARRAY_SIZE(device_params), out);
}

/* ---- wire formats ---------------------------------------------------------- */

enum { MODE_LOCAL = 1, MODE_IPC = 2, MODE_STAGED = 3 };
enum { REPLY_DONE = 1, REPLY_STAGE = 2 }; /* STAGE: IPC failed here, send the data */

#define COOKIE_BITS 22
#define DIR_REPLY ((uint64_t)1 << COOKIE_BITS)

typedef struct {
    uint64_t bytes;        /* packed size of the message */
    uint64_t chunk;        /* staged: bytes per data message */
    uint64_t local_ptr;    /* MODE_LOCAL: the sender's data (same process) */
    uint32_t mode;
    uint32_t cookie;
    int32_t sender_world;
    int32_t pad;
    ol_accel_ipc_t ipc;    /* MODE_IPC */
} dev_ctl_t;

static ucp_tag_t side_tag(int sender_world, uint64_t dir, uint32_t cookie)
{
    return OL_CONTROL_MASK | ((uint64_t)(uint32_t)sender_world << OL_SOURCE_SHIFT) | dir | cookie;
}

static uint32_t next_cookie(void)
{
    static uint32_t counter;
    return __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED) & ((1u << COOKIE_BITS) - 1);
}

/* ---- moving a user buffer to and from packed host memory ------------------ */

/* Packs the first `bytes` of (buf, count, dt), device memory, into dst. */
static ol_status_t pack_device(const void *buf, MPI_Count count, ol_datatype_t *dt, void *dst,
                               size_t bytes)
{
    if (dt->contiguous)
        return ol_accel_copy(dst, ol_dt_data_at(buf, dt), bytes);
    char *shadow;
    ol_status_t rc = ol_accel_copy_span_to_host(buf, count, dt, &shadow);
    if (rc != OL_OK)
        return rc;
    ol_dt_cursor_t *c = ol_dt_cursor_create(dt, ol_dt_buffer_for(shadow, dt), count);
    if (c) {
        ol_dt_cursor_pack(c, 0, dst, bytes);
        ol_dt_cursor_free(c);
    }
    free(shadow);
    return c ? OL_OK : MPI_ERR_NO_MEM;
}

/* Unpacks `bytes` of packed host data into (buf, count, dt), host or device
 * memory. A non-contiguous device buffer is read whole, filled on the host
 * and written back whole: the gaps between its blocks get their own bytes
 * again (a kernel writing into those gaps meanwhile would be undone). */
static ol_status_t unpack_to_user(const void *src, void *buf, MPI_Count count, ol_datatype_t *dt,
                                  size_t bytes)
{
    if (bytes == 0)
        return OL_OK;
    bool device = ol_accel_is_device(ol_dt_data_at(buf, dt));
    if (device && !ol_accel_usable())
        return ol_accel_unsupported("the receive buffer", buf);
    if (dt->contiguous) {
        if (!device) {
            ol_copy_bytes(ol_dt_data_at(buf, dt), src, bytes);
            return OL_OK;
        }
        return ol_accel_copy(ol_dt_data_at(buf, dt), src, bytes);
    }
    char *shadow = NULL;
    char *base = buf;
    if (device) {
        ol_status_t rc = ol_accel_copy_span_to_host(buf, count, dt, &shadow);
        if (rc != OL_OK)
            return rc;
        base = ol_dt_buffer_for(shadow, dt);
    }
    ol_dt_cursor_t *c = ol_dt_cursor_create(dt, base, count);
    if (c) {
        ol_dt_cursor_unpack(c, 0, src, bytes);
        ol_dt_cursor_free(c);
    }
    ol_status_t rc = c ? OL_OK : MPI_ERR_NO_MEM;
    if (device && rc == OL_OK)
        rc = ol_accel_copy(ol_dt_data_at(buf, dt), shadow, ol_dt_span(dt, count));
    free(shadow);
    return rc;
}

ol_status_t ol_pt2pt_pack(const void *buf, MPI_Count count, ol_datatype_t *dt, void *dst)
{
    if (!ol_dev_buffer(buf, count, dt)) {
        ol_dt_pack_all(dt, buf, count, dst);
        return OL_OK;
    }
    if (!ol_accel_usable())
        return ol_accel_unsupported("the buffer", buf);
    return pack_device(buf, count, dt, dst, (size_t)count * dt->size);
}

ol_status_t ol_pt2pt_unpack(const void *src, void *buf, MPI_Count count, ol_datatype_t *dt)
{
    if (!ol_dev_buffer(buf, count, dt)) {
        ol_dt_unpack_all(dt, buf, count, src);
        return OL_OK;
    }
    if (!ol_accel_usable())
        return ol_accel_unsupported("the buffer", buf);
    return unpack_to_user(src, buf, count, dt, (size_t)count * dt->size);
}

/* Pinned when the pool has it, pageable otherwise (slower copies, same data). */
typedef struct {
    void *ptr;
    bool pinned;
} host_buf_t;

static bool host_buf_alloc(host_buf_t *b, size_t bytes)
{
    b->ptr = ol_accel_host_alloc(bytes ? bytes : 1);
    b->pinned = b->ptr != NULL;
    if (!b->ptr)
        b->ptr = malloc(bytes ? bytes : 1);
    return b->ptr != NULL;
}

static void host_buf_free(host_buf_t *b)
{
    if (b->pinned)
        ol_accel_host_free(b->ptr);
    else
        free(b->ptr);
    b->ptr = NULL;
}

/* ---- operations in flight, stepped by the progress hook ------------------- */

typedef struct dev_op dev_op_t;
struct dev_op {
    bool (*step)(dev_op_t *op); /* true: finished, and freed */
    dev_op_t *next;
};

static dev_op_t *active;                    /* owned by the thread holding step_lock */
static dev_op_t *incoming;                  /* added under incoming_lock */
static int in_flight;
static pthread_mutex_t step_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t incoming_lock = PTHREAD_MUTEX_INITIALIZER;

/* Steps every operation; returns how many are still in flight, so that a
 * waiting rank keeps polling (a finished copy on the GPU wakes nobody). */
static int step_all(void)
{
    if (pthread_mutex_trylock(&step_lock) != 0)
        return __atomic_load_n(&in_flight, __ATOMIC_RELAXED);
    pthread_mutex_lock(&incoming_lock);
    dev_op_t *fresh = incoming;
    incoming = NULL;
    pthread_mutex_unlock(&incoming_lock);
    while (fresh) { /* keep the order they came in */
        dev_op_t *op = fresh;
        fresh = op->next;
        dev_op_t **tail = &active;
        while (*tail)
            tail = &(*tail)->next;
        op->next = NULL;
        *tail = op;
    }
    for (dev_op_t **p = &active; *p;) {
        dev_op_t *op = *p;
        dev_op_t *next = op->next;
        if (op->step(op)) {
            *p = next;
            __atomic_sub_fetch(&in_flight, 1, __ATOMIC_RELAXED);
        } else {
            p = &op->next;
        }
    }
    int left = __atomic_load_n(&in_flight, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&step_lock);
    return left;
}

static void op_add(dev_op_t *op)
{
    pthread_mutex_lock(&incoming_lock);
    op->next = incoming;
    incoming = op; /* reversed here, put back in order by step_all */
    pthread_mutex_unlock(&incoming_lock);
    __atomic_add_fetch(&in_flight, 1, __ATOMIC_RELAXED);
    ol_progress_hooks[OL_PROGRESS_ACCEL] = step_all;
}

/* Counts UCX operations of a device op that finished. */
typedef struct {
    int started;
    int finished; /* written by UCX callbacks */
    ol_status_t error;
} ucx_count_t;

static void count_done(ucx_count_t *c, ucs_status_t st)
{
    if (st != UCS_OK && st != UCS_ERR_CANCELED)
        c->error = ol_ucx_status(st);
    __atomic_add_fetch(&c->finished, 1, __ATOMIC_RELEASE);
}

static bool count_all_done(const ucx_count_t *c)
{
    return __atomic_load_n(&c->finished, __ATOMIC_ACQUIRE) == c->started;
}

static void send_counted(void *ucx_req, ucs_status_t st, void *user_data)
{
    ol_match_request_free(ucx_req);
    count_done(user_data, st);
}

static void recv_counted(void *ucx_req, ucs_status_t st, const ucp_tag_recv_info_t *info,
                         void *user_data)
{
    (void)info;
    ucp_request_free(ucx_req);
    count_done(user_data, st);
}

static const ucp_request_param_t *counted_param(ucx_count_t *c, ucp_request_param_t *param)
{
    *param = (ucp_request_param_t){
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = send_counted,
        .user_data = c,
    };
    c->started++;
    return param;
}

/* Counts a send that ended at once or failed; a request ends in send_counted. */
static void counted_started(ucx_count_t *c, void *r)
{
    if (r == NULL)
        count_done(c, UCS_OK);
    else if (UCS_PTR_IS_ERR(r))
        count_done(c, UCS_PTR_STATUS(r));
}

/* Sends bytes on ep, counted in c. */
static void counted_send(ucx_count_t *c, ucp_ep_h ep, const void *buf, size_t bytes, ucp_tag_t tag)
{
    ucp_request_param_t param;
    counted_started(c, ucp_tag_send_nbx(ep, buf, bytes, tag, counted_param(c, &param)));
}

/* Sends the empty announcement to world rank peer, counted in c: it goes
 * where MPI matching runs (match.h), as data would. */
static void counted_announce(ucx_count_t *c, ucp_ep_h ep, int peer, ucp_tag_t tag)
{
    ucp_request_param_t param;
    ol_ucx_data_t nothing;
    ol_ucx_describe_bytes(NULL, 0, &nothing);
    uint32_t seq; /* never cancelled */
    counted_started(c, ol_match_send(ep, peer, &nothing, tag, false, false,
                                     counted_param(c, &param), &seq));
}

/* Receives exactly tag into buf, counted in c. */
static void counted_recv(ucx_count_t *c, void *buf, size_t bytes, ucp_tag_t tag)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = recv_counted,
        .user_data = c,
    };
    c->started++;
    void *r = ucp_tag_recv_nbx(ol_rt.ucp_worker, buf, bytes, tag, ~(ucp_tag_t)0, &param);
    if (UCS_PTR_IS_ERR(r))
        count_done(c, UCS_PTR_STATUS(r));
}

/* ---- the sender ------------------------------------------------------------ */

typedef struct {
    dev_op_t op;
    ol_request_t *req;
    ucp_ep_h ep;
    int dest_world;
    dev_ctl_t ctl;
    ucx_count_t ucx;              /* announcement, control, reply, data */
    uint32_t reply;               /* written by the receiver */
    bool reply_seen;
    const char *src;              /* contiguous device data */
    host_buf_t stage;             /* staged: a ring of depth chunks, or all packed data */
    bool packed;                  /* stage holds the whole packed message */
    size_t nslots, nchunks, copies, sends;
    ol_accel_event_t **copy_done; /* per ring slot: its copy from the device */
    ucx_count_t *slot_sends;      /* per ring slot: its chunk's send */
    ol_status_t error;
} dev_send_t;

static bool send_step(dev_op_t *op);

static void post_reply_recv(dev_send_t *s)
{
    s->reply = 0;
    counted_recv(&s->ucx, &s->reply, sizeof(s->reply),
                 side_tag(s->dest_world, DIR_REPLY, s->ctl.cookie));
}

/* Local for a send to ourselves, IPC to a rank of this host, staged
 * otherwise and for non-contiguous data. */
static void choose_mode(dev_send_t *s, const ol_op_args_t *a)
{
    s->ctl.chunk = (uint64_t)param.stage_chunk;
    s->ctl.mode = MODE_STAGED;
    if (!a->dt->contiguous)
        return;
    s->src = ol_dt_data_at(a->buf, a->dt);
    if (s->dest_world == ol_rt.rank) {
        s->ctl.mode = MODE_LOCAL;
        s->ctl.local_ptr = (uint64_t)(uintptr_t)s->src;
    } else if (param.ipc && ol_rt_same_host(s->dest_world)) {
        if (ol_accel_ipc_export(s->src, &s->ctl.ipc) == OL_OK)
            s->ctl.mode = MODE_IPC;
        else
            OL_INFO("pt2pt", "no CUDA IPC for %p (%s): staging", s->src, ol_error_detail_take());
    }
}

/* Staging: the whole message packed at once (non-contiguous data), or a
 * ring of depth chunk buffers that copies refill as sends drain them. */
static ol_status_t stage_prepare(dev_send_t *s)
{
    const ol_op_args_t *a = &s->req->args;
    size_t chunk = s->ctl.chunk;
    s->nchunks = (s->ctl.bytes + chunk - 1) / chunk;
    s->packed = !a->dt->contiguous;
    s->nslots = s->packed ? 1 : (size_t)param.stage_depth;
    s->copy_done = calloc(s->nslots, sizeof(*s->copy_done));
    s->slot_sends = calloc(s->nslots, sizeof(*s->slot_sends));
    if (!s->copy_done || !s->slot_sends)
        return MPI_ERR_NO_MEM;
    if (s->packed) {
        if (!host_buf_alloc(&s->stage, s->ctl.bytes))
            return MPI_ERR_NO_MEM;
        s->copies = s->nchunks;
        return pack_device(a->buf, a->count, a->dt, s->stage.ptr, s->ctl.bytes);
    }
    return host_buf_alloc(&s->stage, s->nslots * chunk) ? OL_OK : MPI_ERR_NO_MEM;
}

static bool slots_all_sent(const dev_send_t *s)
{
    for (size_t i = 0; i < s->nslots; i++)
        if (!count_all_done(&s->slot_sends[i]))
            return false;
    return true;
}

static size_t chunk_bytes(const dev_ctl_t *ctl, size_t i)
{
    size_t left = ctl->bytes - i * ctl->chunk;
    return left < ctl->chunk ? left : ctl->chunk;
}

/* Moves the pipeline on: starts copies into free slots (whose last chunk
 * has been sent), sends the chunks whose copy finished, in order. */
static void stage_advance(dev_send_t *s)
{
    size_t slots = s->nslots, chunk = s->ctl.chunk;
    ucp_tag_t tag = side_tag(ol_rt.rank, 0, s->ctl.cookie);
    while (!s->packed && s->copies < s->nchunks) {
        size_t slot = s->copies % slots;
        if (s->copies >= s->sends + slots || s->copy_done[slot] ||
            !count_all_done(&s->slot_sends[slot]))
            break;
        ol_status_t rc = ol_accel_copy_async((char *)s->stage.ptr + slot * chunk,
                                             s->src + s->copies * chunk,
                                             chunk_bytes(&s->ctl, s->copies), &s->copy_done[slot]);
        if (rc != OL_OK) {
            s->error = rc;
            return;
        }
        s->copies++;
    }
    while (s->sends < s->copies) {
        const char *from;
        size_t slot = s->sends % slots;
        if (s->packed) {
            from = (char *)s->stage.ptr + s->sends * chunk;
        } else {
            ol_status_t err = OL_OK;
            if (!ol_accel_event_done(s->copy_done[slot], &err) && err == OL_OK)
                return;
            ol_accel_event_free(s->copy_done[slot]);
            s->copy_done[slot] = NULL;
            if (err != OL_OK) {
                s->error = err;
                return;
            }
            from = (char *)s->stage.ptr + slot * chunk;
        }
        counted_send(&s->slot_sends[slot], s->ep, from, chunk_bytes(&s->ctl, s->sends), tag);
        s->sends++;
    }
}

static ol_status_t send_error(const dev_send_t *s)
{
    ol_status_t rc = s->error != OL_OK ? s->error : s->ucx.error;
    for (size_t i = 0; rc == OL_OK && s->slot_sends && i < s->nslots; i++)
        rc = s->slot_sends[i].error;
    return rc;
}

static void send_free(dev_send_t *s)
{
    if (s->stage.ptr)
        host_buf_free(&s->stage);
    free(s->copy_done);
    free(s->slot_sends);
    free(s);
}

/* The path a message counts on: CUDA IPC, and device-to-device copies
 * within the process, or staging. */
static ol_p2p_path_t path_of(uint32_t mode)
{
    return mode == MODE_STAGED ? OL_P2P_PATH_DEVICE_STAGED : OL_P2P_PATH_DEVICE_IPC;
}

/* Done when the receiver replied DONE and every send of ours finished. A
 * reply STAGE (the receiver could not map our buffer) turns an IPC send
 * into a staged one. A send that failed here completes at once with its
 * error; its memory stays behind if UCX still holds pointers into it. */
static bool send_step(dev_op_t *op)
{
    dev_send_t *s = (dev_send_t *)op;
    uint32_t reply = __atomic_load_n(&s->reply, __ATOMIC_ACQUIRE);
    if (reply == REPLY_STAGE && s->ctl.mode != MODE_STAGED && count_all_done(&s->ucx)) {
        s->ctl.mode = MODE_STAGED;
        ol_status_t rc = stage_prepare(s);
        if (rc != OL_OK)
            s->error = rc;
        post_reply_recv(s); /* for the final DONE */
    }
    if (s->ctl.mode == MODE_STAGED && s->error == OL_OK)
        stage_advance(s);
    ol_status_t rc = send_error(s);
    bool quiet = count_all_done(&s->ucx) && (!s->slot_sends || slots_all_sent(s));
    if (rc != OL_OK) {
        ol_request_complete(s->req, rc);
        if (quiet)
            send_free(s);
        return true;
    }
    bool replied = __atomic_load_n(&s->reply, __ATOMIC_ACQUIRE) == REPLY_DONE;
    bool data_sent = s->ctl.mode != MODE_STAGED || s->sends == s->nchunks;
    if (!(replied && data_sent && quiet))
        return false;
    ol_p2p_count_sent(path_of(s->ctl.mode), s->ctl.bytes);
    ol_request_complete(s->req, OL_OK);
    send_free(s);
    return true;
}

ol_status_t ol_dev_send_start(ol_request_t *req, ucp_ep_h ep, ucp_tag_t tag)
{
    const ol_op_args_t *a = &req->args;
    if (!ol_accel_usable())
        return ol_accel_unsupported("the send buffer", a->buf);
    if (!ol_dev_messages) {
        ol_error_detail("the send buffer %p is CUDA device memory, but device messages are off "
                        "(OMPI_LITE_DEVICE_MESSAGES=0)", a->buf);
        return MPI_ERR_BUFFER;
    }
    size_t bytes = (size_t)a->count * a->dt->size;
    ol_status_t rc = ol_accel_check_device(ol_dt_data_at(a->buf, a->dt),
                                           a->dt->contiguous ? bytes : ol_dt_span(a->dt, a->count));
    if (rc != OL_OK)
        return rc;
    dev_send_t *s = calloc(1, sizeof(*s));
    if (!s)
        return MPI_ERR_NO_MEM;
    s->op.step = send_step;
    s->req = req;
    s->ep = ep;
    s->dest_world = ol_comm_world_rank(a->comm, a->peer);
    s->ctl.bytes = bytes;
    s->ctl.cookie = next_cookie();
    s->ctl.sender_world = ol_rt.rank;
    choose_mode(s, a);
    if (s->ctl.mode == MODE_STAGED)
        rc = stage_prepare(s);
    if (rc != OL_OK) {
        send_free(s);
        return rc;
    }
    post_reply_recv(s);
    counted_announce(&s->ucx, ep, s->dest_world, tag | OL_DEVICE_MASK);
    counted_send(&s->ucx, ep, &s->ctl, sizeof(s->ctl), tag | OL_DEVICE_MASK | OL_CONTROL_MASK);
    op_add(&s->op);
    return OL_OK;
}

/* ---- control messages fetched ahead by probes ------------------------------ */

typedef struct fetched_ctl {
    uint64_t sender_tag;
    dev_ctl_t ctl;
    struct fetched_ctl *next;
} fetched_ctl_t;

static fetched_ctl_t *fetched; /* in arrival order */
static pthread_mutex_t fetched_lock = PTHREAD_MUTEX_INITIALIZER;

/* Takes the oldest fetched control message of this announcement's tag. */
static bool take_fetched(uint64_t sender_tag, dev_ctl_t *ctl)
{
    bool found = false;
    pthread_mutex_lock(&fetched_lock);
    for (fetched_ctl_t **p = &fetched; *p; p = &(*p)->next) {
        if ((*p)->sender_tag == sender_tag) {
            fetched_ctl_t *f = *p;
            *ctl = f->ctl;
            *p = f->next;
            free(f);
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&fetched_lock);
    return found;
}

static bool peek_fetched(uint64_t sender_tag, size_t *bytes)
{
    bool found = false;
    pthread_mutex_lock(&fetched_lock);
    for (fetched_ctl_t *f = fetched; f && !found; f = f->next) {
        if (f->sender_tag == sender_tag) {
            *bytes = (size_t)f->ctl.bytes;
            found = true;
        }
    }
    pthread_mutex_unlock(&fetched_lock);
    return found;
}

typedef struct {
    uint64_t ctl_tag;
    ucp_tag_message_h msg;
    ucp_tag_recv_info_t info;
    ucx_count_t recv;
} ctl_fetch_t;

static bool ctl_message_found(void *arg)
{
    ctl_fetch_t *f = arg;
    f->msg = ucp_tag_probe_nb(ol_rt.ucp_worker, f->ctl_tag, ~(ucp_tag_t)0, 1, &f->info);
    return f->msg != NULL;
}

static bool ctl_received(void *arg)
{
    return count_all_done(&((ctl_fetch_t *)arg)->recv);
}

ol_status_t ol_dev_announced_bytes(uint64_t sender_tag, size_t *bytes)
{
    if (peek_fetched(sender_tag, bytes))
        return OL_OK;
    /* Not fetched: the control message follows its announcement on the
     * same endpoint, so it is here or about to be. */
    fetched_ctl_t *entry = calloc(1, sizeof(*entry));
    if (!entry)
        return MPI_ERR_NO_MEM;
    ctl_fetch_t f = {.ctl_tag = sender_tag | OL_CONTROL_MASK};
    ol_progress_wait(ctl_message_found, &f);
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = recv_counted,
        .user_data = &f.recv,
    };
    f.recv.started = 1;
    void *r = ucp_tag_msg_recv_nbx(ol_rt.ucp_worker, &entry->ctl, sizeof(entry->ctl), f.msg, &param);
    if (UCS_PTR_IS_ERR(r))
        count_done(&f.recv, UCS_PTR_STATUS(r));
    ol_progress_wait(ctl_received, &f);
    if (f.recv.error != OL_OK) {
        free(entry);
        return f.recv.error;
    }
    entry->sender_tag = sender_tag;
    *bytes = (size_t)entry->ctl.bytes;
    pthread_mutex_lock(&fetched_lock);
    fetched_ctl_t **tail = &fetched;
    while (*tail)
        tail = &(*tail)->next;
    *tail = entry;
    pthread_mutex_unlock(&fetched_lock);
    return OL_OK;
}

/* ---- the receiver ---------------------------------------------------------- */

typedef enum {
    RECV_AWAIT_CONTROL,
    RECV_COPYING,        /* IPC or local: our copy out of the sender's buffer */
    RECV_STAGED,         /* chunks arriving on the side channel */
    RECV_REPLYING,
} recv_state_t;

typedef struct {
    dev_op_t op;
    recv_state_t state;
    void *buf;
    MPI_Count count;
    ol_datatype_t *dt;
    ol_dev_done_t done;
    void *ctx;
    dev_ctl_t ctl;
    ucx_count_t ctl_recv;
    size_t bytes;          /* what lands: the message, at most the capacity */
    bool truncated;        /* the control message told more than the capacity */
    ol_status_t error;
    ucp_ep_h ep;           /* to the sender */
    host_buf_t landing;    /* packed data when it cannot go straight to buf */
    bool mapped;           /* the sender's buffer is imported: release it after the copy */
    ol_accel_event_t *copy_done;
    ucx_count_t data;
    uint32_t replies[2];   /* REPLY_DONE, REPLY_STAGE: each sent at most once */
    ucx_count_t reply_send;
} dev_recv_t;

static bool straight_to_user(const dev_recv_t *r)
{
    return r->dt->contiguous && r->bytes == r->ctl.bytes;
}

static void *user_data_start(const dev_recv_t *r)
{
    return ol_dt_data_at(r->buf, r->dt);
}

static void recv_reply(dev_recv_t *r, uint32_t code)
{
    uint32_t *msg = &r->replies[code - 1];
    *msg = code;
    counted_send(&r->reply_send, r->ep, msg, sizeof(*msg),
                 side_tag(ol_rt.rank, DIR_REPLY, r->ctl.cookie));
}

/* Copies straight out of the sender's buffer (mapped, or our own); the
 * import makes our stream wait for the sender's work on it first. */
static void recv_start_copy(dev_recv_t *r)
{
    const char *from = (const char *)(uintptr_t)r->ctl.local_ptr;
    if (r->ctl.mode == MODE_IPC) {
        void *mapped;
        if (ol_accel_ipc_import(r->ctl.sender_world, &r->ctl.ipc, &mapped) != OL_OK) {
            OL_INFO("pt2pt", "CUDA IPC from rank %d failed (%s): staging instead",
                    r->ctl.sender_world, ol_error_detail_take());
            r->ctl.mode = MODE_STAGED;
            return;
        }
        from = mapped;
        r->mapped = true;
    }
    r->state = RECV_COPYING;
    void *to = user_data_start(r);
    if (!r->dt->contiguous) {
        if (!host_buf_alloc(&r->landing, r->bytes)) {
            r->error = MPI_ERR_NO_MEM;
            return;
        }
        to = r->landing.ptr;
    }
    ol_status_t rc = ol_accel_copy_async(to, from, r->bytes, &r->copy_done);
    if (rc != OL_OK)
        r->error = rc;
    else
        ol_p2p_count_received(OL_P2P_PATH_DEVICE_IPC, r->ctl.bytes);
}

/* Nothing of ours reads the sender's buffer any more. */
static void recv_copy_finished(dev_recv_t *r)
{
    if (r->mapped)
        ol_accel_ipc_release(r->ctl.sender_world, &r->ctl.ipc);
    r->mapped = false;
}

/* Posts the receives of every chunk: into the user's buffer when it is
 * contiguous host memory that holds the whole message, else into one packed
 * host buffer unpacked at the end. */
static void recv_start_staged(dev_recv_t *r)
{
    size_t chunk = r->ctl.chunk, n = (r->ctl.bytes + chunk - 1) / chunk;
    char *to;
    if (straight_to_user(r) && !ol_accel_is_device(user_data_start(r))) {
        to = user_data_start(r);
    } else {
        if (!host_buf_alloc(&r->landing, r->ctl.bytes)) {
            r->error = MPI_ERR_NO_MEM; /* the sender's chunks stay unmatched */
            r->state = RECV_STAGED;
            return;
        }
        to = r->landing.ptr;
    }
    ucp_tag_t tag = side_tag(r->ctl.sender_world, 0, r->ctl.cookie);
    for (size_t i = 0; i < n; i++)
        counted_recv(&r->data, to + i * chunk, chunk_bytes(&r->ctl, i), tag);
    ol_p2p_count_received(OL_P2P_PATH_DEVICE_STAGED, r->ctl.bytes);
    r->state = RECV_STAGED;
}

static void recv_on_control(dev_recv_t *r)
{
    size_t capacity = (size_t)r->count * r->dt->size;
    r->bytes = r->ctl.bytes < capacity ? (size_t)r->ctl.bytes : capacity;
    if (r->ctl.bytes > capacity) {
        r->truncated = true;
        r->error = MPI_ERR_TRUNCATE;
    }
    ol_status_t rc = ol_ep_get(r->ctl.sender_world, &r->ep);
    if (rc != OL_OK) {
        r->error = rc;
        r->state = RECV_REPLYING; /* nobody to reply to */
        return;
    }
    if (r->ctl.mode != MODE_STAGED) {
        recv_start_copy(r);
        if (r->ctl.mode == MODE_STAGED) { /* IPC failed: ask for the data */
            recv_reply(r, REPLY_STAGE);
            recv_start_staged(r);
        }
        return;
    }
    recv_start_staged(r);
}

static void recv_finish(dev_recv_t *r)
{
    if (r->landing.ptr)
        host_buf_free(&r->landing);
    /* a truncated message's status tells its size, as on the host paths */
    r->done(r->ctx, r->error, r->truncated ? (size_t)r->ctl.bytes : r->bytes);
    free(r);
}

/* After the data is in place: unpack if it landed packed, reply DONE. */
static void recv_land(dev_recv_t *r)
{
    if (r->landing.ptr && r->error != MPI_ERR_NO_MEM) {
        ol_status_t rc = unpack_to_user(r->landing.ptr, r->buf, r->count, r->dt, r->bytes);
        if (rc != OL_OK)
            r->error = rc;
    }
    recv_reply(r, REPLY_DONE);
    r->state = RECV_REPLYING;
}

static bool recv_step(dev_op_t *op)
{
    dev_recv_t *r = (dev_recv_t *)op;
    switch (r->state) {
    case RECV_AWAIT_CONTROL:
        if (!count_all_done(&r->ctl_recv))
            return false;
        if (r->ctl_recv.error != OL_OK) {
            r->error = r->ctl_recv.error;
            recv_finish(r);
            return true;
        }
        recv_on_control(r);
        return false;
    case RECV_COPYING: {
        ol_status_t err = OL_OK;
        if (r->copy_done && !ol_accel_event_done(r->copy_done, &err) && err == OL_OK)
            return false;
        if (r->copy_done)
            ol_accel_event_free(r->copy_done);
        r->copy_done = NULL;
        if (err != OL_OK)
            r->error = err;
        recv_copy_finished(r);
        recv_land(r);
        return false;
    }
    case RECV_STAGED:
        if (!count_all_done(&r->data))
            return false;
        if (r->data.error != OL_OK && r->error == OL_OK)
            r->error = r->data.error;
        recv_land(r);
        return false;
    case RECV_REPLYING:
        if (!count_all_done(&r->reply_send))
            return false;
        recv_finish(r);
        return true;
    }
    return false;
}

void ol_dev_recv_announced(void *buf, MPI_Count count, ol_datatype_t *dt, uint64_t sender_tag,
                           ol_dev_done_t done, void *ctx)
{
    dev_recv_t *r = calloc(1, sizeof(*r));
    if (!r) {
        done(ctx, MPI_ERR_NO_MEM, 0);
        return;
    }
    *r = (dev_recv_t){.op.step = recv_step, .state = RECV_AWAIT_CONTROL, .buf = buf,
                      .count = count, .dt = dt, .done = done, .ctx = ctx};
    if (take_fetched(sender_tag, &r->ctl)) {
        r->ctl_recv.started = r->ctl_recv.finished = 1;
    } else {
        counted_recv(&r->ctl_recv, &r->ctl, sizeof(r->ctl), sender_tag | OL_CONTROL_MASK);
    }
    op_add(&r->op);
}

/* ---- receiving host data into device memory ------------------------------- */

void *ol_dev_landing_alloc(size_t capacity)
{
    host_buf_t *b = malloc(sizeof(*b));
    if (b && !host_buf_alloc(b, capacity)) {
        free(b);
        b = NULL;
    }
    return b;
}

void *ol_dev_landing_data(void *landing)
{
    return ((host_buf_t *)landing)->ptr;
}

ol_status_t ol_dev_landing_finish(void *landing, void *buf, MPI_Count count, ol_datatype_t *dt,
                                  size_t bytes)
{
    return unpack_to_user(((host_buf_t *)landing)->ptr, buf, count, dt, bytes);
}

void ol_dev_landing_free(void *landing)
{
    if (!landing)
        return;
    host_buf_free(landing);
    free(landing);
}

/* ---- end ------------------------------------------------------------------- */

/* Called after every request has completed (MPI_Finalize): what probes
 * fetched and nobody received is dropped. */
void ol_dev_finalize(void)
{
    while (step_all() > 0)
        ucp_worker_progress(ol_rt.ucp_worker);
    ol_progress_hooks[OL_PROGRESS_ACCEL] = NULL;
    pthread_mutex_lock(&fetched_lock);
    while (fetched) {
        fetched_ctl_t *f = fetched;
        fetched = f->next;
        free(f);
    }
    pthread_mutex_unlock(&fetched_lock);
}
