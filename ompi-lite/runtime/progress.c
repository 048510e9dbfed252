/* The progress engine's waiting loop: poll UCX for spin_us, then sleep on
 * the worker's event fd. Sleeping is what lets 8 ranks share 2 cores.
 *
 * Under MPI_THREAD_MULTIPLE several threads of a rank may wait at once, and
 * one thread's progress may complete another's request: a thread that made
 * progress while others sleep wakes them (ucp_worker_signal). A sleeper
 * counts itself before its last look at its condition, so a completion
 * either shows in that look or finds it counted. */
#include "ol_params.h"
#include "ol_runtime.h"
#include "ol_state.h"

#include <poll.h>
#include <time.h>

static int sleepers;

int (*volatile ol_progress_hook)(void);

double ol_rt_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sleeps until UCX signals an event or wait_poll_ms passes. ucp_worker_arm
 * answers BUSY when events are already pending, so none is slept through. */
static void sleep_on_worker(bool (*done)(void *arg), void *arg)
{
    __atomic_add_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
    ol_state_note_pending(); /* the slow path: a blocked rank lists what it waits for */
    if (!done(arg) && ucp_worker_arm(ol_rt.ucp_worker) == UCS_OK) {
        struct pollfd pfd = {.fd = ol_rt.worker_efd, .events = POLLIN};
        poll(&pfd, 1, ol_param.wait_poll_ms);
    }
    __atomic_sub_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
}

static int progress_and_wake(void)
{
    int events = ol_progress();
    if (events && __atomic_load_n(&sleepers, __ATOMIC_SEQ_CST) > 0)
        ucp_worker_signal(ol_rt.ucp_worker);
    return events;
}

/* Idle polls between two looks at the clock while spinning: reading the
 * clock (about 20 ns here, 2-3 idle ucp_worker_progress calls) on every poll
 * would slow the loop that notices an arriving message. */
#define SPIN_POLLS_PER_CLOCK 32

void ol_progress_wait(bool (*done)(void *arg), void *arg)
{
    double spin_until = 0;
    unsigned polls = 0;
    while (!done(arg)) {
        if (progress_and_wake())
            continue;
        if (ol_rt.spin_us > 0) {
            if (++polls % SPIN_POLLS_PER_CLOCK != 0)
                continue;
            double now = ol_rt_wtime();
            if (spin_until == 0)
                spin_until = now + 1e-6 * ol_rt.spin_us;
            if (now < spin_until)
                continue;
        }
        sleep_on_worker(done, arg);
        spin_until = 0;
    }
}
