/* Partitioned communication (MPI 4.1 chapter 5) over pt2pt's own sends and
 * receives. README.md ("Partitioned communication") says why it is built
 * this way; in short:
 *
 * - MPI_Psend_init sends a handshake (part_hello_t) in the tag space
 *   OL_TAGSPACE_PART with the user's tag, and MPI_Precv_init posts its
 *   receive: UCX (or the rings) match the two by (communicator, source,
 *   tag), in the order of the initialization calls, as the standard asks.
 * - The sender cuts its partitions into at most MAX_MESSAGES data messages
 *   of whole partitions, message m tagged first_tag + m in the collective
 *   space above OL_PART_TAG_FIRST, where first_tag names a channel the
 *   sender holds while the request lives. The hello says so, so the
 *   receiver posts one receive per message at each start, right where the
 *   message's bytes belong in its own buffer, whatever its partitions.
 * - MPI_Pready marks a partition; the call that completes a message's
 *   partitions sends that message at once. A receive partition has arrived
 *   when the messages that hold its bytes have.
 *
 * A partitioned request is a compound request: its messages are children
 * whose completions it counts (pending_children). */
#include "device.h"
#include "ol_log.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Data messages of one transfer at most: the tags a channel holds. */
    MAX_MESSAGES = 1024,
    CHANNELS = (OL_TAG_UB + 1 - OL_PART_TAG_FIRST) / MAX_MESSAGES,
    HELLO_MAGIC = 0x70617274, /* "part" */
};

/* The handshake: how the sender cut the data, once per request. */
typedef struct {
    uint32_t magic;
    uint32_t partitions;      /* the sender's */
    uint64_t partition_bytes; /* packed bytes of one sender partition */
    uint32_t per_message;     /* sender partitions per data message (last: fewer) */
    uint32_t first_tag;       /* data message m has tag first_tag + m */
} part_hello_t;

typedef struct part part_t;
struct part {
    ol_request_t *req;
    bool send;
    bool device;              /* the user's buffer is device memory */
    int partitions;
    size_t partition_bytes;   /* packed bytes of one of our partitions */
    part_hello_t layout;      /* how the data messages are cut (the hello) */
    int messages;
    int channel;              /* sender: the tags it holds, -1 for none */
    /* Sender, since the start: per partition whether ready, per message
     * how many of its partitions are. */
    uint8_t *ready;
    int *message_ready;
    /* Receiver. lock orders a start against the handshake's arrival. */
    pthread_mutex_t lock;
    ol_request_t *hello_req;  /* the handshake's receive, until it matched */
    bool matched;             /* layout is the sender's */
    bool waiting;             /* started before matched: the match posts the round */
    ol_status_t mismatch;     /* what every start ends with when the sides disagree */
    uint64_t sender_bytes;
    uint8_t *arrived;         /* per message, since the start */
    part_t *next_waiting;
};

static ol_datatype_t *bytes_type(void)
{
    return ol_dt_from_handle(MPI_BYTE);
}

/* ---- channels: blocks of data tags, one per partitioned send ------------- */

static pthread_mutex_t channels_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t channels_used[CHANNELS / 64];

static int channel_take(void)
{
    int channel = -1;
    pthread_mutex_lock(&channels_lock);
    for (int w = 0; channel < 0 && w < CHANNELS / 64; w++) {
        if (~channels_used[w] == 0)
            continue;
        int bit = __builtin_ctzll(~channels_used[w]);
        channels_used[w] |= (uint64_t)1 << bit;
        channel = w * 64 + bit;
    }
    pthread_mutex_unlock(&channels_lock);
    return channel;
}

static void channel_give(int channel)
{
    pthread_mutex_lock(&channels_lock);
    channels_used[channel / 64] &= ~((uint64_t)1 << (channel % 64));
    pthread_mutex_unlock(&channels_lock);
}

/* ---- the layout of the data messages ------------------------------------------ */

static int message_count(const part_hello_t *h)
{
    return (int)((h->partitions + h->per_message - 1) / h->per_message);
}

