/* late_signal: an LD_PRELOAD shim for finalize_race. ucp_worker_signal,
 * called from any thread but the main one, first sleeps LATE_SIGNAL_MS
 * (20 ms), then signals. The thread that signals is PMIx's, completing a
 * fence: the pause widens, from a few instructions to a certain loss on
 * every run, the window in which the rank that waits for the fence sees it
 * done and goes on (to destroy the worker, at MPI_Finalize) while the
 * callback has yet to signal that worker. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucp/api/ucp.h>
#include <unistd.h>

enum { LATE_SIGNAL_MS = 20 };

ucs_status_t ucp_worker_signal(ucp_worker_h worker)
{
    ucs_status_t (*real)(ucp_worker_h) = (ucs_status_t(*)(ucp_worker_h))dlsym(
        RTLD_NEXT, "ucp_worker_signal");
    if (syscall(SYS_gettid) != getpid()) {
        struct timespec pause = {0, LATE_SIGNAL_MS * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return real(worker);
}
