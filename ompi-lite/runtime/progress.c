/* The progress engine's waiting loop, in three phases: poll UCX for spin_us
 * (0 when the host has fewer cores than local ranks); then keep polling but
 * give the core away between polls (sched_yield) for yield_us (parameter
 * YIELD_US); then sleep on the worker's event fd until UCX signals an
 * event.
 *
 * Why the yielding phase: a rank that sleeps at once costs its peer a
 * wakeup signal and itself the scheduler's latency on every message, while
 * a yielding rank stays on the run queue: a rank that shares its core runs
 * at once, and the yielder sees its message on its next turn. Why it is
 * short: a longer wait is a large transfer or a peer at work, and there a
 * sleeping rank leaves the core to the ranks that work, and a wakeup puts
 * it first in line. Measured on the 2-core development machine, loaded by
 * other jobs (load average 6-10, so single runs vary by 2x), 4 ranks:
 *
 *   yield for      allreduce 8 B   reduce 256 KiB   (osu medians, us, 2 runs)
 *   0 (sleep)        28-65           594-608
 *   100 us           11-14           540-695
 *   1 ms             18-20          1078-1288
 *   20 ms             5-24           840-1280
 *
 * and with 2 ranks (spin 50 us first), allreduce 8 B 18.6 us with sleep,
 * 0.28 with 2 ms of yielding.
 *
 * Why a yield that loses the core ends the yielding: see core_taken.
 *
 * Why progress restarts the phases: a rank with a core of its own (spin_us
 * above 0) that completes something keeps polling, since more is likely to
 * follow, and sleeping between completions costs a wakeup each; and a rank
 * that waits for its large sends helps copy them only while it polls
 * (pt2pt/shm_copy.h). osu_bw, 2 ranks, 128 KiB-1 MiB, YIELD_US 200 -> 100
 * ms, before this: 13.8-20.6 -> 17.3-29.6 GB/s. Ranks that share cores
 * (spin_us 0) keep the phases of the whole wait: there, polling takes the
 * core from a rank with work; except while windows whose targets answer
 * messages live (rma/): a target blocked in a barrier then keeps
 * answering an origin's stream of operations at once instead of once per
 * sleep (MPI_Put + MPI_Win_flush between two processes of one host with
 * RMA_SHARED_MEMORY=0, target in a barrier: 60-100 us before).
 *
 * Under MPI_THREAD_MULTIPLE several threads of a rank may wait at once, and
 * one thread's progress may complete another's request: a thread that made
 * progress while others sleep wakes them (ucp_worker_signal). A sleeper
 * counts itself before its last look at its condition, so a completion
 * either shows in that look or finds it counted. */
#include "ol_counter.h"
#include "ol_params.h"
#include "ol_runtime.h"
#include "ol_state.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int sleepers;

int (*volatile ol_progress_hooks[OL_PROGRESS_LAYERS])(void);

double ol_rt_wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sleeps until UCX signals an event or wait_poll_ms passes, unless the last
 * look at done, which the caller must not repeat, finds it true: the
 * answer. ucp_worker_arm answers BUSY when events are already pending, so
 * none is slept through. */
static bool sleep_on_worker(bool (*done)(void *arg), void *arg)
{
    __atomic_add_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
    ol_state_note_pending(); /* the slow path: a blocked rank lists what it waits for */
    const ol_rt_channel_t *channel = ol_rt_channel;
    bool quiet = !channel || channel->sleep_begin(); /* false: a message arrived meanwhile */
    bool finished = quiet && done(arg);
    if (quiet && !finished && ucp_worker_arm(ol_rt.ucp_worker) == UCS_OK) {
        struct pollfd pfd = {.fd = ol_rt.worker_efd, .events = POLLIN};
        poll(&pfd, 1, ol_param.wait_poll_ms);
    }
    if (channel)
        channel->sleep_end();
    __atomic_sub_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
    return finished;
}

