/* The messages of one-sided communication: sending them, taking them in
 * (the progress hook), and what a target does with each (README.md). */
#include "ol_accel.h"
#include "ol_log.h"
#include "rma_internal.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t state_lock;
static pthread_once_t state_lock_once = PTHREAD_ONCE_INIT;
static ol_rma_state_t *live_windows;
/* The thread inside the hook: a send it makes progresses, which must not
 * handle the next message before this one is done. */
static __thread bool in_hook __attribute__((tls_model("initial-exec")));
/* How deep this thread holds state_lock (it is recursive). */
static __thread int held __attribute__((tls_model("initial-exec")));

/* The lock is taken only where threads may call MPI at once (a program at
 * MPI_THREAD_MULTIPLE, or the progress thread of RMA_PROGRESS_US): a put
 * and its flush on one host cost two locks and unlocks else, a third of
 * their time. */
static bool threads_concurrent(void)
{
    return ol_rt.thread_level == MPI_THREAD_MULTIPLE;
}

static void make_state_lock(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&state_lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

void ol_rma_lock_state(void)
{
    if (threads_concurrent()) {
        pthread_once(&state_lock_once, make_state_lock);
        pthread_mutex_lock(&state_lock);
    }
    held++;
}

void ol_rma_unlock_state(void)
{
    held--;
    if (threads_concurrent())
        pthread_mutex_unlock(&state_lock);
}

static ol_datatype_t *bytes_type(void)
{
    return ol_dt_from_handle(MPI_BYTE);
}

/* ---- sending ------------------------------------------------------------- */

/* Buffers of messages too large for a bundle (below). */
static void *buffer_take(size_t bytes);
static void buffer_give(void *buf);

/* Frees what the messages that left took; lock held. */
static int reap_outgoing(ol_rma_state_t *s)
{
    int done = 0;
    for (ol_rma_transfer_t **t = &s->outgoing; *t;) {
        ol_rma_transfer_t *out = *t;
        if (!ol_request_is_complete(out->request)) {
            t = &out->next;
            continue;
        }
        if (out->request->error != MPI_SUCCESS)
            OL_WARN("rma", "a one-sided message of %zu bytes to rank %d was lost: error %d",
                        out->bytes, out->peer, out->request->error);
        *t = out->next;
        ol_request_free_when_complete(out->request);
        buffer_give(out->buf);
        free(out);
        done++;
    }
    return done;
}

char *ol_rma_message_new(const ol_rma_msg_t *hdr, const ol_rma_block_t *blocks,
                         size_t payload_bytes, char **payload, size_t *bytes)
{
    size_t block_bytes = hdr->nblocks * sizeof(ol_rma_block_t);
    *bytes = sizeof(*hdr) + block_bytes + payload_bytes;
    char *msg = buffer_take(*bytes);
    if (!msg) {
        ol_error_detail("out of memory for a one-sided message of %zu bytes", *bytes);
        return NULL;
    }
    memcpy(msg, hdr, sizeof(*hdr));
    if (block_bytes)
        memcpy(msg + sizeof(*hdr), blocks, block_bytes);
    *payload = msg + sizeof(*hdr) + block_bytes;
    return msg;
}

/* Sends bytes of data to peer under tag, tracked until out; owned (data
 * or NULL) is freed then, or at once on failure. */
static ol_status_t send_tracked(ol_rma_state_t *s, int peer, int tag, const void *data,
                                size_t bytes, char *owned)
{
    ol_rma_transfer_t *out = malloc(sizeof(*out));
    if (!out) {
        free(owned);
        ol_error_detail("out of memory for a one-sided message of %zu bytes", bytes);
        return MPI_ERR_NO_MEM;
    }
    *out = (ol_rma_transfer_t){.buf = owned, .bytes = bytes, .peer = peer};
    ol_status_t rc = ol_pt2pt_isend(data, (MPI_Count)bytes, bytes_type(), peer, tag,
                                    s->win->comm, OL_TAGSPACE_USER, OL_SEND_STANDARD,
                                    &out->request);
    if (rc != MPI_SUCCESS) {
        free(owned);
        free(out);
        return rc;
    }
    out->next = s->outgoing;
    s->outgoing = out;
    return MPI_SUCCESS;
}

/* Sends msg on its own; takes it. */
static ol_status_t send_now(ol_rma_state_t *s, int peer, char *msg, size_t bytes)
{
    return send_tracked(s, peer, OL_RMA_TAG, msg, bytes, msg);
}

/* ---- bundles ------------------------------------------------------------- */

/* Between hosts over TCP each message costs its sender a pass through the
 * network stack and its target a turn of progress: between 2 namespace
 * hosts an accumulate and its flush, two messages, took 24-34 us, a
 * fetch-and-op and its answer 14. So the message of an operation, or of an
 * answer, of at most BUNDLE_MESSAGE_BYTES waits, per peer, for the next
 * message of synchronisation to that peer (a lock, flush, unlock or
 * complete), which takes it along, for a wait for answers (sync.c), or for
 * the end of this pass of progress or the next (any MPI call that waits or
 * tests); they leave as one MSG_BUNDLE of up to BUNDLE_BYTES. An operation
 * with an answer is waited for with progress, so none waits for ever.
 * 64 KiB messages in bundles of 128 KiB (one piece of UCX's TCP transport,
 * whose pieces ompi-lite makes 129 KiB or more: UCX_TCP_SEG_SIZE): between 2
 * namespace hosts, 16/32 KiB accumulate + flush 28-36/34-38 -> 20-22/24-28
 * us, against 16 KiB messages in bundles of 64 KiB. */
#define BUNDLE_MESSAGE_BYTES 65536
#define BUNDLE_BYTES 131072

/* ---- buffers of large messages ---------------------------------------------- */

/* A message too large for a bundle has a buffer of its own at both ends.
 * malloc hands out blocks this big from fresh mappings, or from a heap that
 * it grows and free trims again, so every message faulted its pages in
 * anew: osu_acc_latency of 512 KiB between 2 namespace hosts made 354-548
 * brk calls a run in each process, 14-17 with these kept (its time is
 * within the noise there). So a few such buffers wait here for the next
 * message, rounded up to SPARE_ROUND so that messages a header apart share
 * them, and go at finalize. Lock held. */
enum { SPARES = 4, SPARE_ROUND = 65536, SPARES_MAX_BYTES = 16 << 20 };

static struct {
    void *buf;
    size_t capacity;
} spares[SPARES];
static size_t spare_bytes;

/* Room for a message of bytes (NULL when out of memory). */
static void *buffer_take(size_t bytes)
{
    if (bytes <= BUNDLE_MESSAGE_BYTES)
        return malloc(bytes ? bytes : 1);
    for (int i = 0; i < SPARES; i++)
        if (spares[i].buf && spares[i].capacity >= bytes && spares[i].capacity / 2 <= bytes) {
            void *buf = spares[i].buf;
            spare_bytes -= spares[i].capacity;
            spares[i].buf = NULL;
            return buf;
        }
    return malloc((bytes + SPARE_ROUND - 1) / SPARE_ROUND * SPARE_ROUND);
}

/* A message's buffer (from malloc) is free again. */
static void buffer_give(void *buf)
{
    size_t capacity = buf ? malloc_usable_size(buf) : 0;
    if (capacity > BUNDLE_MESSAGE_BYTES && spare_bytes + capacity <= SPARES_MAX_BYTES)
        for (int i = 0; i < SPARES; i++)
            if (!spares[i].buf) {
                spares[i].buf = buf;
                spares[i].capacity = capacity;
                spare_bytes += capacity;
                return;
            }
    free(buf);
}

static void spares_free(void)
{
    for (int i = 0; i < SPARES; i++) {
        free(spares[i].buf);
        spares[i].buf = NULL;
    }
    spare_bytes = 0;
}

static size_t padded(size_t bytes)
{
    return (bytes + 7) & ~(size_t)7;
}

/* Where the next message of b goes: its header first. */
static size_t bundle_end(const ol_rma_bundle_t *b)
{
    return b->bytes ? b->bytes : sizeof(ol_rma_msg_t);
}

/* b's size once a message of `bytes` joins it. */
static size_t bundle_end_with(const ol_rma_bundle_t *b, size_t bytes)
{
    return bundle_end(b) + sizeof(uint64_t) + padded(bytes);
}

static ol_status_t bundle_send(ol_rma_state_t *s, int peer);

/* Room for a message of `bytes` at the end of peer's bundle, which leaves
 * first if the message would make it outgrow BUNDLE_BYTES; NULL when out
 * of memory. The message joins the bundle with bundle_commit. */
static char *bundle_room(ol_rma_state_t *s, int peer, size_t bytes)
{
    ol_rma_bundle_t *b = &s->bundles[peer];
    if (bundle_end_with(b, bytes) > BUNDLE_BYTES && bundle_send(s, peer) != MPI_SUCCESS)
        return NULL;
    size_t end = bundle_end_with(b, bytes);
    if (end > b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 4096;
        while (capacity < end)
            capacity *= 2;
        char *buf = realloc(b->buf, capacity);
        if (!buf) {
            ol_error_detail("out of memory for a bundle of one-sided messages of %zu bytes", end);
            return NULL;
        }
        b->buf = buf;
        b->capacity = capacity;
    }
    return b->buf + bundle_end(b) + sizeof(uint64_t);
}

static void bundle_commit(ol_rma_state_t *s, int peer, size_t bytes)
{
    ol_rma_bundle_t *b = &s->bundles[peer];
    uint64_t length = bytes;
    memcpy(b->buf + bundle_end(b), &length, sizeof(length));
    if (!b->bytes)
        s->nbundled++;
    b->bytes = bundle_end_with(b, bytes);
}

static ol_status_t bundle_append(ol_rma_state_t *s, int peer, const char *msg, size_t bytes)
{
    char *at = bundle_room(s, peer, bytes);
    if (!at)
        return MPI_ERR_NO_MEM;
    memcpy(at, msg, bytes);
    bundle_commit(s, peer, bytes);
    return MPI_SUCCESS;
}

char *ol_rma_message_in_bundle(ol_rma_state_t *s, int peer, const ol_rma_msg_t *hdr,
                               const ol_rma_block_t *blocks, size_t payload_bytes,
                               char **payload, size_t *bytes)
{
    size_t block_bytes = hdr->nblocks * sizeof(ol_rma_block_t);
    *bytes = sizeof(*hdr) + block_bytes + payload_bytes;
    char *msg = *bytes <= BUNDLE_MESSAGE_BYTES ? bundle_room(s, peer, *bytes) : NULL;
    if (!msg)
        return NULL;
    memcpy(msg, hdr, sizeof(*hdr));
    if (block_bytes)
        memcpy(msg + sizeof(*hdr), blocks, block_bytes);
    *payload = msg + sizeof(*hdr) + block_bytes;
    return msg;
}

void ol_rma_message_join_bundle(ol_rma_state_t *s, int peer, size_t bytes)
{
    bundle_commit(s, peer, bytes);
}

/* Sends what waits for peer, as one message. */
static ol_status_t bundle_send(ol_rma_state_t *s, int peer)
{
    ol_rma_bundle_t *b = &s->bundles[peer];
    if (!b->bytes)
        return MPI_SUCCESS;
    ol_rma_msg_t hdr = {.kind = MSG_BUNDLE, .bytes = b->bytes - sizeof(hdr)};
    memcpy(b->buf, &hdr, sizeof(hdr));
    char *msg = b->buf;
    size_t bytes = b->bytes;
    *b = (ol_rma_bundle_t){0};
    s->nbundled--;
    return send_now(s, peer, msg, bytes);
}

void ol_rma_send_bundles(ol_rma_state_t *s)
{
    for (int r = 0; s->nbundled > 0 && r < s->size; r++)
        if (bundle_send(s, r) != MPI_SUCCESS)
            OL_WARN("rma", "a bundle of one-sided messages to rank %d could not be sent", r);
}

void ol_rma_bundles_free(ol_rma_state_t *s)
{
    for (int r = 0; s->bundles && r < s->size; r++)
        free(s->bundles[r].buf);
    free(s->bundles);
    s->bundles = NULL;
    s->nbundled = 0;
}

ol_status_t ol_rma_message_send(ol_rma_state_t *s, int peer, char *msg, size_t bytes)
{
    if (bytes > s->largest_sent)
        s->largest_sent = bytes;
    if (!s->bundles[peer].bytes)
        return send_now(s, peer, msg, bytes);
    ol_status_t rc = MPI_SUCCESS;
    if (bytes <= BUNDLE_MESSAGE_BYTES) { /* it rides along */
        rc = bundle_append(s, peer, msg, bytes);
        free(msg);
        return rc == MPI_SUCCESS ? bundle_send(s, peer) : rc;
    }
    rc = bundle_send(s, peer);
    if (rc != MPI_SUCCESS) {
        free(msg);
        return rc;
    }
    return send_now(s, peer, msg, bytes);
}

ol_status_t ol_rma_message_send_later(ol_rma_state_t *s, int peer, char *msg, size_t bytes)
{
    if (bytes > BUNDLE_MESSAGE_BYTES)
        return ol_rma_message_send(s, peer, msg, bytes);
    ol_status_t rc = bundle_append(s, peer, msg, bytes);
    free(msg);
    return rc;
}

/* A message of hdr, blocks and a copy of the payload (*bytes in all). */
static char *message_copy(const ol_rma_msg_t *hdr, const ol_rma_block_t *blocks,
                          const void *payload, size_t payload_bytes, size_t *bytes)
{
    char *at;
    char *msg = ol_rma_message_new(hdr, blocks, payload_bytes, &at, bytes);
    if (msg && payload_bytes)
        memcpy(at, payload, payload_bytes);
    return msg;
}

ol_status_t ol_rma_send(ol_rma_state_t *s, int peer, const ol_rma_msg_t *hdr,
                        const ol_rma_block_t *blocks, const void *payload, size_t payload_bytes)
{
    size_t bytes;
    char *msg = message_copy(hdr, blocks, payload, payload_bytes, &bytes);
    return msg ? ol_rma_message_send(s, peer, msg, bytes) : MPI_ERR_NO_MEM;
}

static bool outgoing_empty(void *arg)
{
    ol_rma_state_t *s = arg;
    ol_rma_lock_state();
    reap_outgoing(s);
    bool empty = s->outgoing == NULL;
    ol_rma_unlock_state();
    return empty;
}

void ol_rma_drain_outgoing(ol_rma_state_t *s)
{
    ol_rma_lock_state();
    ol_rma_send_bundles(s);
    ol_rma_unlock_state();
    ol_rma_wait_until(outgoing_empty, s);
}

/* ---- answers an origin waits for ------------------------------------------ */

ol_rma_pending_t *ol_rma_expect(ol_rma_state_t *s, int target, bool data, void *buf,
                                MPI_Count count, ol_datatype_t *dt, ol_request_t *request)
{
    ol_rma_pending_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    *p = (ol_rma_pending_t){.id = ++s->next_id, .target = target, .data = data, .buf = buf,
                            .count = count, .dt = dt, .request = request};
    if (dt)
        ol_dt_retain(dt);
    if (s->pending_tail)
        s->pending_tail->next = p;
    else
        s->pending = p;
    s->pending_tail = p;
    if (data)
        s->data_pending[target]++;
    return p;
}

static bool pending_done(void *arg)
{
    return ((ol_rma_pending_t *)arg)->done;
}

void ol_rma_wait_until(bool (*cond)(void *arg), void *arg)
{
    /* Released however deep this thread holds it, so that other threads'
     * calls and hooks run meanwhile. */
    int depth = held;
    for (int i = 0; i < depth; i++)
        ol_rma_unlock_state();
    ol_progress_wait(cond, arg);
    for (int i = 0; i < depth; i++)
        ol_rma_lock_state();
}

/* Unlinks and frees an answer (its request, if any, was completed). */
static void forget(ol_rma_state_t *s, ol_rma_pending_t *p)
{
    ol_rma_pending_t *prev = NULL;
    for (ol_rma_pending_t *q = s->pending; q && q != p; q = q->next)
        prev = q;
    if (prev)
        prev->next = p->next;
    else
        s->pending = p->next;
    if (s->pending_tail == p)
        s->pending_tail = prev;
    if (p->dt)
        ol_dt_release(p->dt);
    free(p);
}

ol_status_t ol_rma_await(ol_rma_state_t *s, ol_rma_pending_t *p)
{
    if (!p->done)
        ol_rma_wait_until(pending_done, p);
    ol_status_t rc = p->error;
    forget(s, p);
    return rc;
}

static ol_rma_pending_t *find_pending(ol_rma_state_t *s, uint64_t id)
{
    for (ol_rma_pending_t *p = s->pending; p; p = p->next)
        if (p->id == id)
            return p;
    return NULL;
}

ol_status_t ol_rma_receive_apart(ol_rma_state_t *s, ol_rma_pending_t *p)
{
    ol_status_t rc = ol_pt2pt_irecv(p->buf, p->count, p->dt, p->target, ol_rma_data_tag(p->id),
                                    s->win->comm, OL_TAGSPACE_USER, &p->data_apart);
    if (rc == MPI_SUCCESS) {
        s->ndata_apart++;
        __atomic_add_fetch(&s->apart_pending[p->target], 1, __ATOMIC_RELEASE);
    } else {
        ol_rma_unexpect(s, p);
    }
    return rc;
}

static void end_receive_apart(ol_rma_state_t *s, ol_rma_pending_t *p);

/* The get's data will not come: its receive is taken back. */
static void take_back_receive(ol_rma_state_t *s, ol_rma_pending_t *p)
{
    ol_pt2pt_cancel(p->data_apart);
    end_receive_apart(s, p);
}

void ol_rma_unexpect(ol_rma_state_t *s, ol_rma_pending_t *p)
{
    if (p->data_apart)
        take_back_receive(s, p);
    if (p->data)
        s->data_pending[p->target]--;
    forget(s, p);
}

/* The answer p waited for is in, with error rc: the request completed, the
 * get counted off. */
static void finish(ol_rma_state_t *s, ol_rma_pending_t *p, ol_status_t rc)
{
    if (rc != MPI_SUCCESS && s->deferred_error == MPI_SUCCESS && !p->request)
        s->deferred_error = rc;
    p->error = rc;
    if (p->data)
        s->data_pending[p->target]--;
    if (p->request) {
        /* Nobody awaits a request-based operation's entry: the request
         * carries the result. */
        ol_request_t *request = p->request;
        forget(s, p);
        ol_request_complete(request, rc);
        return;
    }
    if (p->data && !p->done) {
        /* A plain get: only counted, never awaited by itself. */
        forget(s, p);
        return;
    }
    __atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
}

static void end_receive_apart(ol_rma_state_t *s, ol_rma_pending_t *p)
{
    ol_request_free_when_complete(p->data_apart);
    p->data_apart = NULL;
    s->ndata_apart--;
    __atomic_sub_fetch(&s->apart_pending[p->target], 1, __ATOMIC_RELEASE);
}

/* Gets whose data sent apart has arrived are done. */
static int take_data_apart(ol_rma_state_t *s)
{
    int done = 0;
    for (ol_rma_pending_t *p = s->pending, *next; p && s->ndata_apart; p = next) {
        next = p->next;
        if (!p->data_apart || !ol_request_is_complete(p->data_apart))
            continue;
        ol_status_t rc = p->data_apart->error;
        end_receive_apart(s, p);
        finish(s, p, rc);
        done++;
    }
    return done;
}

/* A reply arrived: data into the origin's buffer, the request completed. A
 * get whose data comes apart is answered only when the target could not
 * send it: its receive is taken back. */
static void take_reply(ol_rma_state_t *s, const ol_rma_msg_t *hdr, const char *payload,
                       size_t payload_bytes)
{
    ol_rma_pending_t *p = find_pending(s, hdr->id);
    if (!p) {
        OL_WARN("rma", "a one-sided reply answers nothing this process asked (id %llu)",
                    (unsigned long long)hdr->id);
        return;
    }
    ol_status_t rc = hdr->error;
    if (p->data_apart) {
        take_back_receive(s, p);
        if (rc == MPI_SUCCESS)
            rc = MPI_ERR_INTERN;
    } else if (p->data && rc == MPI_SUCCESS) {
        size_t want = (size_t)p->count * p->dt->size;
        if (payload_bytes != want) {
            rc = MPI_ERR_OTHER;
            OL_WARN("rma", "a one-sided reply brought %zu bytes for %zu", payload_bytes, want);
        } else if (want) {
            rc = ol_pt2pt_unpack(payload, p->buf, p->count, p->dt);
        }
    }
    finish(s, p, rc);
}

/* ---- the target's side ----------------------------------------------------- */

static ol_status_t reply(ol_rma_state_t *s, int origin, uint64_t id, ol_status_t error,
                         const void *payload, size_t bytes)
{
    ol_rma_msg_t hdr = {.kind = MSG_REPLY, .error = error, .id = id};
    size_t payload_bytes = error == MPI_SUCCESS ? bytes : 0, msg_bytes;
    /* The answers of one pass of progress leave together at its end. */
    char *at;
    if (ol_rma_message_in_bundle(s, origin, &hdr, NULL, payload_bytes, &at, &msg_bytes)) {
        if (payload_bytes)
            memcpy(at, payload, payload_bytes);
        ol_rma_message_join_bundle(s, origin, msg_bytes);
        return MPI_SUCCESS;
    }
    char *msg = message_copy(&hdr, NULL, payload, payload_bytes, &msg_bytes);
    return msg ? ol_rma_message_send_later(s, origin, msg, msg_bytes) : MPI_ERR_NO_MEM;
}

/* The answer to a flush or unlock carries an error an earlier operation of
 * the origin met here, once. */
static ol_status_t take_origin_error(ol_rma_state_t *s, int origin)
{
    ol_status_t rc = s->origin_error[origin];
    s->origin_error[origin] = MPI_SUCCESS;
    return rc;
}

ol_status_t ol_rma_send_fence_marker(ol_rma_state_t *s, int peer)
{
    ol_rma_msg_t hdr = {.kind = MSG_FENCE, .error = take_origin_error(s, peer)};
    return ol_rma_send(s, peer, &hdr, NULL, NULL, 0);
}

static void take_fence_marker(ol_rma_state_t *s, const ol_rma_msg_t *hdr)
{
    if (hdr->error != MPI_SUCCESS && s->deferred_error == MPI_SUCCESS)
        s->deferred_error = hdr->error;
    __atomic_add_fetch(&s->fence_markers, 1, __ATOMIC_RELEASE);
}

/* The region attached at `at`, or NULL. */
static const ol_rma_region_t *region_at(const ol_rma_state_t *s, uintptr_t at)
{
    for (const ol_rma_region_t *r = s->regions; r; r = r->next)
        if (at >= r->base && at - r->base < r->size)
            return r;
    return NULL;
}

/* Whether [start, start + length) is attached memory: one region, or
 * regions attached side by side (as MPICH and Open MPI accept). */
static bool attached(const ol_rma_state_t *s, uintptr_t start, uint64_t length)
{
    uintptr_t at = start, end = start + length;
    if (end < start)
        return false;
    while (at < end) {
        const ol_rma_region_t *r = region_at(s, at);
        if (!r)
            return false;
        at = r->base + r->size;
    }
    return true;
}

/* Where the bytes [disp + offset, + length) of this process's window are, or
 * NULL when outside it. */
static char *window_bytes(const ol_rma_state_t *s, int64_t disp, int64_t offset, uint64_t length)
{
    const ol_win_t *win = s->win;
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        uintptr_t start = (uintptr_t)(disp + offset);
        return attached(s, start, length) ? (char *)start : NULL;
    }
    int64_t start = disp + offset;
    if (start < 0 || (uint64_t)start > (uint64_t)win->size ||
        length > (uint64_t)win->size - (uint64_t)start)
        return NULL;
    return (char *)win->base + start;
}

