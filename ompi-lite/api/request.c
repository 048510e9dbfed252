/* Completion calls of the API: waits, tests, cancel, persistent starts,
 * generalized requests and the status setters. Errors of a request go to
 * the error handler of its communicator. */
#include "gen_impl.h"
#include "coll.h"
#include "pt2pt.h"

#include <stdio.h>
#include <stdlib.h>

/* The request behind a handle, NULL for MPI_REQUEST_NULL; a handle that is
 * neither is an error. */
static int lookup(MPI_Request handle, ol_request_t **req, const char *arg)
{
    *req = ol_request_from_handle(handle);
    if (*req || handle == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    ol_api_set_detail("%s is not a valid request", arg);
    return MPI_ERR_REQUEST;
}

static void set_status(MPI_Status *status, const MPI_Status *value)
{
    if (status != MPI_STATUS_IGNORE)
        *status = *value;
}

static void set_empty(MPI_Status *status)
{
    if (status != MPI_STATUS_IGNORE)
        ol_status_set_empty(status);
}

/* A request whose wait returns at once: null, or persistent and inactive. */
static bool is_inactive(const ol_request_t *req)
{
    return !req || (req->persistent && !req->active);
}

/* Generalized requests ask the user's query function for their status. */
static int query_status(ol_request_t *req)
{
    if (req->kind != OL_REQ_GENERALIZED)
        return req->error;
    ol_status_set_empty(&req->status);
    req->status.MPI_SOURCE = MPI_UNDEFINED;
    req->status.MPI_TAG = MPI_UNDEFINED;
    return req->grequest.query_fn(req->grequest.extra_state, &req->status);
}

static int grequest_free(ol_request_t *req)
{
    return req->grequest.free_fn(req->grequest.extra_state);
}

/* Finishes a completed request: its status, its result, and, where
 * with_sentence (not for a later failure of a call of several completions,
 * whose message names the first), the sentence of its error. */
static int finish_one(MPI_Request *handle, ol_request_t *req, MPI_Status *status,
                      bool with_sentence)
{
    int rc = query_status(req);
    set_status(status, &req->status);
    if (req->error != MPI_SUCCESS && with_sentence)
        ol_pt2pt_explain(req); /* the sentence, where pt2pt knows one */
    if (req->error != MPI_SUCCESS && req->args.comm)
        ol_api_set_error_comm(req->args.comm);
    if (req->error != MPI_SUCCESS && req->kind == OL_REQ_IO)
        ol_api_set_error_file(req->owner);
    if (req->persistent) {
        req->active = false;
        return rc;
    }
    if (req->kind == OL_REQ_GENERALIZED) {
        int free_rc = grequest_free(req);
        if (rc == MPI_SUCCESS)
            rc = free_rc;
    }
    ol_request_free_when_complete(req); /* the completion's claim is the other */
    *handle = MPI_REQUEST_NULL;
    return rc;
}

int ol_api_wait(MPI_Request *request, MPI_Status *status)
{
    ol_request_t *req;
    int rc = lookup(*request, &req, "request");
    if (rc != MPI_SUCCESS)
        return rc;
    if (is_inactive(req)) {
        set_empty(status);
        return MPI_SUCCESS;
    }
    ol_request_wait_complete(req);
    return finish_one(request, req, status, true);
}

int ol_api_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    ol_request_t *req;
    int rc = lookup(*request, &req, "request");
    if (rc != MPI_SUCCESS)
        return rc;
    *flag = 1;
    if (is_inactive(req)) {
        set_empty(status);
        return MPI_SUCCESS;
    }
    if (!ol_request_is_complete(req))
        ol_progress_poll();
    if (!ol_request_is_complete(req)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return finish_one(request, req, status, true);
}

/* ---- arrays of requests -------------------------------------------------- */

static int lookup_all(int count, const MPI_Request requests[], ol_request_t **reqs)
{
    for (int i = 0; i < count; i++) {
        reqs[i] = ol_request_from_handle(requests[i]);
        if (!reqs[i] && requests[i] != MPI_REQUEST_NULL) {
            ol_api_set_detail("array_of_requests[%d] is not a valid request", i);
            return MPI_ERR_REQUEST;
        }
    }
    return MPI_SUCCESS;
}

/* Small arrays live on the stack; large ones on the heap. */
#define ON_STACK 64

typedef struct {
    ol_request_t *stack[ON_STACK];
    ol_request_t **reqs;
} request_array_t;

static int load(request_array_t *a, int count, const MPI_Request requests[])
{
    a->reqs = count <= ON_STACK ? a->stack : malloc(sizeof(*a->reqs) * (size_t)count);
    if (!a->reqs)
        return MPI_ERR_NO_MEM;
    int rc = lookup_all(count, requests, a->reqs);
    if (rc != MPI_SUCCESS && a->reqs != a->stack)
        free(a->reqs);
    return rc;
}

static void unload(request_array_t *a)
{
    if (a->reqs != a->stack)
        free(a->reqs);
}

static MPI_Status *status_at(MPI_Status statuses[], int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* The results of a call of several completions, into its statuses.
 * MPI 3.2.5: the call writes their MPI_ERROR fields if and only if it
 * returns MPI_ERR_IN_STATUS, every one then (MPI_SUCCESS for those that
 * succeeded). So a field keeps its value until the first error, which
 * marks the statuses before it as succeeded; from there on each gets its
 * result. No array of results: Waitall is on the hot path. */
typedef struct {
    MPI_Status *statuses; /* or MPI_STATUSES_IGNORE */
    int errors;
} results_t;

/* MPI_ERR_IN_STATUS says only that some status holds an error: the
 * sentence names the first failed request, its error and why. */
static void explain_first_failure(int i, int rc)
{
    char class_text[MPI_MAX_ERROR_STRING];
    int length;
    if (ol_api_error_string(rc, class_text, &length) != MPI_SUCCESS)
        snprintf(class_text, sizeof(class_text), "error %d", rc);
    const char *why = ol_error_detail_take();
    ol_api_set_detail("request %d failed with %s%s%s", i, class_text, why[0] ? ": " : "", why);
}

/* Result i: the status of req into st (statuses[i] or ignored); the
 * request is finished (freed unless persistent), or left as it is when
 * handle is NULL (MPI_Request_get_status_all and _some). */
static void result_into(results_t *r, int i, MPI_Request *handle, ol_request_t *req)
{
    MPI_Status *st = status_at(r->statuses, i);
    int kept = st != MPI_STATUS_IGNORE ? st->MPI_ERROR : 0;
    int rc;
    if (is_inactive(req)) {
        set_empty(st); /* whose error field is MPI_SUCCESS, always */
        kept = rc = MPI_SUCCESS;
    } else if (handle) {
        rc = finish_one(handle, req, st, r->errors == 0);
    } else {
        rc = query_status(req);
        set_status(st, &req->status);
    }
    if (rc != MPI_SUCCESS && r->errors == 0)
        explain_first_failure(i, rc);
    if (rc != MPI_SUCCESS && r->errors++ == 0 && r->statuses != MPI_STATUSES_IGNORE)
        for (int j = 0; j < i; j++)
            r->statuses[j].MPI_ERROR = MPI_SUCCESS;
    if (st != MPI_STATUS_IGNORE)
        st->MPI_ERROR = r->errors ? rc : kept;
}

static int results_return(const results_t *r)
{
    return r->errors ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* Finishes every request: an error makes the call return
 * MPI_ERR_IN_STATUS, each status saying its own. */
static int finish_all(int count, MPI_Request requests[], ol_request_t **reqs,
                      MPI_Status statuses[])
{
    results_t r = {statuses, 0};
    for (int i = 0; i < count; i++)
        result_into(&r, i, &requests[i], reqs[i]);
    return results_return(&r);
}

typedef struct {
    int count;
    ol_request_t **reqs;
} all_wait_t;

static bool all_complete(void *arg)
{
    all_wait_t *w = arg;
    for (int i = 0; i < w->count; i++)
        if (!is_inactive(w->reqs[i]) && !ol_request_is_complete(w->reqs[i]))
            return false;
    return true;
}

int ol_api_waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    request_array_t a;
    int rc = load(&a, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    all_wait_t w = {count, a.reqs};
    ol_progress_wait(all_complete, &w);
    rc = finish_all(count, array_of_requests, a.reqs, array_of_statuses);
    unload(&a);
    return rc;
}

int ol_api_testall(int count, MPI_Request array_of_requests[], int *flag,
                   MPI_Status array_of_statuses[])
{
    request_array_t a;
    int rc = load(&a, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    all_wait_t w = {count, a.reqs};
    if (!all_complete(&w))
        ol_progress_poll();
    *flag = all_complete(&w);
    if (*flag)
        rc = finish_all(count, array_of_requests, a.reqs, array_of_statuses);
    unload(&a);
    return rc;
}

/* Index of a completed active request, MPI_UNDEFINED when none is active,
 * -1 when some are active but none completed. */
static int first_completed(int count, ol_request_t **reqs)
{
    int active = 0;
    for (int i = 0; i < count; i++) {
        if (is_inactive(reqs[i]))
            continue;
        active++;
        if (ol_request_is_complete(reqs[i]))
            return i;
    }
    return active ? -1 : MPI_UNDEFINED;
}

typedef struct {
    int count;
    ol_request_t **reqs;
    int index;
} any_wait_t;

static bool any_complete(void *arg)
{
    any_wait_t *w = arg;
    w->index = first_completed(w->count, w->reqs);
    return w->index != -1;
}

static int finish_one_of(MPI_Request requests[], ol_request_t **reqs, int index, int *indx,
                         MPI_Status *status)
{
    *indx = index;
    if (index == MPI_UNDEFINED) {
        set_empty(status);
        return MPI_SUCCESS;
    }
    return finish_one(&requests[index], reqs[index], status, true);
}

int ol_api_waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status *status)
{
    request_array_t a;
    int rc = load(&a, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    any_wait_t w = {count, a.reqs, -1};
    ol_progress_wait(any_complete, &w);
    rc = finish_one_of(array_of_requests, a.reqs, w.index, indx, status);
    unload(&a);
    return rc;
}

int ol_api_testany(int count, MPI_Request array_of_requests[], int *indx, int *flag,
                   MPI_Status *status)
{
    request_array_t a;
    int rc = load(&a, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    any_wait_t w = {count, a.reqs, -1};
    if (!any_complete(&w)) {
        ol_progress_poll();
        any_complete(&w);
    }
    *flag = w.index != -1;
    *indx = MPI_UNDEFINED;
    if (*flag)
        rc = finish_one_of(array_of_requests, a.reqs, w.index, indx, status);
    unload(&a);
    return rc;
}

/* Finishes every completed request, listing their indices. */
static int finish_some(int incount, MPI_Request requests[], ol_request_t **reqs, int *outcount,
                       int indices[], MPI_Status statuses[])
{
    results_t r = {statuses, 0};
    int n = 0;
    for (int i = 0; i < incount; i++) {
        if (is_inactive(reqs[i]) || !ol_request_is_complete(reqs[i]))
            continue;
        result_into(&r, n, &requests[i], reqs[i]);
        indices[n++] = i;
    }
    *outcount = n;
    return results_return(&r);
}

static int some(int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[], bool block)
{
    request_array_t a;
    int rc = load(&a, incount, requests);
    if (rc != MPI_SUCCESS)
        return rc;
    any_wait_t w = {incount, a.reqs, -1};
    if (block)
        ol_progress_wait(any_complete, &w);
    else if (!any_complete(&w)) {
        ol_progress_poll();
        any_complete(&w);
    }
    if (w.index == MPI_UNDEFINED)
        *outcount = MPI_UNDEFINED;
    else
        rc = finish_some(incount, requests, a.reqs, outcount, indices, statuses);
    unload(&a);
    return rc;
}

int ol_api_waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                    int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, true);
}

int ol_api_testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                    int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some(incount, array_of_requests, outcount, array_of_indices, array_of_statuses, false);
}

/* ---- status without completion -------------------------------------------- */

int ol_api_request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    ol_request_t *req;
    int rc = lookup(request, &req, "request");
    if (rc != MPI_SUCCESS)
        return rc;
    if (is_inactive(req)) {
        *flag = 1;
        set_empty(status);
        return MPI_SUCCESS;
    }
    if (!ol_request_is_complete(req))
        ol_progress_poll();
    *flag = ol_request_is_complete(req);
    if (*flag) {
        rc = query_status(req);
        set_status(status, &req->status);
    }
    return rc;
}

int ol_api_request_get_status_any(int count, const MPI_Request array_of_requests[], int *indx,
                                  int *flag, MPI_Status *status)
{
    *flag = 0;
    *indx = MPI_UNDEFINED;
    int active = 0;
    for (int i = 0; i < count; i++) {
        ol_request_t *req;
        int rc = lookup(array_of_requests[i], &req, "array_of_requests[i]");
        if (rc != MPI_SUCCESS)
            return rc;
        if (is_inactive(req))
            continue;
        active++;
        if (ol_request_is_complete(req)) {
            *flag = 1;
            *indx = i;
            rc = query_status(req);
            set_status(status, &req->status);
            return rc;
        }
    }
    if (!active) {
        *flag = 1;
        set_empty(status);
    } else {
        ol_progress_poll();
    }
    return MPI_SUCCESS;
}

int ol_api_request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                  MPI_Status array_of_statuses[])
{
    request_array_t a;
    int rc = load(&a, count, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    all_wait_t w = {count, a.reqs};
    if (!all_complete(&w))
        ol_progress_poll();
    *flag = all_complete(&w);
    results_t r = {array_of_statuses, 0};
    for (int i = 0; *flag && i < count; i++)
        result_into(&r, i, NULL, a.reqs[i]);
    unload(&a);
    return results_return(&r);
}

int ol_api_request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                   int *outcount, int array_of_indices[],
                                   MPI_Status array_of_statuses[])
{
    request_array_t a;
    int rc = load(&a, incount, array_of_requests);
    if (rc != MPI_SUCCESS)
        return rc;
    any_wait_t w = {incount, a.reqs, -1};
    if (!any_complete(&w)) {
        ol_progress_poll();
        any_complete(&w);
    }
    results_t r = {array_of_statuses, 0};
    int n = 0;
    for (int i = 0; w.index != MPI_UNDEFINED && i < incount; i++) {
        if (is_inactive(a.reqs[i]) || !ol_request_is_complete(a.reqs[i]))
            continue;
        result_into(&r, n, NULL, a.reqs[i]);
        array_of_indices[n++] = i;
    }
    *outcount = w.index == MPI_UNDEFINED ? MPI_UNDEFINED : n;
    unload(&a);
    return results_return(&r);
}