int ol_progress_and_wake(void)
{
    int events = ol_progress();
    if (events && __atomic_load_n(&sleepers, __ATOMIC_SEQ_CST) > 0)
        ucp_worker_signal(ol_rt.ucp_worker);
    return events;
}

/* A program that polls (MPI_Test in a loop, serving requests meanwhile, as
 * OSHMPI's active messages do) on ranks that share cores keeps the core
 * its peer needs to answer until the scheduler's time slice ends: 4 ranks
 * on the 2 cores, each awaiting its neighbour's answer with MPI_Testall,
 * took up to 80 ms a round trip, 5 runs of 6 past 30 s for 25000 (Open
 * MPI, which yields when idle in an oversubscribed job: 5 us a request;
 * MPICH 3-140 us). With a yield after an idle poll: 5.6-9.6 us, 6 runs of
 * 6 (p2p_shm_oversub's third part: 8 ranks, 17 us, where it ran out of its
 * 30 s before). Where every rank has a core, polls never yield: the core
 * would go to nobody. */
void ol_poll_found_nothing(void)
{
    if (!ol_rt.core_per_local_rank)
        sched_yield();
}

int ol_progress_poll(void)
{
    int events = ol_progress();
    if (events == 0)
        ol_poll_found_nothing();
    return events;
}

/* Idle polls between two looks at the clock while spinning: reading the
 * clock (about 20 ns here, 2-3 idle ucp_worker_progress calls) on every poll
 * would slow the loop that notices an arriving message. */
#define SPIN_POLLS_PER_CLOCK 32

/* A yield that kept the rank off its core this long gave it to another
 * process (sched_yield returns in about a microsecond when no other task
 * wants the core). Where ranks share cores (spin_us 0) a yield hands the
 * core to a peer rank for its turn, which may be long too (a root running
 * bcasts ahead), so there a long absence counts only while the host runs
 * more tasks than the job has ranks here (/proc/loadavg): another job's
 * busy process keeps the core for a time slice. 4 ranks on the 2 cores,
 * us, two runs each (2026-12-07, 2-core AMD EPYC VM), beside two busy
 * processes: osu_reduce 16/64 KiB 798-871/1560-1764 when such yields never
 * counted as lost (the ranks yielded for all of YIELD_US in every wait),
 * 91-111/310-317 now; osu_bcast 64 KiB 184-211 -> 120-132. Quiet, without
 * the look at the host's tasks, 300 us put 4-rank bcasts of 32-64 KiB to
 * sleep now and then (1.2-1.9 times the time; 1 ms: whole runs at 5 times
 * in one series of three); with it three alternating pairs were even. */
#define CORE_TAKEN_US 50
#define CORE_TAKEN_SHARED_US 300

/* Whether tasks other than this job's ranks of the host run now: the
 * runnable count of /proc/loadavg above the job's ranks here (a sleeping
 * rank is not counted, so this errs towards "no"). Read only after a long
 * yield, so its cost (a few microseconds) is rare. */
