/* p2p_grequest: generalized requests (MPI_Grequest_start/complete) and the
 * status accessors they use.
 *
 * 1. A helper thread completes the request after DELAY_MS while the main
 *    thread waits in MPI_Wait (and, second time, polls MPI_Test, which must
 *    say false until then): the status is the one query_fn filled in
 *    (source, tag, not cancelled), query_fn ran before free_fn, free_fn ran
 *    exactly once, the handle became MPI_REQUEST_NULL.
 * 2. MPI_Cancel calls cancel_fn with complete = false before completion and
 *    with complete = true after it; a cancel_fn that marks the status
 *    cancelled makes MPI_Test_cancelled true.
 * 3. MPI_Waitall of a generalized request and a receive round the ring.
 * 4. MPI_Status_get_source/_tag/_error read what the setters wrote, and
 *    MPI_STATUS_IGNORE gives MPI_ERR_ARG (MPI_ERRORS_RETURN on
 *    MPI_COMM_SELF, where errors of calls without a communicator go).
 * Needs MPI_THREAD_MULTIPLE (the helper thread calls MPI). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "p2p_util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { DELAY_MS = 50, QUERY_SOURCE = 3, QUERY_TAG = 42 };

struct state {
    MPI_Request req;
    int queries, frees, cancels;
    int cancel_complete;   /* the `complete` argument of the last cancel_fn */
    int mark_cancelled;    /* cancel_fn makes query_fn report cancelled */
    int free_after_query;  /* free_fn saw query_fn run before it */
    volatile int released; /* the helper thread has called Grequest_complete */
};

static int query_fn(void *extra, MPI_Status *status)
{
    struct state *s = extra;

    s->queries++;
    MPI_Status_set_source(status, QUERY_SOURCE);
    MPI_Status_set_tag(status, QUERY_TAG);
    MPI_Status_set_error(status, MPI_SUCCESS);
    MPI_Status_set_cancelled(status, s->mark_cancelled);
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    struct state *s = extra;

    s->frees++;
    s->free_after_query = s->queries > 0;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    struct state *s = extra;

    s->cancels++;
    s->cancel_complete = complete;
    s->mark_cancelled = !complete;
    return MPI_SUCCESS;
}

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};

    nanosleep(&t, NULL);
}

static void *complete_later(void *arg)
{
    struct state *s = arg;

    sleep_ms(DELAY_MS);
    __atomic_store_n(&s->released, 1, __ATOMIC_RELEASE);
    p2p_check_ok("MPI_Grequest_complete", MPI_Grequest_complete(s->req));
    return NULL;
}

static void start(struct state *s, pthread_t *helper)
{
    memset(s, 0, sizeof *s);
    p2p_check_ok("MPI_Grequest_start",
                 MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &s->req));
    if (helper && pthread_create(helper, NULL, complete_later, s) != 0)
        p2p_die("pthread_create failed");
}

/* After the request was waited for: status from query_fn, free_fn once. */
static void check_finished(const char *what, struct state *s, MPI_Request handle,
                           const MPI_Status *st, int cancelled)
{
    int flag;

    if (handle != MPI_REQUEST_NULL)
        p2p_die("%s: the handle is not MPI_REQUEST_NULL", what);
    int source = -1, tag = -1;
    MPI_Status_get_source(st, &source);
    MPI_Status_get_tag(st, &tag);
    if (st->MPI_SOURCE != QUERY_SOURCE || st->MPI_TAG != QUERY_TAG || source != QUERY_SOURCE ||
        tag != QUERY_TAG)
        p2p_die("%s: status source %d tag %d (getters: %d and %d), expected what query_fn "
                "set: %d and %d",
                what, st->MPI_SOURCE, st->MPI_TAG, source, tag, QUERY_SOURCE, QUERY_TAG);
    MPI_Test_cancelled(st, &flag);
    if (flag != cancelled)
        p2p_die("%s: MPI_Test_cancelled says %d, expected %d", what, flag, cancelled);
    if (s->queries < 1)
        p2p_die("%s: query_fn was not called", what);
    if (s->frees != 1)
        p2p_die("%s: free_fn was called %d times, expected once", what, s->frees);
    if (!s->free_after_query)
        p2p_die("%s: free_fn was called before query_fn", what);
}

