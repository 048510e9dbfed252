/* Windows whose processes all run on one host: every operation is done by
 * the origin itself, in the target's memory (a segment all map, or the
 * kernel's cross-memory attach for memory the program gave), and locks,
 * post and complete are words of a control segment (README.md). The
 * target takes no part, so passive target needs no MPI call of its. */
#define _GNU_SOURCE /* process_vm_readv */
#include "ol_param_table.h"
#include "rma_internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int shared_memory_enabled;
static int ucx_rma_enabled;
static int ucx_atomics_param;
static int progress_thread_us;

static const ol_param_t rma_params[] = {
    {"RMA_SHARED_MEMORY", OL_PARAM_INT, "1",
     "1: windows whose processes all run on one host are read and written by the origin "
     "itself, through shared memory (cross-memory attach for MPI_Win_create windows), with "
     "no help from the target; 0: every operation is a message that the target handles in "
     "its MPI calls, as between hosts.",
     &shared_memory_enabled, 0, 1},
    {"RMA_UCX", OL_PARAM_INT, "1",
     "1: windows of host memory that are not on one host (or with RMA_SHARED_MEMORY=0) "
     "register their memory with UCX, and contiguous puts and gets, and atomics on one "
     "4- or 8-byte integer, go through UCX's RMA (the network card's, where it has it); 0: "
     "every operation is a message that the target handles in its MPI calls.",
     &ucx_rma_enabled, 0, 1},
    {"RMA_UCX_ATOMICS", OL_PARAM_INT, "-1",
     "with RMA_UCX: 1: single-element integer accumulates, fetch-and-op and compare-and-swap "
     "go through UCX's atomics, and targets apply the accumulates that come as messages "
     "with the CPU's atomics element by element, so that both stay atomic together; 0: all "
     "are messages, applied whole; -1: 1 where the host has an InfiniBand or RoCE card. "
     "Over TCP and shared memory UCX emulates its atomics with messages to the target, no "
     "faster than ompi-lite's own, and element-by-element atomics made 512 KiB "
     "MPI_Accumulate of ints 10-40 times slower (3.8-4.8 ms, 2 ranks of one host).",
     &ucx_atomics_param, -1, 1},
    {"RMA_PROGRESS_US", OL_PARAM_INT, "0",
     "0: a target handles one-sided messages (windows across hosts) only inside its own MPI "
     "calls, so a target that computes holds its origins up. N > 0: a thread of the library "
     "progresses them every N microseconds while such a window lives (MPI then runs at "
     "MPI_THREAD_MULTIPLE inside, which costs a lock per call; the thread takes a core's "
     "share while it polls).",
     &progress_thread_us, 0, 1000000},
};

void ol_rma_params_load(void)
{
    ol_param_table_load(rma_params, OL_ARRAY_SIZE(rma_params));
}

void ol_rma_params_print(FILE *out)
{
    ol_param_table_print(rma_params, OL_ARRAY_SIZE(rma_params), out);
}

bool ol_rma_direct_wanted(void)
{
    return shared_memory_enabled;
}

bool ol_rma_ucx_wanted(void)
{
    return ucx_rma_enabled;
}

bool ol_rma_ucx_atomics_wanted(void)
{
    return ucx_atomics_param == 1 || (ucx_atomics_param == -1 && ol_rt_host_has_rdma());
}

int ol_rma_progress_interval_us(void)
{
    return progress_thread_us;
}

/* ---- the control segment ------------------------------------------------------ */

/* One cache line per process of the window. */
struct ol_rma_slot {
    _Atomic uint32_t lock;      /* bit 31: held exclusively; else the shared holders */
    _Atomic uint32_t acc;       /* held while an accumulate works on this memory */
    _Atomic uint32_t completes; /* PSCW: MPI_Win_complete calls aimed here, not waited for */
    _Atomic uint32_t sleepers;  /* processes asleep on a word of this slot */
    char pad[48];
};

#define EXCLUSIVE 0x80000000u

size_t ol_rma_control_bytes(int size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)size * sizeof(ol_rma_slot_t) + (size_t)size * (size_t)size * 4;
    return (bytes + page - 1) / page * page;
}