/* ---- freeing, cancelling, starting ------------------------------------------- */

static bool cancel_answered(void *arg)
{
    return !__atomic_load_n(&((ol_request_t *)arg)->cancel_pending, __ATOMIC_ACQUIRE);
}

int ol_api_request_free(MPI_Request *request)
{
    ol_request_t *req;
    int rc = lookup(*request, &req, "request");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!req) {
        ol_api_set_detail("request is MPI_REQUEST_NULL");
        return MPI_ERR_REQUEST;
    }
    *request = MPI_REQUEST_NULL;
    if (req->kind == OL_REQ_GENERALIZED)
        grequest_free(req);
    /* The answer to a send's cancel names the request: it must live till then. */
    if (!cancel_answered(req))
        ol_progress_wait(cancel_answered, req);
    /* An operation in flight finishes on its own, then frees itself. */
    if (is_inactive(req))
        ol_request_release(req);
    else
        ol_request_free_when_complete(req);
    return MPI_SUCCESS;
}

int ol_api_cancel(MPI_Request *request)
{
    ol_request_t *req;
    int rc = lookup(*request, &req, "request");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!req) {
        ol_api_set_detail("request is MPI_REQUEST_NULL");
        return MPI_ERR_REQUEST;
    }
    if (is_inactive(req))
        return MPI_SUCCESS;
    if (req->kind == OL_REQ_GENERALIZED)
        return req->grequest.cancel_fn(req->grequest.extra_state, ol_request_is_complete(req));
    ol_pt2pt_cancel(req);
    return MPI_SUCCESS;
}

