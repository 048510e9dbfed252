/* The progress engine's waiting loop: poll UCX for spin_us, then sleep on
 * the worker's event fd. Sleeping is what lets 8 ranks share 2 cores. */
#include "ol_params.h"
#include "ol_runtime.h"

#include <poll.h>
#include <time.h>

double ol_rt_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sleeps until UCX signals an event or wait_poll_ms passes. ucp_worker_arm
 * answers BUSY when events are already pending, so none is slept through. */
static void sleep_on_worker(void)
{
    if (ucp_worker_arm(ol_rt.ucp_worker) != UCS_OK)
        return;
    struct pollfd pfd = {.fd = ol_rt.worker_efd, .events = POLLIN};
    poll(&pfd, 1, ol_param.wait_poll_ms);
}

void ol_progress_wait(bool (*done)(void *arg), void *arg)
{
    double spin_until = 0;
    while (!done(arg)) {
        if (ol_progress())
            continue;
        if (ol_rt.spin_us > 0) {
            double now = ol_rt_wtime();
            if (spin_until == 0)
                spin_until = now + 1e-6 * ol_rt.spin_us;
            if (now < spin_until)
                continue;
        }
        sleep_on_worker();
        spin_until = 0;
    }
}
