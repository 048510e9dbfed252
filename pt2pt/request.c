/* Request objects: a pool, the completion path, and waiting. */
#include "request.h"
#include "ol_log.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Requests are recycled: the send/recv fast path does not call malloc.
 * The lock is taken only under MPI_THREAD_MULTIPLE. */
static ol_request_t *free_list;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static inline bool pool_needs_lock(void)
{
    return ol_rt.thread_level == MPI_THREAD_MULTIPLE;
}

ol_request_t *ol_request_alloc(ol_request_kind_t kind)
{
    bool locked = pool_needs_lock();
    if (locked)
        pthread_mutex_lock(&pool_lock);
    ol_request_t *req = free_list;
    if (req)
        free_list = req->next_free;
    if (locked)
        pthread_mutex_unlock(&pool_lock);
    if (!req && !(req = malloc(sizeof(*req))))
        return NULL;
    memset(req, 0, offsetof(ol_request_t, next_free));
    req->magic = OL_REQUEST_MAGIC;
    req->kind = kind;
    req->active = true;
    return req;
}

void ol_request_release(ol_request_t *req)
{
    if (req->on_release)
        req->on_release(req);
    if (req->args.dt)
        ol_dt_release(req->args.dt);
    req->magic = 0;
    bool locked = pool_needs_lock();
    if (locked)
        pthread_mutex_lock(&pool_lock);
    req->next_free = free_list;
    free_list = req;
    if (locked)
        pthread_mutex_unlock(&pool_lock);
}

void ol_request_complete(ol_request_t *req, ol_status_t error)
{
    req->error = error;
    req->ucx_request = NULL;
    if (req->on_complete)
        req->on_complete(req);
    ol_request_t *parent = req->parent;
    bool release = req->released_by_user;
    __atomic_store_n(&req->complete, 1, __ATOMIC_RELEASE);
    if (parent && __atomic_sub_fetch(&parent->pending_children, 1, __ATOMIC_ACQ_REL) == 0)
        ol_request_complete(parent, parent->error);
    if (release)
        ol_request_release(req);
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