void ol_rma_direct_attach_control(ol_rma_state_t *s, void *control)
{
    s->slots = control;
    s->post_words = (_Atomic uint32_t *)((char *)control + (size_t)s->size * sizeof(ol_rma_slot_t));
}

/* posts[target][origin]: MPI_Win_post calls of target naming origin, not
 * yet started on. */
static _Atomic uint32_t *post_word(const ol_rma_state_t *s, int target, int origin)
{
    return &s->post_words[(size_t)target * (size_t)s->size + (size_t)origin];
}

/* ---- waiting on a word ---------------------------------------------------------- */

enum { SLEEP_NS = 1000 * 1000 }; /* a safety net: every release wakes sleepers */

/* Waits until ready(arg), progressing this process's other operations
 * (MPI's progress rule), then yielding the core, then asleep on word.
 * ready may act on what it finds (take a lock): it is not called again
 * once it has answered true. */
static void wait_for(bool (*ready)(void *arg), void *arg, ol_rma_slot_t *slot,
                     _Atomic uint32_t *word)
{
    ol_wait_phase_t phase = ol_wait_start();
    while (!ready(arg)) {
        if (ol_progress_and_wake() || ol_wait_poll_again(&phase))
            continue;
        /* Counted before the last look, so that a release either comes
         * after that look or sees the sleeper and wakes it. */
        atomic_fetch_add(&slot->sleepers, 1);
        uint32_t seen = atomic_load(word);
        bool got = ready(arg);
        if (!got) {
            struct timespec timeout = {0, SLEEP_NS};
            syscall(SYS_futex, word, FUTEX_WAIT, seen, &timeout, NULL, 0);
        }
        atomic_fetch_sub(&slot->sleepers, 1);
        if (got)
            return;
        phase = ol_wait_start();
    }
}

static void wake(ol_rma_slot_t *slot, _Atomic uint32_t *word)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&slot->sleepers, memory_order_relaxed) > 0)
        syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* ---- locks ---------------------------------------------------------------------- */

typedef struct {
    _Atomic uint32_t *word;
    bool exclusive;
} lock_try_t;

static bool take(void *arg)
{
    lock_try_t *t = arg;
    uint32_t v = atomic_load_explicit(t->word, memory_order_relaxed);
    if (t->exclusive)
        return v == 0 && atomic_compare_exchange_strong(t->word, &v, EXCLUSIVE);
    return !(v & EXCLUSIVE) && atomic_compare_exchange_strong(t->word, &v, v + 1);
}

void ol_rma_direct_lock(ol_rma_state_t *s, int target, bool exclusive)
{
    ol_rma_slot_t *slot = &s->slots[target];
    lock_try_t t = {&slot->lock, exclusive};
    wait_for(take, &t, slot, &slot->lock);
}

void ol_rma_direct_unlock(ol_rma_state_t *s, int target, bool exclusive)
{
    ol_rma_slot_t *slot = &s->slots[target];
    if (exclusive)
        atomic_store_explicit(&slot->lock, 0, memory_order_release);
    else
        atomic_fetch_sub_explicit(&slot->lock, 1, memory_order_release);
    wake(slot, &slot->lock);
}

/* Accumulates on one process's memory take turns: what makes them atomic
 * with respect to each other. */
void ol_rma_direct_acc_begin(ol_rma_state_t *s, int target)
{
    ol_rma_slot_t *slot = &s->slots[target];
    lock_try_t t = {&slot->acc, true};
    wait_for(take, &t, slot, &slot->acc);
}

void ol_rma_direct_acc_end(ol_rma_state_t *s, int target)
{
    ol_rma_slot_t *slot = &s->slots[target];
    atomic_store_explicit(&slot->acc, 0, memory_order_release);
    wake(slot, &slot->acc);
}

/* ---- post, start, complete, wait ---------------------------------------------------- */

void ol_rma_direct_post(ol_rma_state_t *s, int origin)
{
    int me = s->win->comm->rank;
    atomic_fetch_add_explicit(post_word(s, me, origin), 1, memory_order_release);
    wake(&s->slots[origin], post_word(s, me, origin));
}