static bool strangers_running(void)
{
    char buf[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    double load1, load5, load15;
    int running;
    if (sscanf(buf, "%lf %lf %lf %d/", &load1, &load5, &load15, &running) != 4)
        return false;
    return running > ol_rt.local_size;
}

/* Whether the yield just made (the clock read `before` it) handed the core
 * to another job's process. From then on the rank sleeps: the scheduler
 * runs a woken sleeper before a process that has used its share, while a
 * yielder waits for its next turn behind every busy process of the core
 * (osu_bw beside 2 spinning processes, 2 ranks: see "Busy cores" in
 * pt2pt/README.md). */
static bool core_taken(double before)
{
    double away_us = 1e6 * (ol_rt_wtime() - before);
    if (ol_rt.spin_us > 0)
        return away_us > CORE_TAKEN_US;
    return away_us > CORE_TAKEN_SHARED_US && strangers_running();
}

/* When a yield last lost the core: for core_lost_for seconds after it,
 * waits skip their yielding (each would lose a time slice before finding
 * out), then one yield looks again. The span is 1 ms after a loss that
 * follows none in the last 200 ms, and doubles with each loss within that
 * time, up to 100 ms: so a lasting neighbour costs a look every 100 ms,
 * and a one-off (a daemon of the job starting up, the hypervisor taking
 * the virtual core) 1 ms of sleeps. With a fixed 100 ms, the one slow
 * yield at the start of a run made every wait of the next 100 ms sleep
 * (osu_latency 64 KiB copied by its receiver, P2P_SHM_CMA_BYTES 16 KiB:
 * 706 sleeps, 25-30 us against 8.6-9.4 with a 20 us spin). */
#define CORE_LOST_MIN_S 0.001
#define CORE_LOST_MAX_S 0.1
static _Atomic double core_lost_at = -1.0;
static _Atomic double core_lost_for = CORE_LOST_MIN_S;

static void core_lost(double now)
{
    bool again = core_lost_at >= 0 && now - core_lost_at < 2 * CORE_LOST_MAX_S;
    double span = again ? 2 * core_lost_for : CORE_LOST_MIN_S;
    core_lost_for = span < CORE_LOST_MAX_S ? span : CORE_LOST_MAX_S;
    core_lost_at = ol_rt_wtime();
}

ol_wait_phase_t ol_wait_start(void)
{
    return (ol_wait_phase_t){.spinning = ol_rt.spin_us > 0};
}

bool ol_wait_poll_again(ol_wait_phase_t *w)
{
    if (w->spinning && ++w->polls % SPIN_POLLS_PER_CLOCK != 0)
        return true;
    double now = ol_rt_wtime();
    if (w->spin_until == 0) {
        w->spin_until = now + 1e-6 * ol_rt.spin_us;
        w->yield_until = w->spin_until + 1e-6 * ol_param.yield_us;
    }
    if (now < w->spin_until)
        return true;
    w->spinning = false;
    /* A rank that owes progress yields on: nobody wakes it for that. */
    if (!ol_rt_may_sleep()) {
        sched_yield();
        return true;
    }
    if (now < w->yield_until && now - core_lost_at > core_lost_for) {
        sched_yield();
        if (!core_taken(now))
            return true;
        core_lost(now);
    }
    return false;
}

/* done is looked at until it is true and never again after that: a look
 * may have a side effect (a probe that removes the message it finds), so a
 * true answer is the only one that counts. */
int ol_progress_wait_timed;
int ol_counters_started;
static uint64_t wait_ns;

uint64_t ol_progress_wait_ns(void)
{
    return ol_counter_read(&wait_ns);
}

bool ol_wait_restarts_on_progress(void)
{
    return ol_rt.spin_us > 0 || ol_progress_hooks[OL_PROGRESS_RMA] != NULL;
}

static void wait_untimed(bool (*done)(void *arg), void *arg)
{
    ol_wait_phase_t phase = ol_wait_start();
    while (!done(arg)) {
        if (ol_progress_and_wake()) {
            if (ol_wait_restarts_on_progress())
                phase = ol_wait_start(); /* see "Why progress restarts the phases" */
            continue;
        }
        if (ol_wait_poll_again(&phase))
            continue;
        if (sleep_on_worker(done, arg))
            return;
        phase = ol_wait_start();
    }
}

/* The clock is read only while a tool times the waits. */
void ol_progress_wait(bool (*done)(void *arg), void *arg)
{
    if (OL_LIKELY(!__atomic_load_n(&ol_progress_wait_timed, __ATOMIC_RELAXED))) {
        wait_untimed(done, arg);
        return;
    }
    double start = ol_rt_wtime();
    wait_untimed(done, arg);
    ol_counter_add_always(&wait_ns, (uint64_t)((ol_rt_wtime() - start) * 1e9));
}
