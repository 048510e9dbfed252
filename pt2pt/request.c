/* Request objects: a pool, the completion path, and waiting. */
#include "request.h"
#include "ol_log.h"
#include "pt2pt.h"
#include "ol_state.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Requests are recycled: the send/recv fast path does not call malloc.
 * The lock is taken only under MPI_THREAD_MULTIPLE. */
static ol_request_t *free_list;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* Requests handed out and not yet released: what a blocked rank lists as
 * pending in its state record. Two pointer stores per request; blocking
 * send and receive make no request at all. */
static ol_request_t *live_list;

static void live_insert(ol_request_t *req)
{
    req->live = true;
    req->live_prev = NULL;
    req->live_next = live_list;
    if (live_list)
        live_list->live_prev = req;
    live_list = req;
}

static void live_remove(ol_request_t *req)
{
    if (!req->live)
        return; /* embedded requests (schedule rounds) never were in the pool */
    req->live = false;
    if (req->live_prev)
        req->live_prev->live_next = req->live_next;
    else
        live_list = req->live_next;
    if (req->live_next)
        req->live_next->live_prev = req->live_prev;
}

/* Below MPI_THREAD_MULTIPLE one thread at a time runs the library (and it
 * starts no thread of its own), so the pool and the claims on a request
 * need no lock and no atomic: an atomic increment per message cost the
 * sender of osu_bw's 8 B messages 20% of its time, as it waits there for
 * the message's stores into the ring to drain. */
static inline bool threads_may_race(void)
{
    return ol_rt.thread_level == MPI_THREAD_MULTIPLE;
}

ol_request_t *ol_request_alloc(ol_request_kind_t kind)
{
    bool locked = threads_may_race();
    if (locked)
        pthread_mutex_lock(&pool_lock);
    ol_request_t *req = free_list;
    if (req)
        free_list = req->next_free;
    else
        req = malloc(sizeof(*req));
    if (req) {
        memset(req, 0, offsetof(ol_request_t, next_free));
        req->magic = OL_REQUEST_MAGIC;
        req->kind = kind;
        req->active = true;
        live_insert(req);
    }
    if (locked)
        pthread_mutex_unlock(&pool_lock);
    return req;
}

void ol_request_release(ol_request_t *req)
{
    if (req->on_release)
        req->on_release(req);
    if (req->args.dt)
        ol_dt_release(req->args.dt);
    req->magic = 0;
    bool locked = threads_may_race();
    if (locked)
        pthread_mutex_lock(&pool_lock);
    live_remove(req);
    req->next_free = free_list;
    free_list = req;
    if (locked)
        pthread_mutex_unlock(&pool_lock);
}

void ol_request_free_when_complete(ol_request_t *req)
{
    int claims = threads_may_race() ? __atomic_add_fetch(&req->release_claims, 1, __ATOMIC_ACQ_REL)
                                   : ++req->release_claims;
    if (claims == 2)
        ol_request_release(req);
}

void ol_request_complete(ol_request_t *req, ol_status_t error)
{
    req->error = error;
    req->ucx_request = NULL;
    if (req->on_complete)
        req->on_complete(req);
    ol_request_t *parent = req->parent;
    __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
    if (parent && __atomic_sub_fetch(&parent->pending_children, 1, __ATOMIC_ACQ_REL) == 0)
        ol_request_complete(parent, parent->error);
    ol_request_free_when_complete(req); /* completion's claim */
}

static bool request_done(void *arg)
{
    return ol_request_is_complete(arg);
}

void ol_request_wait_complete(ol_request_t *req)
{
    if (!ol_request_is_complete(req))
        ol_progress_wait(request_done, req);
}

ol_request_t *ol_request_from_handle(MPI_Request handle)
{
    if ((uintptr_t)handle < 4096)
        return NULL; /* MPI_REQUEST_NULL */
    ol_request_t *req = (ol_request_t *)handle;
    return req->magic == OL_REQUEST_MAGIC ? req : NULL;
}

/* ---- the state record's pending list ---------------------------------------- */

static uint32_t op_kind(const ol_request_t *req)
{
    switch (req->kind) {
    case OL_REQ_SEND: return OL_STATE_OP_SEND;
    case OL_REQ_RECV: return OL_STATE_OP_RECV;
    case OL_REQ_COLL: return OL_STATE_OP_COLL;
    default: return 0;
    }
}

/* Pending: started, not complete, the user's own (a collective's internal
 * sends and receives are shown as the collective). */
static bool listed(const ol_request_t *req)
{
    return req->active && !ol_request_is_complete(req) && op_kind(req) &&
           req->args.comm && (req->kind == OL_REQ_COLL || req->args.space == OL_TAGSPACE_USER);
}

static void describe(const ol_request_t *req, ol_state_op_t *op)
{
    const ol_op_args_t *a = &req->args;
    op->kind = op_kind(req);
    op->ctx = a->comm->context_id;
    op->peer = a->peer;
    op->peer_world = a->peer >= 0 ? ol_comm_world_rank(a->comm, a->peer) : a->peer;
    op->tag = a->tag;
    op->count = (int64_t)a->count;
}

/* Runs on the slow path only (a rank about to sleep). */
static void write_pending(ol_state_record_t *r)
{
    bool locked = threads_may_race();
    if (locked)
        pthread_mutex_lock(&pool_lock);
    uint32_t total = 0, n = 0;
    for (ol_request_t *req = live_list; req; req = req->live_next) {
        if (!listed(req))
            continue;
        if (n < OL_STATE_PENDING)
            describe(req, &r->pending[n++]);
        total++;
    }
    if (locked)
        pthread_mutex_unlock(&pool_lock);
    r->pending_count = n;
    r->pending_total = total;
    __atomic_store_n(&r->pending_at, r->seq, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void register_pending_writer(void)
{
    ol_state_pending_writer = write_pending;
}