/* The message's target blocks, all inside the window; else false. */
static bool blocks_inside(const ol_rma_state_t *s, const ol_rma_msg_t *hdr,
                          const ol_rma_block_t *blocks)
{
    if (hdr->nblocks == 0)
        return hdr->bytes == 0 || window_bytes(s, hdr->disp, 0, hdr->bytes) != NULL;
    for (uint64_t i = 0; i < hdr->nblocks; i++)
        if (blocks[i].length && !window_bytes(s, hdr->disp, blocks[i].offset, blocks[i].length))
            return false;
    return true;
}

/* A copy into or out of window memory, which may be device memory (the
 * CPU never touches that: the driver copies). */
static ol_status_t window_copy(void *dst, const void *src, size_t bytes, const void *window)
{
    if (!ol_accel_is_device(window)) {
        memcpy(dst, src, bytes);
        return MPI_SUCCESS;
    }
    return ol_accel_copy(dst, src, bytes);
}

static ol_status_t gather(const ol_rma_state_t *s, const ol_rma_msg_t *hdr,
                          const ol_rma_block_t *blocks, char *dst)
{
    if (hdr->nblocks == 0) {
        char *at = window_bytes(s, hdr->disp, 0, hdr->bytes);
        return hdr->bytes ? window_copy(dst, at, hdr->bytes, at) : MPI_SUCCESS;
    }
    ol_status_t rc = MPI_SUCCESS;
    for (uint64_t i = 0; rc == MPI_SUCCESS && i < hdr->nblocks; i++) {
        char *at = window_bytes(s, hdr->disp, blocks[i].offset, blocks[i].length);
        rc = window_copy(dst, at, blocks[i].length, at);
        dst += blocks[i].length;
    }
    return rc;
}