int ol_api_test_cancelled(const MPI_Status *status, int *flag)
{
    *flag = ol_status_is_cancelled(status);
    return MPI_SUCCESS;
}

static int start_one(MPI_Request handle, const char *arg)
{
    ol_request_t *req;
    int rc = lookup(handle, &req, arg);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!req || !req->persistent) {
        ol_api_set_detail("%s is not a persistent request", arg);
        return MPI_ERR_REQUEST;
    }
    if (req->active) {
        ol_api_set_detail("%s is already active", arg);
        return MPI_ERR_REQUEST;
    }
    req->release_claims = 0; /* the last run's completion claimed it */
    rc = req->kind == OL_REQ_COLL ? ol_coll_restart(req) : ol_pt2pt_start(req);
    if (rc != MPI_SUCCESS)
        req->active = false;
    return rc;
}

int ol_api_start(MPI_Request *request)
{
    return start_one(*request, "request");
}

int ol_api_startall(int count, MPI_Request array_of_requests[])
{
    for (int i = 0; i < count; i++) {
        int rc = start_one(array_of_requests[i], "array_of_requests[i]");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* ---- generalized requests ------------------------------------------------ */

int ol_api_grequest_start(MPI_Grequest_query_function *query_fn,
                          MPI_Grequest_free_function *free_fn,
                          MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                          MPI_Request *request)
{
    if (!query_fn || !free_fn || !cancel_fn) {
        ol_api_set_detail("query_fn, free_fn and cancel_fn must all be given");
        return MPI_ERR_ARG;
    }
    ol_request_t *req = ol_request_alloc(OL_REQ_GENERALIZED);
    if (!req)
        return MPI_ERR_NO_MEM;
    req->grequest = (ol_grequest_fns_t){query_fn, free_fn, cancel_fn, extra_state};
    *request = ol_request_to_handle(req);
    return MPI_SUCCESS;
}

int ol_api_grequest_complete(MPI_Request request)
{
    ol_request_t *req = ol_request_from_handle(request);
    if (!req || req->kind != OL_REQ_GENERALIZED) {
        ol_api_set_detail("request is not a generalized request");
        return MPI_ERR_REQUEST;
    }
    ol_request_complete(req, MPI_SUCCESS);
    /* Another thread may sleep on the worker waiting for this request. */
    ucp_worker_signal(ol_rt.ucp_worker);
    return MPI_SUCCESS;
}

/* ---- status getters --------------------------------------------------------- */

/* MPI_STATUS_IGNORE holds nothing to read. */
static int check_readable(const MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) {
        ol_api_set_detail("status is MPI_STATUS_IGNORE, which holds nothing to read");
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int ol_api_status_get_error(const MPI_Status *status, int *error)
{
    int rc = check_readable(status);
    if (rc == MPI_SUCCESS)
        *error = status->MPI_ERROR;
    return rc;
}

int ol_api_status_get_source(const MPI_Status *status, int *source)
{
    int rc = check_readable(status);
    if (rc == MPI_SUCCESS)
        *source = status->MPI_SOURCE;
    return rc;
}

int ol_api_status_get_tag(const MPI_Status *status, int *tag)
{
    int rc = check_readable(status);
    if (rc == MPI_SUCCESS)
        *tag = status->MPI_TAG;
    return rc;
}

/* ---- status setters --------------------------------------------------------- */

int ol_api_status_set_cancelled(MPI_Status *status, int flag)
{
    ol_status_set_cancelled(status, flag != 0);
    return MPI_SUCCESS;
}

int ol_api_status_set_error(MPI_Status *status, int error)
{
    status->MPI_ERROR = error;
    return MPI_SUCCESS;
}

int ol_api_status_set_source(MPI_Status *status, int source)
{
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int ol_api_status_set_tag(MPI_Status *status, int tag)
{
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}
