/* ol_progress_wait asks done until it answers true and never after: a look
 * may act on what it finds (a matched probe takes its message out of
 * matching, so a look after the one that found it loses it). The runtime
 * runs as a singleton with spinning and yielding off (SPIN_US=0, YIELD_US=0)
 * and short sleeps (WAIT_POLL_MS=1), so that the wait reaches its sleep at
 * once: every other look is the last one before a sleep, where a true
 * answer used to be dropped and asked again. */
#include "ol_runtime.h"
#include "mpi.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int looks;     /* how many times done was asked */
    int true_from; /* the first look that answers true */
} wait_t;

static bool done(void *arg)
{
    wait_t *w = arg;
    return ++w->looks >= w->true_from;
}

int main(void)
{
    const ol_rt_request_spec_t no_requests = {0, NULL};
    int failures = 0;

    setenv("OMPI_LITE_SPIN_US", "0", 1);
    setenv("OMPI_LITE_YIELD_US", "0", 1);
    setenv("OMPI_LITE_WAIT_POLL_MS", "1", 1);
    if (ol_rt_init(MPI_THREAD_SINGLE, &no_requests, NULL) != OL_OK) {
        fprintf(stderr, "the runtime did not start\n");
        return 1;
    }
    for (int true_from = 1; true_from <= 8; true_from++) {
        wait_t w = {0, true_from};
        ol_progress_wait(done, &w);
        if (w.looks != true_from) {
            fprintf(stderr, "FAIL: done answered true at look %d, but was asked %d times\n",
                    true_from, w.looks);
            failures++;
        }
    }
    ol_rt_finalize();
    if (failures == 0)
        printf("progress_wait: all checks passed\n");
    return failures ? 1 : 0;
}