static ol_status_t scatter(const ol_rma_state_t *s, const ol_rma_msg_t *hdr,
                           const ol_rma_block_t *blocks, const char *src)
{
    if (hdr->nblocks == 0) {
        char *at = window_bytes(s, hdr->disp, 0, hdr->bytes);
        return hdr->bytes ? window_copy(at, src, hdr->bytes, at) : MPI_SUCCESS;
    }
    ol_status_t rc = MPI_SUCCESS;
    for (uint64_t i = 0; rc == MPI_SUCCESS && i < hdr->nblocks; i++) {
        char *at = window_bytes(s, hdr->disp, blocks[i].offset, blocks[i].length);
        rc = window_copy(at, src, blocks[i].length, at);
        src += blocks[i].length;
    }
    return rc;
}

/* The op loops work on the type's C layout (a pair type's struct), so
 * packed data is laid out that way first where it differs. */
ol_status_t ol_rma_combine(ol_op_t *op, ol_datatype_t *basic, const char *in, char *target,
                           size_t n)
{
    if (basic->size == (size_t)basic->extent)
        return ol_op_apply(op, in, target, (MPI_Count)n, basic);
    size_t span = n * (size_t)basic->extent;
    char *a = malloc(span ? span : 1), *b = malloc(span ? span : 1);
    ol_status_t rc = MPI_ERR_NO_MEM;
    if (a && b) {
        ol_dt_unpack_all(basic, a, (MPI_Count)n, in);
        ol_dt_unpack_all(basic, b, (MPI_Count)n, target);
        rc = ol_op_apply(op, a, b, (MPI_Count)n, basic);
        ol_dt_pack_all(basic, b, (MPI_Count)n, target);
    }
    free(a);
    free(b);
    return rc;
}

