/* Buffered sends: the message is packed into the buffer the user attached
 * (to the communicator, else to the session the communicator derives from,
 * else to the process) and sent from there, so MPI_Bsend returns at once. The space is allocated first-fit in the user's buffer;
 * each message's header (within MPI_BSEND_OVERHEAD) keeps the list of used
 * segments in address order. MPI_BUFFER_AUTOMATIC mallocs each message.
 * Threads allocate while progress, on any thread, frees what was sent.
 * A flush waits until no message is pending; MPI_Buffer_iflush's request is
 * completed by whoever finishes the last one. */
#include "ucx_ops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct segment {
    struct segment *next;        /* the next used segment, in address order */
    struct ol_bsend_buffer *owner;
    size_t length;               /* header included */
} segment_t;

_Static_assert(sizeof(segment_t) <= MPI_BSEND_OVERHEAD, "a header fits the overhead");

/* An MPI_Buffer_iflush (or MPI_Comm_iflush_buffer) waiting for the buffer's
 * messages. */
typedef struct flush_waiter {
    struct flush_waiter *next;
    ol_request_t *request;
} flush_waiter_t;

struct ol_bsend_buffer {
    char *base;                  /* MPI_BUFFER_AUTOMATIC: NULL */
    size_t size;
    pthread_mutex_t lock;        /* guards used, flushes, and pending's way down */
    segment_t *used;
    int pending;                 /* messages not yet sent */
    flush_waiter_t *flushes;
};

static ol_bsend_buffer_t *process_buffer;

ol_bsend_buffer_t **ol_bsend_slot(ol_comm_t *comm)
{
    return comm ? &comm->bsend_buffer : &process_buffer;
}

ol_status_t ol_bsend_attach(ol_bsend_buffer_t **slot, void *buffer, MPI_Count size)
{
    if (*slot) {
        ol_error_detail("a buffer is already attached; detach it first");
        return MPI_ERR_BUFFER;
    }
    ol_bsend_buffer_t *b = calloc(1, sizeof(*b));
    if (!b)
        return MPI_ERR_NO_MEM;
    pthread_mutex_init(&b->lock, NULL);
    if (buffer != MPI_BUFFER_AUTOMATIC) {
        b->base = buffer;
        b->size = (size_t)size;
    }
    *slot = b;
    return OL_OK;
}

static bool no_pending(void *arg)
{
    return __atomic_load_n(&((ol_bsend_buffer_t *)arg)->pending, __ATOMIC_ACQUIRE) == 0;
}

static void wait_drained(ol_bsend_buffer_t *b)
{
    if (!no_pending(b))
        ol_progress_wait(no_pending, b);
}

ol_status_t ol_bsend_detach(ol_bsend_buffer_t **slot, void **buffer, MPI_Count *size)
{
    ol_bsend_buffer_t *b = *slot;
    if (!b) { /* nothing attached: nothing to give back */
        *buffer = NULL;
        *size = 0;
        return OL_OK;
    }
    wait_drained(b);
    /* The last message's completion may still hold the lock. */
    pthread_mutex_lock(&b->lock);
    pthread_mutex_unlock(&b->lock);
    *buffer = b->base ? b->base : MPI_BUFFER_AUTOMATIC;
    *size = (MPI_Count)b->size;
    *slot = NULL;
    pthread_mutex_destroy(&b->lock);
    free(b);
    return OL_OK;
}

ol_status_t ol_bsend_flush(ol_bsend_buffer_t **slot)
{
    ol_bsend_buffer_t *b = *slot;
    if (b)
        wait_drained(b);
    return OL_OK;
}

ol_status_t ol_bsend_iflush(ol_bsend_buffer_t **slot, ol_request_t **request)
{
    ol_request_t *req = ol_request_alloc(OL_REQ_COMPOUND);
    flush_waiter_t *waiter = malloc(sizeof(*waiter));
    if (!req || !waiter) {
        free(waiter);
        if (req)
            ol_request_release(req);
        return MPI_ERR_NO_MEM;
    }
    ol_status_set_empty(&req->status);
    *request = req;
    ol_bsend_buffer_t *b = *slot;
    bool waits = false;
    if (b) {
        pthread_mutex_lock(&b->lock);
        waits = __atomic_load_n(&b->pending, __ATOMIC_ACQUIRE) > 0;
        if (waits) {
            *waiter = (flush_waiter_t){b->flushes, req};
            b->flushes = waiter;
        }
        pthread_mutex_unlock(&b->lock);
    }
    if (!waits) {
        free(waiter);
        ol_request_complete(req, OL_OK);
    }
    return OL_OK;
}

static void complete_flushes(flush_waiter_t *waiter)
{
    if (!waiter)
        return;
    while (waiter) {
        flush_waiter_t *next = waiter->next;
        ol_request_complete(waiter->request, OL_OK);
        free(waiter);
        waiter = next;
    }
    /* A thread may sleep on the worker waiting for one of them. */
    ucp_worker_signal(ol_rt.ucp_worker);
}

void ol_bsend_finalize(void)
{
    if (process_buffer)
        wait_drained(process_buffer);
}

/* First fit: the lowest gap between used segments that holds length. The
 * segment is whole before it is linked: other threads walk the list. */