static void completed_by_thread(int by_test)
{
    const char *what = by_test ? "MPI_Test of a generalized request" :
                                 "MPI_Wait of a generalized request";
    struct state s;
    pthread_t helper;
    MPI_Status st;
    int flag = 0;

    start(&s, &helper);
    if (by_test) {
        /* released is set before MPI_Grequest_complete: once Test says
         * true, it must be. */
        while (!flag)
            p2p_check_ok(what, MPI_Test(&s.req, &flag, &st));
        if (!__atomic_load_n(&s.released, __ATOMIC_ACQUIRE))
            p2p_die("%s: flag true before MPI_Grequest_complete", what);
    } else {
        p2p_check_ok(what, MPI_Wait(&s.req, &st));
        if (!__atomic_load_n(&s.released, __ATOMIC_ACQUIRE))
            p2p_die("%s returned before MPI_Grequest_complete", what);
    }
    pthread_join(helper, NULL);
    check_finished(what, &s, s.req, &st, 0);
}

static void cancel_before_and_after(void)
{
    struct state s;
    pthread_t helper;
    MPI_Status st;

    start(&s, &helper);
    p2p_check_ok("MPI_Cancel of a pending generalized request", MPI_Cancel(&s.req));
    if (s.cancels != 1 || s.cancel_complete)
        p2p_die("MPI_Cancel before completion: cancel_fn called %d times, complete = %d, "
                "expected once with false",
                s.cancels, s.cancel_complete);
    MPI_Wait(&s.req, &st);
    pthread_join(helper, NULL);
    check_finished("a generalized request cancelled before completion", &s, s.req, &st, 1);

    start(&s, NULL);
    MPI_Grequest_complete(s.req);
    p2p_check_ok("MPI_Cancel of a completed generalized request", MPI_Cancel(&s.req));
    if (s.cancels != 1 || !s.cancel_complete)
        p2p_die("MPI_Cancel after completion: cancel_fn called %d times, complete = %d, "
                "expected once with true",
                s.cancels, s.cancel_complete);
    MPI_Wait(&s.req, &st);
    check_finished("a generalized request cancelled after completion", &s, s.req, &st, 0);
}

static void waitall_mixed(void)
{
    int left = (p2p_rank + p2p_size - 1) % p2p_size, right = (p2p_rank + 1) % p2p_size;
    int out = 500 + p2p_rank, in = -1;
    struct state s;
    pthread_t helper;
    MPI_Request reqs[2];
    MPI_Status st[2];

    start(&s, &helper);
    reqs[0] = s.req;
    MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &reqs[1]);
    MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD);
    p2p_check_ok("MPI_Waitall of a generalized request and a receive", MPI_Waitall(2, reqs, st));
    pthread_join(helper, NULL);
    check_finished("MPI_Waitall of a generalized request", &s, reqs[0], &st[0], 0);
    p2p_check_status("MPI_Waitall's receive", &st[1], left, 9, MPI_INT, 1);
    if (in != 500 + left)
        p2p_die("MPI_Waitall's receive got %d, expected %d", in, 500 + left);
}

static void status_accessors(void)
{
    MPI_Status st;
    int source, tag, error;

    MPI_Status_set_source(&st, 17);
    MPI_Status_set_tag(&st, 4242);
    MPI_Status_set_error(&st, MPI_ERR_TAG);
    p2p_check_ok("MPI_Status_get_source", MPI_Status_get_source(&st, &source));
    p2p_check_ok("MPI_Status_get_tag", MPI_Status_get_tag(&st, &tag));
    p2p_check_ok("MPI_Status_get_error", MPI_Status_get_error(&st, &error));
    if (source != 17 || tag != 4242 || error != MPI_ERR_TAG)
        p2p_die("status getters read source %d tag %d error %d, expected 17, 4242, %d", source,
                tag, error, MPI_ERR_TAG);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    P2P_CHECK_CLASS("MPI_Status_get_source(MPI_STATUS_IGNORE)",
                    MPI_Status_get_source(MPI_STATUS_IGNORE, &source), MPI_ERR_ARG);
    P2P_CHECK_CLASS("MPI_Status_get_tag(MPI_STATUS_IGNORE)",
                    MPI_Status_get_tag(MPI_STATUS_IGNORE, &tag), MPI_ERR_ARG);
    P2P_CHECK_CLASS("MPI_Status_get_error(MPI_STATUS_IGNORE)",
                    MPI_Status_get_error(MPI_STATUS_IGNORE, &error), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int provided = p2p_init("p2p_grequest", &argc, &argv, MPI_THREAD_MULTIPLE);

    if (provided != MPI_THREAD_MULTIPLE)
        p2p_die("MPI_Init_thread(MPI_THREAD_MULTIPLE) provided %d", provided);
    completed_by_thread(0);
    completed_by_thread(1);
    cancel_before_and_after();
    waitall_mixed();
    status_accessors();
    p2p_finish();
    return 0;
}