/* The sender partitions of message m: first and how many. */
static void message_partitions(const part_hello_t *h, int m, int *first, int *n)
{
    *first = m * (int)h->per_message;
    int rest = (int)h->partitions - *first;
    *n = rest < (int)h->per_message ? rest : (int)h->per_message;
}

static size_t message_offset(const part_hello_t *h, int m)
{
    return (size_t)m * h->per_message * h->partition_bytes;
}

static size_t message_length(const part_hello_t *h, int m)
{
    int first, n;
    message_partitions(h, m, &first, &n);
    return (size_t)n * h->partition_bytes;
}

static size_t own_bytes(const part_t *p)
{
    return (size_t)p->partitions * p->partition_bytes;
}

/* ---- completion ------------------------------------------------------------ */

/* The first error of a message becomes the request's. */
static void record_error(ol_request_t *req, ol_status_t error)
{
    ol_status_t none = OL_OK;
    __atomic_compare_exchange_n(&req->error, &none, error, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
}

/* One message of the round is done (or will never be posted). */
static void message_finished(ol_request_t *req)
{
    if (__atomic_sub_fetch(&req->pending_children, 1, __ATOMIC_ACQ_REL) == 0)
        ol_request_complete(req, req->error);
}

/* The whole request completes: a disagreement of the sides is its error. */
static void request_done(ol_request_t *req)
{
    part_t *p = req->owner;
    if (req->error == OL_OK && !p->send)
        req->error = p->mismatch;
    req->status.MPI_ERROR = req->error;
}

/* A received message that went through a host copy (its bytes end inside
 * an element of a non-contiguous type): unpacked where they belong. */
static ol_status_t unpack_copy(const ol_request_t *req, const ol_request_t *child, size_t offset)
{
    const ol_op_args_t *u = &req->args;
    part_t *p = req->owner;
    ol_dt_cursor_t *cursor = ol_dt_cursor_create(u->dt, u->buf, u->count * p->partitions);
    if (!cursor)
        return MPI_ERR_NO_MEM;
    ol_dt_cursor_unpack(cursor, offset, child->args.buf, (size_t)child->args.count);
    ol_dt_cursor_free(cursor);
    return OL_OK;
}

static void message_done(ol_request_t *child)
{
    ol_request_t *req = child->parent;
    part_t *p = req->owner;
    int m = child->args.tag - (int)p->layout.first_tag;
    ol_status_t error = child->error;
    bool copied = child->on_release != NULL;
    if (copied && error == OL_OK && p->mismatch == OL_OK)
        error = unpack_copy(req, child, message_offset(&p->layout, m));
    if (error != OL_OK)
        record_error(req, error);
    if (!p->send)
        __atomic_store_n(&p->arrived[m], 1, __ATOMIC_RELEASE);
}

static void free_owner(ol_request_t *req)
{
    free(req->owner);
    req->owner = NULL;
}

/* ---- posting a data message ------------------------------------------------ */

static ol_op_args_t message_args(const ol_request_t *req, const part_t *p, int m)
{
    const ol_op_args_t *u = &req->args;
    return (ol_op_args_t){.peer = u->peer, .tag = (int)p->layout.first_tag + m, .comm = u->comm,
                          .space = OL_TAGSPACE_COLL, .mode = OL_SEND_STANDARD};
}

/* Message m from whole partitions of the user's buffer. */
static ol_op_args_t send_args(const ol_request_t *req, const part_t *p, int m)
{
    const ol_op_args_t *u = &req->args;
    ol_op_args_t a = message_args(req, p, m);
    int first, n;
    message_partitions(&p->layout, m, &first, &n);
    a.buf = (char *)u->buf + (MPI_Aint)first * u->count * u->dt->extent;
    a.count = (MPI_Count)n * u->count;
    a.dt = u->dt;
    return a;
}

/* Where message m lands: its bytes of the user's buffer, as bytes for a
 * contiguous type, as elements where the message holds whole elements,
 * else through a host copy (*copy set). Bytes beyond the buffer (a longer
 * send, an error) are not received: the message is taken, truncated. */
static ol_op_args_t recv_args(const ol_request_t *req, const part_t *p, int m, bool *copy)
{
    const ol_op_args_t *u = &req->args;
    ol_op_args_t a = message_args(req, p, m);
    size_t offset = message_offset(&p->layout, m), room = own_bytes(p);
    size_t length = message_length(&p->layout, m);
    size_t fits = offset >= room ? 0 : room - offset < length ? room - offset : length;
    size_t size = u->dt->size;
    *copy = false;
    if (u->dt->contiguous) {
        a.buf = (char *)ol_dt_data_at(u->buf, u->dt) + offset;
        a.count = (MPI_Count)fits;
        a.dt = bytes_type();
    } else if (offset % size == 0 && fits % size == 0) {
        a.buf = (char *)u->buf + (MPI_Aint)(offset / size) * u->dt->extent;
        a.count = (MPI_Count)(fits / size);
        a.dt = u->dt;
    } else {
        *copy = true;
        a.count = (MPI_Count)fits;
        a.dt = bytes_type();
    }
    return a;
}

/* Posts message m, which the request already counts among its children. */
static void post_message(ol_request_t *req, part_t *p, int m)
{
    bool copy = false;
    ol_op_args_t a = p->send ? send_args(req, p, m) : recv_args(req, p, m, &copy);
    void *copy_buf = NULL;
    if (copy && !(copy_buf = malloc(a.count ? (size_t)a.count : 1))) {
        record_error(req, MPI_ERR_NO_MEM);
        message_finished(req);
        return;
    }
    if (copy)
        a.buf = copy_buf;
    ol_request_t *child;
    ol_status_t rc = ol_pt2pt_prepare(p->send ? OL_REQ_SEND : OL_REQ_RECV, &a, &child);
    if (rc != OL_OK) {
        free(copy_buf);
        record_error(req, rc);
        message_finished(req);
        return;
    }
    child->parent = req;
    child->on_complete = message_done;
    if (copy) {
        child->owner = copy_buf;
        child->on_release = free_owner;
    }
    ol_request_free_when_complete(child);
    rc = ol_pt2pt_start(child);
    if (rc != OL_OK) {
        ol_request_release(child);
        record_error(req, rc);
        message_finished(req);
    }
}

/* ---- the receiver's side of the handshake -------------------------------------- */

static pthread_mutex_t waiting_lock = PTHREAD_MUTEX_INITIALIZER;
static part_t *waiting; /* receives whose hello has not been taken yet */

static int take_hellos(void);

static void waiting_add(part_t *p)
{
    pthread_mutex_lock(&waiting_lock);
    p->next_waiting = waiting;
    waiting = p;
    ol_progress_hooks[OL_PROGRESS_PART] = take_hellos;
    pthread_mutex_unlock(&waiting_lock);
}

/* Removes p from the list; false when it was not there. */
static bool waiting_remove(part_t *p)
{
    for (part_t **at = &waiting; *at; at = &(*at)->next_waiting)
        if (*at == p) {
            *at = p->next_waiting;
            return true;
        }
    return false;
}

/* The receive's status: the whole message the sender sends. */
static void set_recv_status(ol_request_t *req, const part_t *p)
{
    if (req->args.peer == MPI_PROC_NULL) {
        ol_status_set_proc_null(&req->status);
        return;
    }
    ol_status_set_empty(&req->status);
    req->status.MPI_SOURCE = req->args.peer;
    req->status.MPI_TAG = req->args.tag;
    ol_status_set_bytes(&req->status, (MPI_Count)p->sender_bytes);
}

/* Posts the round's receives (under p->lock), then drops the hold that
 * the start put on the request. */
static void post_round(ol_request_t *req, part_t *p)
{
    set_recv_status(req, p);
    if (p->messages)
        memset(p->arrived, 0, (size_t)p->messages);
    __atomic_add_fetch(&req->pending_children, p->messages, __ATOMIC_ACQ_REL);
    for (int m = 0; m < p->messages; m++)
        post_message(req, p, m);
    message_finished(req);
}

/* Some message would go through a host copy, which cannot reach device memory. */
static bool needs_device_copy(const part_t *p)
{
    const ol_datatype_t *dt = p->req->args.dt;
    size_t message_bytes = (size_t)p->layout.per_message * p->layout.partition_bytes;
    return p->device && !dt->contiguous && dt->size && message_bytes % dt->size != 0;
}

/* What the sides disagree on, if anything: the class each start ends with. */
static ol_status_t check_hello(part_t *p, ol_status_t received, const MPI_Status *status)
{
    if (received != OL_OK)
        return received;
    if (ol_status_get_bytes(status) != sizeof(part_hello_t) || p->layout.magic != HELLO_MAGIC ||
        p->layout.per_message == 0)
        return MPI_ERR_INTERN;
    p->sender_bytes = (uint64_t)p->layout.partitions * p->layout.partition_bytes;
    if (p->sender_bytes > own_bytes(p))
        return MPI_ERR_TRUNCATE;
    if (p->sender_bytes < own_bytes(p))
        return MPI_ERR_COUNT;
    return needs_device_copy(p) ? MPI_ERR_UNSUPPORTED_OPERATION : OL_OK;
}

/* The hello of p arrived: the layout is the sender's from now on. */
static void take_hello(part_t *p)
{
    MPI_Status status;
    ol_status_t received = ol_pt2pt_wait(p->hello_req, &status);
    p->hello_req = NULL;
    pthread_mutex_lock(&p->lock);
    p->mismatch = check_hello(p, received, &status);
    p->messages = received == OL_OK && p->mismatch != MPI_ERR_INTERN
                      ? message_count(&p->layout) : 0;
    p->arrived = calloc((size_t)p->messages + 1, 1);
    if (!p->arrived) {
        p->mismatch = MPI_ERR_NO_MEM;
        p->messages = 0;
    }
    __atomic_store_n(&p->matched, true, __ATOMIC_RELEASE);
    if (p->waiting && p->arrived) {
        p->waiting = false;
        post_round(p->req, p);
    } else if (p->waiting) {
        p->waiting = false;
        message_finished(p->req);
    }
    pthread_mutex_unlock(&p->lock);
}

/* The progress hook: takes the hellos that arrived. One thread at a time;
 * the others go on with their own progress. */
static int take_hellos(void)
{
    if (pthread_mutex_trylock(&waiting_lock) != 0)
        return 0;
    int taken = 0;
    for (part_t **at = &waiting; *at;) {
        part_t *p = *at;
        if (!ol_request_is_complete(p->hello_req)) {
            at = &p->next_waiting;
            continue;
        }
        *at = p->next_waiting;
        take_hello(p);
        taken++;
    }
    if (!waiting)
        ol_progress_hooks[OL_PROGRESS_PART] = NULL;
    pthread_mutex_unlock(&waiting_lock);
    return taken;
}

/* ---- set-up and release --------------------------------------------------- */

static ol_status_t send_hello(ol_request_t *req, const part_hello_t *layout)
{
    part_hello_t *hello = malloc(sizeof(*hello));
    if (!hello)
        return MPI_ERR_NO_MEM;
    *hello = *layout;
    const ol_op_args_t *a = &req->args;
    ol_request_t *hello_req;
    ol_status_t rc = ol_pt2pt_isend(hello, sizeof(*hello), bytes_type(), a->peer, a->tag, a->comm,
                                    OL_TAGSPACE_PART, OL_SEND_STANDARD, &hello_req);
    if (rc != OL_OK) {
        free(hello);
        return rc;
    }
    hello_req->owner = hello;
    hello_req->on_release = free_owner;
    ol_request_free_when_complete(hello_req);
    return OL_OK;
}

static ol_status_t send_init(ol_request_t *req, part_t *p)
{
    uint32_t per_message = (uint32_t)((p->partitions + MAX_MESSAGES - 1) / MAX_MESSAGES);
    p->layout = (part_hello_t){.magic = HELLO_MAGIC, .partitions = (uint32_t)p->partitions,
                               .partition_bytes = p->partition_bytes,
                               .per_message = per_message ? per_message : 1};
    p->messages = message_count(&p->layout);
    p->ready = calloc((size_t)p->partitions + 1, 1);
    p->message_ready = calloc((size_t)p->messages + 1, sizeof(int));
    if (!p->ready || !p->message_ready)
        return MPI_ERR_NO_MEM;
    if (req->args.peer == MPI_PROC_NULL)
        return OL_OK;
    p->channel = channel_take();
    if (p->channel < 0) {
        ol_error_detail("%d partitioned sends exist already in this process, the most it can "
                        "hold at once; free some with MPI_Request_free", (int)CHANNELS);
        return MPI_ERR_OTHER;
    }
    p->layout.first_tag = (uint32_t)(OL_PART_TAG_FIRST + p->channel * MAX_MESSAGES);
    return send_hello(req, &p->layout);
}

static ol_status_t recv_init(ol_request_t *req, part_t *p)
{
    const ol_op_args_t *a = &req->args;
    if (a->peer == MPI_PROC_NULL) {
        p->arrived = calloc(1, 1);
        p->matched = true;
        return p->arrived ? OL_OK : MPI_ERR_NO_MEM;
    }
    ol_status_t rc = ol_pt2pt_irecv(&p->layout, sizeof(p->layout), bytes_type(), a->peer, a->tag,
                                    a->comm, OL_TAGSPACE_PART, &p->hello_req);
    if (rc == OL_OK)
        waiting_add(p);
    return rc;
}

/* A receive freed before its hello came: takes its hello receive back. */
static void forget_hello(part_t *p)
{
    pthread_mutex_lock(&waiting_lock);
    bool listed = waiting_remove(p);
    if (!waiting)
        ol_progress_hooks[OL_PROGRESS_PART] = NULL;
    pthread_mutex_unlock(&waiting_lock);
    if (!listed || !p->hello_req)
        return;
    ol_pt2pt_cancel(p->hello_req);
    ol_pt2pt_wait(p->hello_req, NULL);
}

static void part_release(ol_request_t *req)
{
    part_t *p = req->owner;
    if (!p)
        return;
    /* Only an inactive receive can be unmatched: released by MPI_Request_free
     * itself, never inside a completion (where take_hellos may hold the lock). */
    if (!p->send && !p->matched)
        forget_hello(p);
    if (p->channel >= 0)
        channel_give(p->channel);
    pthread_mutex_destroy(&p->lock);
    free(p->ready);
    free(p->message_ready);
    free(p->arrived);
    free(p);
    req->owner = NULL;
}

ol_status_t ol_part_init(ol_request_kind_t direction, const ol_op_args_t *args, int partitions,
                         ol_request_t **request)
{
    ol_request_t *req;
    ol_status_t rc = ol_pt2pt_prepare(OL_REQ_PART, args, &req);
    if (rc != OL_OK)
        return rc;
    part_t *p = calloc(1, sizeof(*p));
    if (!p) {
        ol_request_release(req);
        return MPI_ERR_NO_MEM;
    }
    *p = (part_t){.req = req, .send = direction == OL_REQ_SEND, .partitions = partitions,
                  .partition_bytes = (size_t)args->count * args->dt->size, .channel = -1,
                  .device = ol_dev_buffer(args->buf, args->count * partitions, args->dt)};
    pthread_mutex_init(&p->lock, NULL);
    req->owner = p;
    req->on_release = part_release;
    req->on_complete = request_done;
    req->persistent = true;
    req->active = false;
    req->complete = 1;
    ol_status_set_empty(&req->status);
    rc = p->send ? send_init(req, p) : recv_init(req, p);
    if (rc != OL_OK) {
        ol_request_release(req);
        return rc;
    }
    *request = req;
    return OL_OK;
}

/* ---- starting ------------------------------------------------------------ */

/* Nothing is sent before MPI_Pready: each message waits for its partitions. */
static ol_status_t start_send(ol_request_t *req, part_t *p)
{
    ol_status_set_empty(&req->status);
    memset(p->ready, 0, (size_t)p->partitions);
    memset(p->message_ready, 0, sizeof(int) * (size_t)p->messages);
    req->pending_children = p->messages;
    if (p->messages == 0)
        ol_request_complete(req, OL_OK);
    return OL_OK;
}

/* The round's receives, now or, before the hello, once it arrives; the
 * request holds one count of its own until they are posted. */
static ol_status_t start_recv(ol_request_t *req, part_t *p)
{
    req->pending_children = 1;
    pthread_mutex_lock(&p->lock);
    if (p->matched)
        post_round(req, p);
    else
        p->waiting = true;
    pthread_mutex_unlock(&p->lock);
    return OL_OK;
}

ol_status_t ol_part_start(ol_request_t *req)
{
    part_t *p = req->owner;
    return p->send ? start_send(req, p) : start_recv(req, p);
}

/* ---- MPI_Pready and MPI_Parrived -------------------------------------------- */

static ol_status_t check_active(const ol_request_t *req, bool send, const char *call)
{
    const part_t *p = req->owner;
    if (p->send != send) {
        ol_error_detail("request is a partitioned %s; %s takes a partitioned %s",
                        p->send ? "send" : "receive", call, send ? "send" : "receive");
        return MPI_ERR_REQUEST;
    }
    if (!req->active) {
        ol_error_detail("request is not active: %s needs MPI_Start (or MPI_Startall) first, and "
                        "again after each completion",
                        call);
        return MPI_ERR_REQUEST;
    }
    return OL_OK;
}

static ol_status_t check_partition(const part_t *p, int partition, const char *what)
{
    if (partition >= 0 && partition < p->partitions)
        return OL_OK;
    if (p->partitions == 0)
        ol_error_detail("%s is %d, but the request has no partitions", what, partition);
    else
        ol_error_detail("%s is %d, out of range: the request has %d partitions (0 .. %d)", what,
                        partition, p->partitions, p->partitions - 1);
    return MPI_ERR_ARG;
}

static ol_status_t check_not_ready(const part_t *p, int partition)
{
    if (!__atomic_load_n(&p->ready[partition], __ATOMIC_ACQUIRE))
        return OL_OK;
    ol_error_detail("partition %d is already ready since the last MPI_Start: each partition is "
                    "marked once per start",
                    partition);
    return MPI_ERR_REQUEST;
}

/* Marks one checked partition; the call that completes a message sends it. */
static ol_status_t mark_ready(ol_request_t *req, part_t *p, int partition)
{
    if (__atomic_exchange_n(&p->ready[partition], 1, __ATOMIC_ACQ_REL))
        return check_not_ready(p, partition); /* another thread marked it meanwhile */
    int m = partition / (int)p->layout.per_message, first, n;
    message_partitions(&p->layout, m, &first, &n);
    if (__atomic_add_fetch(&p->message_ready[m], 1, __ATOMIC_ACQ_REL) == n)
        post_message(req, p, m);
    return OL_OK;
}

ol_status_t ol_part_ready_range(ol_request_t *req, int low, int high)
{
    part_t *p = req->owner;
    ol_status_t rc = check_active(req, true, "MPI_Pready");
    if (rc == OL_OK && low == high)
        rc = check_partition(p, low, "partition");
    if (rc == OL_OK && low > high) {
        ol_error_detail("partition_low %d is above partition_high %d", low, high);
        rc = MPI_ERR_ARG;
    }
    if (rc == OL_OK)
        rc = check_partition(p, low, "partition_low");
    if (rc == OL_OK)
        rc = check_partition(p, high, "partition_high");
    for (int i = low; rc == OL_OK && i <= high; i++)
        rc = check_not_ready(p, i);
    for (int i = low; rc == OL_OK && i <= high; i++)
        rc = mark_ready(req, p, i);
    return rc;
}

ol_status_t ol_part_ready_list(ol_request_t *req, int length, const int partitions[])
{
    part_t *p = req->owner;
    ol_status_t rc = check_active(req, true, "MPI_Pready_list");
    if (rc == OL_OK && length < 0) {
        ol_error_detail("length is %d, must be >= 0", length);
        rc = MPI_ERR_ARG;
    }
    if (rc == OL_OK && length > 0 && !partitions) {
        ol_error_detail("array_of_partitions is NULL for %d partitions", length);
        rc = MPI_ERR_ARG;
    }
    for (int i = 0; rc == OL_OK && i < length; i++)
        rc = check_partition(p, partitions[i], "a partition of array_of_partitions");
    for (int i = 0; rc == OL_OK && i < length; i++)
        rc = check_not_ready(p, partitions[i]);
    for (int i = 0; rc == OL_OK && i < length; i++)
        rc = mark_ready(req, p, partitions[i]);
    return rc;
}

/* Whether the messages that hold partition's bytes have all arrived. */
static bool partition_arrived(const ol_request_t *req, const part_t *p, int partition)
{
    if (ol_request_is_complete(req))
        return true;
    if (!__atomic_load_n(&p->matched, __ATOMIC_ACQUIRE))
        return false;
    size_t message_bytes = (size_t)p->layout.per_message * p->layout.partition_bytes;
    if (p->partition_bytes == 0 || message_bytes == 0)
        return false; /* nothing to wait for but the request itself */
    size_t first = (size_t)partition * p->partition_bytes / message_bytes;
    size_t last = ((size_t)(partition + 1) * p->partition_bytes - 1) / message_bytes;
    if (first >= (size_t)p->messages)
        return false; /* beyond what the sender sends: the request ends in error */
    if (last >= (size_t)p->messages)
        last = (size_t)p->messages - 1;
    for (size_t m = first; m <= last; m++)
        if (!__atomic_load_n(&p->arrived[m], __ATOMIC_ACQUIRE))
            return false;
    return true;
}

ol_status_t ol_part_arrived(ol_request_t *req, int partition, int *flag)
{
    part_t *p = req->owner;
    ol_status_t rc = check_active(req, false, "MPI_Parrived");
    if (rc == OL_OK)
        rc = check_partition(p, partition, "partition");
    if (rc != OL_OK)
        return rc;
    *flag = partition_arrived(req, p, partition);
    if (!*flag) {
        ol_progress();
        *flag = partition_arrived(req, p, partition);
    }
    if (!*flag)
        ol_poll_found_nothing(); /* a program polls MPI_Parrived */
    return OL_OK;
}

/* ---- errors --------------------------------------------------------------- */

void ol_part_explain(const ol_request_t *req)
{
    const part_t *p = req->owner;
    if (!p || p->send || req->error != p->mismatch)
        return;
    const ol_op_args_t *u = &req->args;
    switch (p->mismatch) {
    case MPI_ERR_TRUNCATE:
    case MPI_ERR_COUNT:
        ol_error_detail("the matching MPI_Psend_init sends %llu bytes (%u partitions of %llu), "
                        "this MPI_Precv_init takes %zu (%d partitions of %lld elements of %s): "
                        "the total sizes must be equal",
                        (unsigned long long)p->sender_bytes, p->layout.partitions,
                        (unsigned long long)p->layout.partition_bytes, own_bytes(p),
                        p->partitions, (long long)u->count, ol_dt_name(u->dt));
        break;
    case MPI_ERR_UNSUPPORTED_OPERATION:
        ol_error_detail("the sender's partitions of %llu bytes end inside elements of %s, a "
                        "non-contiguous type, in device memory: receive into a contiguous type "
                        "or with partitions that hold whole elements",
                        (unsigned long long)p->layout.partition_bytes, ol_dt_name(u->dt));
        break;
    case MPI_ERR_INTERN:
        ol_error_detail("the handshake of the matching MPI_Psend_init was not one of ompi-lite's");
        break;
    default:
        break;
    }
}