static segment_t *first_fit(ol_bsend_buffer_t *b, size_t length)
{
    char *start = b->base;
    segment_t **link = &b->used;
    for (segment_t *s = b->used;; link = &s->next, s = s->next) {
        char *end = s ? (char *)s : b->base + b->size;
        if ((size_t)(end - start) >= length) {
            segment_t *seg = (segment_t *)start;
            *seg = (segment_t){.next = s, .owner = b, .length = length};
            *link = seg;
            return seg;
        }
        if (!s)
            return NULL;
        start = (char *)s + s->length;
    }
}

static segment_t *try_allocate(ol_bsend_buffer_t *b, size_t length)
{
    if (b->base) {
        pthread_mutex_lock(&b->lock);
        segment_t *seg = first_fit(b, length);
        pthread_mutex_unlock(&b->lock);
        return seg;
    }
    segment_t *seg = malloc(length);
    if (seg)
        *seg = (segment_t){.owner = b, .length = length};
    return seg;
}

/* When the buffer is full, messages already sent may only wait for
 * progress to give their space back (the acknowledgements are in): take
 * those, without waiting for receivers that have not come yet, since a
 * full buffer is the program's error. */
static segment_t *allocate(ol_bsend_buffer_t *b, size_t length)
{
    segment_t *seg = try_allocate(b, length);
    while (!seg && __atomic_load_n(&b->pending, __ATOMIC_ACQUIRE) > 0 && ol_progress() > 0)
        seg = try_allocate(b, length);
    return seg;
}

static void unlink_segment(ol_bsend_buffer_t *b, segment_t *seg)
{
    segment_t **link = &b->used;
    while (*link != seg)
        link = &(*link)->next;
    *link = seg->next;
}

/* Gives back the space of a message that was never started. */
static void release(ol_bsend_buffer_t *b, segment_t *seg)
{
    if (!b->base) {
        free(seg);
        return;
    }
    pthread_mutex_lock(&b->lock);
    unlink_segment(b, seg);
    pthread_mutex_unlock(&b->lock);
}

/* A started message is done with (sent, or its start failed): its space is
 * given back, and the last pending one completes the flushes that wait.
 * The buffer is not touched after the unlock: a detach may free it then. */
static void message_done(ol_bsend_buffer_t *b, segment_t *seg)
{
    bool automatic = !b->base;
    flush_waiter_t *flushed = NULL;
    pthread_mutex_lock(&b->lock);
    if (!automatic)
        unlink_segment(b, seg);
    if (__atomic_sub_fetch(&b->pending, 1, __ATOMIC_ACQ_REL) == 0) {
        flushed = b->flushes;
        b->flushes = NULL;
    }
    pthread_mutex_unlock(&b->lock);
    if (automatic)
        free(seg);
    complete_flushes(flushed);
}

static void copy_sent(ol_request_t *req)
{
    segment_t *seg = (segment_t *)req->bounce;
    message_done(seg->owner, seg);
}

static size_t aligned(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* The communicator's own buffer, else its session's, else the process's
 * (MPI-4.1 3.6). */
static ol_bsend_buffer_t *buffer_for(const ol_comm_t *comm)
{
    if (comm->bsend_buffer)
        return comm->bsend_buffer;
    if (comm->session_bsend_buffer && *comm->session_bsend_buffer)
        return *comm->session_bsend_buffer;
    return process_buffer;
}

ol_status_t ol_bsend_start(const ol_op_args_t *a, uint32_t *ring_seq)
{
    ol_bsend_buffer_t *b = buffer_for(a->comm);
    size_t bytes = (size_t)a->count * a->dt->size;
    if (!b) {
        ol_error_detail("no buffer is attached to the communicator, to its session or to the "
                        "process (MPI_Comm_attach_buffer, MPI_Session_attach_buffer, "
                        "MPI_Buffer_attach)");
        return MPI_ERR_BUFFER;
    }
    size_t header = aligned(sizeof(segment_t));
    segment_t *seg = allocate(b, header + aligned(bytes));
    if (!seg) {
        ol_error_detail("the attached buffer has no room for another message");
        return MPI_ERR_BUFFER;
    }
    char *copy = (char *)seg + header;
    ol_status_t rc = ol_pt2pt_pack(a->buf, a->count, a->dt, copy);
    if (rc != OL_OK) {
        release(b, seg);
        return rc;
    }

    /* The request frees the space when the copy has been sent; it is set up
     * before it starts, since it may complete at once or on another thread. */
    ol_op_args_t copy_args = {copy, (MPI_Count)bytes, ol_dt_from_handle(MPI_BYTE), a->peer,
                              a->tag, a->comm, a->space, OL_SEND_STANDARD};
    ol_request_t *req;
    rc = ol_pt2pt_prepare(OL_REQ_SEND, &copy_args, &req);
    if (rc != OL_OK) {
        release(b, seg);
        return rc;
    }
    req->bounce = seg;
    req->on_complete = copy_sent;
    __atomic_add_fetch(&b->pending, 1, __ATOMIC_ACQ_REL);
    rc = ol_pt2pt_start(req);
    if (rc != OL_OK) {
        message_done(b, seg);
        ol_request_release(req);
        return rc;
    }
    *ring_seq = req->ring_seq; /* MPI_Cancel of the user's request names this message */
    ol_request_free_when_complete(req); /* nobody waits for it */
    return OL_OK;
}