bool ol_rma_atomic_type(const ol_datatype_t *basic)
{
    return basic && (basic->size == 4 || basic->size == 8) &&
           basic->size == (size_t)basic->extent &&
           ol_op_loop(ol_op_from_handle(MPI_BAND), basic) != NULL;
}

/* The ops the CPU has an instruction for, on a word of T: one atomic
 * read-modify-write; *done false for the others. */
#define NATIVE_ATOMIC(T, handle, at, in, done)                                                  \
    ({                                                                                          \
        T value_ = 0, *word_ = (T *)(at), old_ = 0;                                             \
        if ((handle) != MPI_NO_OP) /* MPI_NO_OP's message carries no data */                   \
            memcpy(&value_, (in), sizeof(T));                                                   \
        *(done) = true;                                                                         \
        if ((handle) == MPI_SUM)                                                                \
            old_ = __atomic_fetch_add(word_, value_, __ATOMIC_SEQ_CST);                         \
        else if ((handle) == MPI_BAND)                                                          \
            old_ = __atomic_fetch_and(word_, value_, __ATOMIC_SEQ_CST);                         \
        else if ((handle) == MPI_BOR)                                                           \
            old_ = __atomic_fetch_or(word_, value_, __ATOMIC_SEQ_CST);                          \
        else if ((handle) == MPI_BXOR)                                                          \
            old_ = __atomic_fetch_xor(word_, value_, __ATOMIC_SEQ_CST);                         \
        else if ((handle) == MPI_REPLACE)                                                       \
            old_ = __atomic_exchange_n(word_, value_, __ATOMIC_SEQ_CST);                        \
        else if ((handle) == MPI_NO_OP)                                                         \
            old_ = __atomic_load_n(word_, __ATOMIC_SEQ_CST);                                    \
        else                                                                                    \
            *(done) = false;                                                                    \
        (uint64_t) old_;                                                                        \
    })