typedef struct {
    ol_rma_state_t *s;
    int target;
} post_try_t;

static bool posted(void *arg)
{
    post_try_t *p = arg;
    return atomic_load_explicit(post_word(p->s, p->target, p->s->win->comm->rank),
                                memory_order_acquire) > 0;
}

void ol_rma_direct_start(ol_rma_state_t *s, int target)
{
    int me = s->win->comm->rank;
    post_try_t p = {s, target};
    wait_for(posted, &p, &s->slots[me], post_word(s, target, me));
    atomic_fetch_sub_explicit(post_word(s, target, me), 1, memory_order_relaxed);
}

void ol_rma_direct_complete(ol_rma_state_t *s, int target)
{
    ol_rma_slot_t *slot = &s->slots[target];
    atomic_fetch_add_explicit(&slot->completes, 1, memory_order_release);
    wake(slot, &slot->completes);
}

typedef struct {
    ol_rma_slot_t *slot;
    uint32_t n;
} completes_try_t;

static bool completed(void *arg)
{
    completes_try_t *c = arg;
    return atomic_load_explicit(&c->slot->completes, memory_order_acquire) >= c->n;
}

/* Whether n completes have come (wait: waits for them); takes them. The
 * origins count them in shared memory: a look needs no progress (MPI_Win_test
 * has made its progress call already). */
bool ol_rma_direct_take_completes(ol_rma_state_t *s, int n, bool wait)
{
    ol_rma_slot_t *slot = &s->slots[s->win->comm->rank];
    completes_try_t c = {slot, (uint32_t)n};
    if (wait)
        wait_for(completed, &c, slot, &slot->completes);
    else if (!completed(&c))
        return false;
    atomic_fetch_sub_explicit(&slot->completes, (uint32_t)n, memory_order_relaxed);
    return true;
}

/* ---- the target's memory -------------------------------------------------------------- */

/* Moves bytes between here and target's window memory at offset: a copy
 * where it is mapped here, else the kernel's cross-memory attach. */
static ol_status_t move(ol_rma_state_t *s, int target, int64_t offset, void *here, size_t bytes,
                        bool write)
{
    if (!bytes)
        return MPI_SUCCESS;
    char *mapped = s->peers[target].shared_base;
    if (mapped) {
        if (write)
            memcpy(mapped + offset, here, bytes);
        else
            memcpy(here, mapped + offset, bytes);
        return MPI_SUCCESS;
    }
    struct iovec local = {here, bytes};
    struct iovec remote = {(char *)s->remote_bases[target] + offset, bytes};
    ssize_t done = write ? process_vm_writev(s->pids[target], &local, 1, &remote, 1, 0)
                         : process_vm_readv(s->pids[target], &local, 1, &remote, 1, 0);
    if (done == (ssize_t)bytes)
        return MPI_SUCCESS;
    ol_error_detail("cannot %s %zu bytes of rank %d's window memory: %s",
                    write ? "write" : "read", bytes, target,
                    done < 0 ? strerror(errno) : "a partial transfer");
    return MPI_ERR_OTHER;
}

ol_status_t ol_rma_direct_read(ol_rma_state_t *s, int target, int64_t offset, void *dst,
                               size_t bytes)
{
    return move(s, target, offset, dst, bytes, false);
}

ol_status_t ol_rma_direct_write(ol_rma_state_t *s, int target, int64_t offset, const void *src,
                                size_t bytes)
{
    return move(s, target, offset, (void *)src, bytes, true);
}

/* Whether this process can read another's memory with cross-memory
 * attach (a kernel or policy may forbid it): tried on one word of its
 * window, or of its control line when it gave no memory. */
bool ol_rma_direct_can_reach(ol_rma_state_t *s, int target)
{
    uint32_t word;
    struct iovec local = {&word, sizeof(word)};
    struct iovec remote = {s->probe_addresses[target], sizeof(word)};
    return process_vm_readv(s->pids[target], &local, 1, &remote, 1, 0) == sizeof(word);
}