void ol_rma_atomic_element(ol_op_t *op, const ol_datatype_t *basic, char *at, const char *in,
                           char *old)
{
    MPI_Op handle = ol_op_to_handle(op);
    bool done;
    uint64_t seen = basic->size == 4 ? NATIVE_ATOMIC(uint32_t, handle, at, in, &done)
                                     : NATIVE_ATOMIC(uint64_t, handle, at, in, &done);
    /* Any other op: compute, then swap in if nobody changed the word meanwhile. */
    while (!done) {
        uint64_t next = seen;
        ol_op_apply(op, in, &next, 1, (ol_datatype_t *)basic);
        if (basic->size == 4) {
            uint32_t expected = (uint32_t)seen;
            done = __atomic_compare_exchange_n((uint32_t *)at, &expected, (uint32_t)next, false,
                                               __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            seen = expected;
        } else {
            done = __atomic_compare_exchange_n((uint64_t *)at, &seen, next, false,
                                               __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        }
    }
    memcpy(old, &seen, basic->size); /* little-endian: the low bytes */
}

/* An accumulate on 4- or 8-byte integers of a window whose origins may
 * also use UCX's atomics on the same memory (they are the CPU's atomics,
 * UCX_ATOMIC_MODE=cpu): element by element, each atomic. */
static ol_status_t atomic_accumulate(ol_rma_state_t *s, const ol_rma_msg_t *hdr,
                                     const ol_rma_block_t *blocks, ol_op_t *op,
                                     ol_datatype_t *basic, const char *data, char *old)
{
    ol_rma_block_t one = {0, hdr->bytes};
    const ol_rma_block_t *list = hdr->nblocks ? blocks : &one;
    uint64_t n = hdr->nblocks ? hdr->nblocks : 1;
    for (uint64_t b = 0; b < n; b++) {
        char *at = window_bytes(s, hdr->disp, list[b].offset, list[b].length);
        for (uint64_t i = 0; i < list[b].length; i += basic->size) {
            ol_rma_atomic_element(op, basic, at + i, data, old);
            if (ol_op_to_handle(op) != MPI_NO_OP)
                data += basic->size;
            old += basic->size;
        }
    }
    return MPI_SUCCESS;
}

/* A plain accumulate applied where the data lies, block by block, with no
 * copy: host memory, a type whose packed and C layouts agree. False where
 * it cannot be. */
static bool accumulate_in_place(ol_rma_state_t *s, const ol_rma_msg_t *hdr,
                                const ol_rma_block_t *blocks, ol_op_t *op, ol_datatype_t *basic,
                                const char *data)
{
    ol_rma_block_t one = {0, hdr->bytes};
    const ol_rma_block_t *list = hdr->nblocks ? blocks : &one;
    uint64_t n = hdr->nblocks ? hdr->nblocks : 1;
    if (hdr->kind != MSG_ACCUMULATE || basic->size != (size_t)basic->extent)
        return false;
    for (uint64_t b = 0; b < n; b++)
        if (ol_accel_is_device(window_bytes(s, hdr->disp, list[b].offset, list[b].length)))
            return false;
    bool replace = ol_op_to_handle(op) == MPI_REPLACE;
    for (uint64_t b = 0; b < n; b++) {
        char *at = window_bytes(s, hdr->disp, list[b].offset, list[b].length);
        if (replace)
            memcpy(at, data, list[b].length);
        else
            ol_op_apply(op, data, at, (MPI_Count)(list[b].length / basic->size), basic);
        data += list[b].length;
    }
    return true;
}

/* An accumulate (with the old data sent back for get-accumulates): every
 * accumulate is handled here one at a time, whole, which makes them atomic
 * with respect to each other. */
static ol_status_t accumulate(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr,
                              const ol_rma_block_t *blocks, const char *data)
{
    ol_op_t *op = ol_op_from_handle((MPI_Op)(uintptr_t)hdr->op);
    ol_datatype_t *basic = ol_dt_from_handle((MPI_Datatype)(uintptr_t)hdr->basic);
    if (!op || !basic || !basic->predefined)
        return MPI_ERR_OP;
    bool atomics = s->cpu_atomic_accumulates && ol_rma_atomic_type(basic);
    if (!atomics && accumulate_in_place(s, hdr, blocks, op, basic, data))
        return MPI_SUCCESS;
    char *old = malloc(hdr->bytes ? hdr->bytes : 1);
    if (old && atomics) {
        ol_status_t rc = atomic_accumulate(s, hdr, blocks, op, basic, data, old);
        if (rc == MPI_SUCCESS && hdr->kind == MSG_GET_ACCUMULATE)
            rc = reply(s, origin, hdr->id, MPI_SUCCESS, old, hdr->bytes);
        free(old);
        return rc;
    }
    if (!old)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = gather(s, hdr, blocks, old);
    if (rc == MPI_SUCCESS && hdr->kind == MSG_GET_ACCUMULATE)
        rc = reply(s, origin, hdr->id, MPI_SUCCESS, old, hdr->bytes);
    MPI_Op handle = ol_op_to_handle(op);
    if (rc == MPI_SUCCESS && handle == MPI_REPLACE)
        rc = scatter(s, hdr, blocks, data);
    else if (rc == MPI_SUCCESS && handle != MPI_NO_OP) {
        rc = ol_rma_combine(op, basic, data, old, hdr->bytes / basic->size);
        if (rc == MPI_SUCCESS)
            rc = scatter(s, hdr, blocks, old);
    }
    free(old);
    return rc;
}

static ol_status_t compare_and_swap(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr,
                                    const char *data)
{
    char *at = window_bytes(s, hdr->disp, 0, hdr->bytes);
    char old[64];
    if (hdr->bytes > sizeof(old))
        return MPI_ERR_TYPE;
    ol_status_t rc = window_copy(old, at, hdr->bytes, at);
    if (rc == MPI_SUCCESS && memcmp(old, data + hdr->bytes, hdr->bytes) == 0)
        rc = window_copy(at, data, hdr->bytes, at); /* data: origin, then compare */
    return reply(s, origin, hdr->id, rc, old, hdr->bytes);
}

/* A large get's data, sent apart from the replies: from the window itself
 * where it is one block; an error is answered instead. */
static ol_status_t send_apart(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr,
                              const ol_rma_block_t *blocks)
{
    if (hdr->nblocks == 0)
        return send_tracked(s, origin, ol_rma_data_tag(hdr->id),
                            window_bytes(s, hdr->disp, 0, hdr->bytes), hdr->bytes, NULL);
    char *data = malloc(hdr->bytes);
    ol_status_t rc = data ? gather(s, hdr, blocks, data) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = send_tracked(s, origin, ol_rma_data_tag(hdr->id), data, hdr->bytes, data);
    else
        free(data);
    return rc == MPI_SUCCESS ? rc : reply(s, origin, hdr->id, rc, NULL, 0);
}

static ol_status_t get(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr,
                       const ol_rma_block_t *blocks)
{
    if (ol_rma_get_apart(hdr->bytes))
        return send_apart(s, origin, hdr, blocks);
    char *data = malloc(hdr->bytes ? hdr->bytes : 1);
    if (!data)
        return reply(s, origin, hdr->id, MPI_ERR_NO_MEM, NULL, 0);
    ol_status_t rc = gather(s, hdr, blocks, data);
    rc = reply(s, origin, hdr->id, rc, data, hdr->bytes);
    free(data);
    return rc;
}

/* ---- locks ----------------------------------------------------------------- */

static bool grantable(const ol_rma_state_t *s, bool exclusive)
{
    if (s->exclusive_holder >= 0)
        return false;
    return !exclusive || s->shared_holders == 0;
}

static void grant(ol_rma_state_t *s, int origin, bool exclusive, uint64_t id)
{
    if (exclusive)
        s->exclusive_holder = origin;
    else
        s->shared_holders++;
    reply(s, origin, id, MPI_SUCCESS, NULL, 0);
}

static void lock_request(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr)
{
    /* First come, first served: a waiting exclusive lock is not passed by
     * later shared ones. */
    if (!s->waiters && grantable(s, hdr->exclusive)) {
        grant(s, origin, hdr->exclusive, hdr->id);
        return;
    }
    ol_rma_waiter_t *w = malloc(sizeof(*w));
    if (!w) {
        reply(s, origin, hdr->id, MPI_ERR_NO_MEM, NULL, 0);
        return;
    }
    *w = (ol_rma_waiter_t){.origin = origin, .exclusive = hdr->exclusive, .id = hdr->id};
    if (s->waiters_tail)
        s->waiters_tail->next = w;
    else
        s->waiters = w;
    s->waiters_tail = w;
}

static void unlock_request(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr)
{
    if (s->exclusive_holder == origin)
        s->exclusive_holder = -1;
    else if (s->shared_holders > 0)
        s->shared_holders--;
    reply(s, origin, hdr->id, take_origin_error(s, origin), NULL, 0);
    while (s->waiters && grantable(s, s->waiters->exclusive)) {
        ol_rma_waiter_t *w = s->waiters;
        s->waiters = w->next;
        if (!s->waiters)
            s->waiters_tail = NULL;
        grant(s, w->origin, w->exclusive, w->id);
        free(w);
    }
}

/* ---- dispatch ---------------------------------------------------------------- */

static const char *const kind_names[] = {
    "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Compare_and_swap",
};

/* An operation outside this process's window is not carried out: the
 * origin hears of it with its next answer (or the get's reply). */
static ol_status_t out_of_range(ol_rma_state_t *s, int origin, const ol_rma_msg_t *hdr)
{
    OL_TRACE("rma", "%s from rank %d of the window addresses %llu bytes at %lld, outside it",
                 kind_names[hdr->kind], origin, (unsigned long long)hdr->bytes,
                 (long long)hdr->disp);
    if (hdr->id)
        return reply(s, origin, hdr->id, MPI_ERR_RMA_RANGE, NULL, 0);
    if (s->origin_error[origin] == MPI_SUCCESS)
        s->origin_error[origin] = MPI_ERR_RMA_RANGE;
    return MPI_SUCCESS;
}

static void handle(ol_rma_state_t *s, int origin, const char *msg, size_t bytes);

/* A bundle's messages, in the order they were sent. */
static void handle_bundle(ol_rma_state_t *s, int origin, const char *at, size_t bytes)
{
    while (bytes > 0) {
        uint64_t length = 0;
        if (bytes >= sizeof(length))
            memcpy(&length, at, sizeof(length));
        size_t step = sizeof(length) + padded(length);
        if (length < sizeof(ol_rma_msg_t) || step > bytes) {
            OL_WARN("rma", "a bundle of one-sided messages from rank %d is cut short", origin);
            return;
        }
        handle(s, origin, at + sizeof(length), length);
        at += step;
        bytes -= step;
    }
}

static void handle(ol_rma_state_t *s, int origin, const char *msg, size_t bytes)
{
    ol_rma_msg_t hdr;
    memcpy(&hdr, msg, sizeof(hdr));
    const ol_rma_block_t *blocks = (const ol_rma_block_t *)(msg + sizeof(hdr));
    const char *payload = msg + sizeof(hdr) + hdr.nblocks * sizeof(ol_rma_block_t);
    size_t payload_bytes = bytes - sizeof(hdr) - hdr.nblocks * sizeof(ol_rma_block_t);
    ol_status_t rc = MPI_SUCCESS;
    if (hdr.kind <= MSG_COMPARE_AND_SWAP && !blocks_inside(s, &hdr, blocks)) {
        out_of_range(s, origin, &hdr);
        return;
    }
    switch ((ol_rma_msg_kind_t)hdr.kind) {
    case MSG_PUT: rc = scatter(s, &hdr, blocks, payload); break;
    case MSG_GET: rc = get(s, origin, &hdr, blocks); break;
    case MSG_ACCUMULATE:
    case MSG_GET_ACCUMULATE: rc = accumulate(s, origin, &hdr, blocks, payload); break;
    case MSG_COMPARE_AND_SWAP: rc = compare_and_swap(s, origin, &hdr, payload); break;
    case MSG_LOCK: lock_request(s, origin, &hdr); break;
    case MSG_UNLOCK: unlock_request(s, origin, &hdr); break;
    case MSG_FLUSH: rc = reply(s, origin, hdr.id, take_origin_error(s, origin), NULL, 0); break;
    case MSG_POST: __atomic_add_fetch(&s->posts[origin], 1, __ATOMIC_RELEASE); break;
    case MSG_COMPLETE: __atomic_add_fetch(&s->completes, 1, __ATOMIC_RELEASE); break;
    case MSG_REPLY: take_reply(s, &hdr, payload, payload_bytes); break;
    case MSG_BUNDLE: handle_bundle(s, origin, payload, payload_bytes); break;
    case MSG_FENCE: take_fence_marker(s, &hdr); break;
    }
    if (rc != MPI_SUCCESS && hdr.kind != MSG_REPLY && s->origin_error[origin] == MPI_SUCCESS)
        s->origin_error[origin] = rc;
}

/* ---- taking messages in ------------------------------------------------------ */

/* Starts receiving every message that has arrived for the window. */
static int take_arrived(ol_rma_state_t *s)
{
    int taken = 0;
    for (;;) {
        int flag = 0;
        ol_message_t *message;
        MPI_Status status;
        if (ol_pt2pt_iprobe_arrived(MPI_ANY_SOURCE, OL_RMA_TAG, s->win->comm, true, &flag,
                                    &message, &status) != MPI_SUCCESS || !flag)
            return taken;
        size_t bytes = (size_t)ol_status_get_bytes(&status);
        ol_rma_transfer_t *in = calloc(1, sizeof(*in));
        void *buf = buffer_take(bytes);
        if (!in || !buf)
            ol_rt_abort(MPI_ERR_NO_MEM, "ompi-lite: out of memory for a one-sided message");
        *in = (ol_rma_transfer_t){.buf = buf, .bytes = bytes, .peer = status.MPI_SOURCE};
        if (ol_pt2pt_imrecv(buf, (MPI_Count)bytes, bytes_type(), message, &in->request) !=
            MPI_SUCCESS)
            ol_rt_abort(MPI_ERR_INTERN, "ompi-lite: a one-sided message could not be received");
        if (s->incoming_tail)
            s->incoming_tail->next = in;
        else
            s->incoming = in;
        s->incoming_tail = in;
        taken++;
    }
}

/* Handles the received messages in the order they arrived. */
static int handle_received(ol_rma_state_t *s)
{
    int handled = 0;
    while (s->incoming && ol_request_is_complete(s->incoming->request)) {
        ol_rma_transfer_t *in = s->incoming;
        s->incoming = in->next;
        if (!s->incoming)
            s->incoming_tail = NULL;
        if (in->request->error == MPI_SUCCESS && in->bytes >= sizeof(ol_rma_msg_t))
            handle(s, in->peer, in->buf, in->bytes);
        else
            OL_WARN("rma", "a one-sided message from rank %d could not be received (error %d)",
                        in->peer, in->request->error);
        ol_request_free_when_complete(in->request);
        buffer_give(in->buf);
        free(in);
        handled++;
    }
    return handled;
}

static int progress_windows(void)
{
    if (in_hook || (threads_concurrent() && pthread_mutex_trylock(&state_lock) != 0))
        return 0;
    held++;
    in_hook = true;
    int events = 0;
    for (ol_rma_state_t *s = live_windows; s; s = s->next_live) {
        if (s->ucx)
            events += ol_rma_ucx_reap(s, &s->deferred_error);
        reap_outgoing(s);
        take_arrived(s);
        events += handle_received(s);
        events += take_data_apart(s);
        ol_rma_send_bundles(s); /* operations issued since the last pass, answers just made */
    }
    in_hook = false;
    ol_rma_unlock_state();
    return events;
}

/* ---- the progress thread (RMA_PROGRESS_US) ----------------------------------- */

static pthread_t progress_thread;
static bool progress_thread_started, progress_thread_stopping;
static pthread_mutex_t thread_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thread_wakeup = PTHREAD_COND_INITIALIZER;

/* While a window of messages lives, progresses every period, so that a
 * target computing outside MPI still answers its origins; otherwise
 * asleep. */
static void *progress_loop(void *arg)
{
    (void)arg;
    struct timespec period = {0, 1000L * ol_rma_progress_interval_us()};
    period.tv_sec = period.tv_nsec / 1000000000L;
    period.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&thread_lock);
    while (!progress_thread_stopping) {
        if (!ol_progress_hooks[OL_PROGRESS_RMA]) {
            pthread_cond_wait(&thread_wakeup, &thread_lock);
            continue;
        }
        pthread_mutex_unlock(&thread_lock);
        if (ol_progress_and_wake() == 0)
            nanosleep(&period, NULL);
        pthread_mutex_lock(&thread_lock);
    }
    pthread_mutex_unlock(&thread_lock);
    return NULL;
}

static void start_progress_thread(void)
{
    if (ol_rma_progress_interval_us() == 0)
        return;
    pthread_mutex_lock(&thread_lock);
    if (!progress_thread_started)
        progress_thread_started = pthread_create(&progress_thread, NULL, progress_loop, NULL) == 0;
    pthread_cond_signal(&thread_wakeup);
    pthread_mutex_unlock(&thread_lock);
}

void ol_rma_finalize(void)
{
    pthread_mutex_lock(&thread_lock);
    bool started = progress_thread_started;
    progress_thread_stopping = true;
    pthread_cond_signal(&thread_wakeup);
    pthread_mutex_unlock(&thread_lock);
    if (started)
        pthread_join(progress_thread, NULL);
    /* The runtime may start again in one process (sessions): so may the
     * thread. */
    pthread_mutex_lock(&thread_lock);
    progress_thread_started = progress_thread_stopping = false;
    pthread_mutex_unlock(&thread_lock);
    spares_free();
}

void ol_rma_window_live(ol_rma_state_t *s)
{
    s->next_live = live_windows;
    live_windows = s;
    ol_progress_hooks[OL_PROGRESS_RMA] = progress_windows;
    start_progress_thread();
}

void ol_rma_window_dead(ol_rma_state_t *s)
{
    for (ol_rma_state_t **p = &live_windows; *p; p = &(*p)->next_live)
        if (*p == s) {
            *p = s->next_live;
            break;
        }
    if (!live_windows)
        ol_progress_hooks[OL_PROGRESS_RMA] = NULL;
}
