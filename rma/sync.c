/* Synchronisation: fence, post-start-complete-wait, locks and flushes
 * (README.md: how each maps onto the messages). */
#include "coll.h"
#include "rma_internal.h"

#include <stdlib.h>

bool ol_rma_in_epoch(const ol_rma_state_t *s, int target)
{
    if (s->fence_epoch || s->lock_all || s->lock_type[target])
        return true;
    for (int i = 0; i < s->naccess; i++)
        if (s->access[i] == target)
            return true;
    return false;
}

/* Rank in the window's group of member i of group (MPI_UNDEFINED if none). */
static int rank_in_window(const ol_rma_state_t *s, const ol_group_t *group, int i)
{
    const ol_comm_t *comm = s->win->comm;
    for (int r = 0; r < comm->size; r++)
        if (ol_comm_world_rank(comm, r) == group->world_ranks[i])
            return r;
    return MPI_UNDEFINED;
}

typedef struct {
    const int *counts; /* per target */
    int size, target;  /* target -1: all */
} counts_arg_t;

static bool counts_zero(void *arg)
{
    const counts_arg_t *c = arg;
    for (int r = 0; r < c->size; r++)
        if ((c->target < 0 || r == c->target) && __atomic_load_n(&c->counts[r], __ATOMIC_ACQUIRE))
            return false;
    return true;
}

/* Waits until counts[target] (-1: every target's) is 0, once the messages
 * that wait in a bundle have left. Lock held. */
static void await_zero(ol_rma_state_t *s, const int *counts, int target)
{
    ol_rma_send_bundles(s);
    ol_rma_wait_until(counts_zero, &(counts_arg_t){counts, s->size, target});
}

/* Waits for the answers to this process's operations to target (-1: to
 * all). */
static void await_answers(ol_rma_state_t *s, int target)
{
    await_zero(s, s->data_pending, target);
}

/* A target sends a large get's data from its window after it handled the
 * get (protocol.c, "apart"); it must be in here before an unlock or a
 * complete lets the target or another origin change that memory. */
static void await_gets_apart(ol_rma_state_t *s, int target)
{
    await_zero(s, s->apart_pending, target);
}

/* An error a target reported for an operation without a reply of its own,
 * once. */
static ol_status_t take_deferred(ol_rma_state_t *s, ol_status_t rc)
{
    if (rc == MPI_SUCCESS)
        rc = s->deferred_error;
    s->deferred_error = MPI_SUCCESS;
    if (rc == MPI_ERR_RMA_RANGE)
        ol_error_detail("an operation addressed memory outside the target's window (or, for a "
                        "dynamic window, outside what the target attached): it was not done");
    return rc;
}

/* Asks each target in `targets` (a rank, or -1: all that were touched)
 * for an answer behind this process's operations, then waits for them all.
 * kind: MSG_FLUSH or MSG_UNLOCK. Lock held on entry. */
static ol_status_t ask_and_wait(ol_rma_state_t *s, int target, ol_rma_msg_kind_t kind,
                                bool only_touched)
{
    ol_rma_pending_t **asked = calloc((size_t)s->size, sizeof(*asked));
    if (!asked)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = MPI_SUCCESS;
    for (int r = 0; r < s->size && rc == MPI_SUCCESS; r++) {
        if ((target >= 0 && r != target) || (only_touched && !s->touched[r]))
            continue;
        asked[r] = ol_rma_expect(s, r, false, NULL, 0, NULL, NULL);
        if (!asked[r]) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        ol_rma_msg_t hdr = {.kind = (uint8_t)kind, .id = asked[r]->id};
        rc = ol_rma_send(s, r, &hdr, NULL, NULL, 0);
        s->touched[r] = false;
    }
    for (int r = 0; r < s->size; r++) {
        if (!asked[r])
            continue;
        ol_status_t answer = ol_rma_await(s, asked[r]);
        if (rc == MPI_SUCCESS)
            rc = answer;
    }
    free(asked);
    /* Replies are in order behind the gets issued before: all are in. */
    return take_deferred(s, rc);
}

ol_status_t ol_rma_flush_messages(ol_rma_state_t *s, int target)
{
    ol_status_t rc = ask_and_wait(s, target, MSG_FLUSH, true);
    /* Operations with answers leave no mark in touched: theirs say. */
    await_answers(s, target);
    return rc;
}

/* UCX's operations to target (-1: all) complete there, before a message
 * says they are (an unlock, a complete) or a flush returns. Lock held. */
static ol_status_t flush_ucx(ol_rma_state_t *s, int target)
{
    return s->ucx ? ol_rma_ucx_flush(s, target) : MPI_SUCCESS;
}

ol_status_t ol_rma_complete_at_targets(ol_rma_state_t *s)
{
    if (s->direct) { /* every operation was done when it was issued */
        atomic_thread_fence(memory_order_seq_cst);
        return MPI_SUCCESS;
    }
    ol_status_t ucx = flush_ucx(s, -1);
    ol_status_t rc = ask_and_wait(s, -1, MSG_FLUSH, true);
    await_answers(s, -1);
    return ucx != MPI_SUCCESS ? ucx : rc;
}

/* ---- fence ------------------------------------------------------------------ */

static bool other_epoch(const ol_rma_state_t *s)
{
    if (s->lock_all || s->naccess >= 0 || s->exposed)
        return true;
    for (int r = 0; r < s->size; r++)
        if (s->lock_type[r])
            return true;
    return false;
}

/* Where an epoch sent a message larger than this, the fence waits until
 * the other process has handled it, as a flush does: with the next large
 * message on its way while the other still handles the last, both ran
 * slower than one after the other (2 namespace hosts, osu_acc_latency of
 * 512 KiB / 1 MiB 450-610 / 950-1060 us, flushed first 145-170 / 520-630;
 * 128 KiB gains from the overlap, 57-68 -> 32-40). */
#define FENCE_PACED_BYTES (128 * 1024 + 1024) /* 128 KiB of data, its header and blocks */

/* Between two processes a fence is one message each way: each sends the
 * other a marker behind its operations and waits for the other's. The
 * other handles messages in order, so past its marker it has done this
 * process's operations, and it sent the marker only once its own were
 * complete (answers in, UCX's flushed). A flush and a barrier took two
 * round trips (2 namespace hosts: osu_acc_latency of 4-512 B 33-35 us;
 * with the marker 9.6-14.0, Open MPI 16.6-25.9).
 *
 * With more processes a marker would not do: a third process's operation
 * of the next epoch could reach a target still waiting for another's
 * marker. Nor on dynamic windows, whose range errors only the target
 * finds: the flush brings them to this fence. */
static bool fence_by_markers(const ol_rma_state_t *s)
{
    return s->size == 2 && !s->direct && s->peers;
}

static bool marker_in(void *arg)
{
    const ol_rma_state_t *s = arg;
    return __atomic_load_n(&s->fence_markers, __ATOMIC_ACQUIRE) >= s->fences_by_marker;
}

/* Lock held. */
static ol_status_t fence_with_other(ol_rma_state_t *s, int assert)
{
    int self = s->win->comm->rank, other = 1 - self;
    ol_status_t rc = MPI_SUCCESS;
    if (!(assert & MPI_MODE_NOPRECEDE)) {
        await_answers(s, -1);
        rc = flush_ucx(s, -1);
        /* Accumulates on this process's own memory are messages to itself. */
        if (s->touched[self] && rc == MPI_SUCCESS)
            rc = ol_rma_flush_messages(s, self);
    }
    /* Large messages are paced: the other handles them before this
     * process goes on to the next epoch. */
    if (s->touched[other] && s->largest_sent > FENCE_PACED_BYTES && rc == MPI_SUCCESS)
        rc = ol_rma_flush_messages(s, other);
    s->largest_sent = 0;
    /* The other process may return before it has handled the messages
     * sent before this marker; UCX's puts and gets bypass them. */
    if (s->touched[other])
        s->messages_unsettled = true;
    ol_status_t sent = ol_rma_send_fence_marker(s, other);
    if (rc == MPI_SUCCESS)
        rc = sent;
    s->fences_by_marker++;
    ol_rma_wait_until(marker_in, s);
    return take_deferred(s, rc);
}

ol_status_t ol_rma_fence(ol_win_t *win, int assert)
{
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    if (other_epoch(s)) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_fence inside a lock or post/start epoch of the window");
        return MPI_ERR_RMA_SYNC;
    }
    s->fence_epoch = !(assert & MPI_MODE_NOSUCCEED);
    if (fence_by_markers(s)) {
        ol_status_t rc = fence_with_other(s, assert);
        ol_rma_unlock_state();
        return rc;
    }
    ol_status_t rc = MPI_SUCCESS;
    if (!(assert & MPI_MODE_NOPRECEDE))
        rc = ol_rma_complete_at_targets(s);
    ol_rma_unlock_state();
    /* Once everyone is here, every operation of the closed epoch is done. */
    ol_status_t barrier = ol_coll_barrier(win->comm);
    return rc != MPI_SUCCESS ? rc : barrier;
}

/* ---- post, start, complete, wait ---------------------------------------------- */

static ol_status_t check_group(const ol_rma_state_t *s, const ol_group_t *group,
                               const char *function)
{
    for (int i = 0; i < group->size; i++)
        if (rank_in_window(s, group, i) == MPI_UNDEFINED) {
            ol_error_detail("%s: member %d of group (world rank %d) is not in the window's "
                            "group", function, i, group->world_ranks[i]);
            return MPI_ERR_GROUP;
        }
    return MPI_SUCCESS;
}

ol_status_t ol_rma_post(ol_win_t *win, const ol_group_t *group, int assert)
{
    ol_rma_state_t *s = win->state;
    ol_status_t rc = check_group(s, group, "MPI_Win_post");
    if (rc != MPI_SUCCESS)
        return rc;
    ol_rma_lock_state();
    if (s->exposed) {
        ol_error_detail("MPI_Win_post: the window is exposed already (a post not yet waited "
                        "for)");
        rc = MPI_ERR_RMA_SYNC;
    }
    if (rc == MPI_SUCCESS) {
        s->fence_epoch = false; /* a fence before ends its epoch when no operation follows */
        s->exposed = true;
        s->exposure_size = group->size;
    }
    for (int i = 0; rc == MPI_SUCCESS && i < group->size; i++) {
        int origin = rank_in_window(s, group, i);
        ol_rma_msg_t hdr = {.kind = MSG_POST};
        if (s->direct)
            ol_rma_direct_post(s, origin);
        else
            rc = ol_rma_send(s, origin, &hdr, NULL, NULL, 0);
    }
    ol_rma_unlock_state();
    (void)assert; /* MPI_MODE_NOCHECK: the post is still announced, which costs little */
    return rc;
}

static bool all_posted(void *arg)
{
    ol_rma_state_t *s = arg;
    for (int i = 0; i < s->naccess; i++)
        if (__atomic_load_n(&s->posts[s->access[i]], __ATOMIC_ACQUIRE) == 0)
            return false;
    return true;
}

ol_status_t ol_rma_start(ol_win_t *win, const ol_group_t *group, int assert)
{
    ol_rma_state_t *s = win->state;
    ol_status_t rc = check_group(s, group, "MPI_Win_start");
    if (rc != MPI_SUCCESS)
        return rc;
    ol_rma_lock_state();
    if (s->naccess >= 0 || s->lock_all) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_start inside another access epoch of the window");
        return MPI_ERR_RMA_SYNC;
    }
    s->fence_epoch = false;
    s->naccess = group->size;
    for (int i = 0; i < group->size; i++)
        s->access[i] = rank_in_window(s, group, i);
    (void)assert;
    ol_rma_unlock_state();
    /* Operations may go once each target has posted: waited for here. */
    if (s->direct) {
        for (int i = 0; i < group->size; i++)
            ol_rma_direct_start(s, s->access[i]);
        return MPI_SUCCESS;
    }
    ol_rma_lock_state();
    ol_rma_wait_until(all_posted, s);
    for (int i = 0; i < s->naccess; i++)
        __atomic_sub_fetch(&s->posts[s->access[i]], 1, __ATOMIC_ACQ_REL);
    ol_rma_unlock_state();
    return MPI_SUCCESS;
}

ol_status_t ol_rma_complete(ol_win_t *win)
{
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    if (s->naccess < 0) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_complete without MPI_Win_start");
        return MPI_ERR_RMA_SYNC;
    }
    /* Behind this process's operations to it: the target's wait returns
     * once it has handled them all. */
    ol_status_t rc = flush_ucx(s, -1);
    if (s->direct)
        atomic_thread_fence(memory_order_seq_cst);
    else
        await_gets_apart(s, -1);
    for (int i = 0; i < s->naccess && rc == MPI_SUCCESS; i++) {
        ol_rma_msg_t hdr = {.kind = MSG_COMPLETE};
        if (s->direct)
            ol_rma_direct_complete(s, s->access[i]);
        else
            rc = ol_rma_send(s, s->access[i], &hdr, NULL, NULL, 0);
        s->touched[s->access[i]] = false;
    }
    s->naccess = -1;
    await_answers(s, -1);
    rc = take_deferred(s, rc);
    ol_rma_unlock_state();
    return rc;
}

static bool all_completed(void *arg)
{
    const ol_rma_state_t *s = arg;
    return __atomic_load_n(&s->completes, __ATOMIC_ACQUIRE) >= s->exposure_size;
}

static ol_status_t end_exposure(ol_rma_state_t *s)
{
    __atomic_sub_fetch(&s->completes, s->exposure_size, __ATOMIC_ACQ_REL);
    s->exposed = false;
    return MPI_SUCCESS;
}

ol_status_t ol_rma_wait(ol_win_t *win)
{
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    if (!s->exposed) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_wait without MPI_Win_post");
        return MPI_ERR_RMA_SYNC;
    }
    if (s->direct) {
        ol_rma_unlock_state();
        ol_rma_direct_take_completes(s, s->exposure_size, true);
        ol_rma_lock_state();
        s->exposed = false;
        ol_rma_unlock_state();
        return MPI_SUCCESS;
    }
    ol_rma_wait_until(all_completed, s);
    ol_status_t rc = end_exposure(s);
    ol_rma_unlock_state();
    return rc;
}

ol_status_t ol_rma_test(ol_win_t *win, int *flag)
{
    ol_rma_state_t *s = win->state;
    ol_progress();
    ol_rma_lock_state();
    if (!s->exposed) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_test without MPI_Win_post");
        return MPI_ERR_RMA_SYNC;
    }
    ol_status_t rc = MPI_SUCCESS;
    if (s->direct) {
        *flag = ol_rma_direct_take_completes(s, s->exposure_size, false);
        s->exposed = !*flag;
    } else {
        *flag = all_completed(s);
        rc = *flag ? end_exposure(s) : MPI_SUCCESS;
    }
    ol_rma_unlock_state();
    if (!*flag)
        ol_poll_found_nothing(); /* a program polls MPI_Win_test */
    return rc;
}

/* ---- locks ---------------------------------------------------------------------- */

/* Asks target for a lock and waits until it is granted. Lock held. */
static ol_status_t acquire(ol_rma_state_t *s, int target, int lock_type)
{
    if (s->direct) {
        ol_rma_unlock_state(); /* other threads' calls go on while this one waits */
        ol_rma_direct_lock(s, target, lock_type == MPI_LOCK_EXCLUSIVE);
        ol_rma_lock_state();
        return MPI_SUCCESS;
    }
    ol_rma_pending_t *p = ol_rma_expect(s, target, false, NULL, 0, NULL, NULL);
    if (!p)
        return MPI_ERR_NO_MEM;
    ol_rma_msg_t hdr = {.kind = MSG_LOCK, .exclusive = lock_type == MPI_LOCK_EXCLUSIVE,
                        .id = p->id};
    ol_status_t rc = ol_rma_send(s, target, &hdr, NULL, NULL, 0);
    ol_status_t granted = ol_rma_await(s, p);
    return rc != MPI_SUCCESS ? rc : granted;
}

/* Ends this process's lock on rank: once its operations there are done,
 * the lock (unless taken with MPI_MODE_NOCHECK) is given back. Lock held. */
static ol_status_t release(ol_rma_state_t *s, int rank)
{
    if (s->direct) {
        atomic_thread_fence(memory_order_seq_cst);
        if (!s->lock_nocheck[rank])
            ol_rma_direct_unlock(s, rank, s->lock_type[rank] == MPI_LOCK_EXCLUSIVE);
        return MPI_SUCCESS;
    }
    ol_status_t ucx = flush_ucx(s, rank);
    await_gets_apart(s, rank);
    ol_rma_msg_kind_t kind = s->lock_nocheck[rank] ? MSG_FLUSH : MSG_UNLOCK;
    ol_status_t rc = ask_and_wait(s, rank, kind, false);
    await_answers(s, rank);
    return ucx != MPI_SUCCESS ? ucx : rc;
}

ol_status_t ol_rma_lock(ol_win_t *win, int lock_type, int rank, int assert)
{
    ol_rma_state_t *s = win->state;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) {
        ol_error_detail("lock_type %d is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
                        lock_type);
        return MPI_ERR_LOCKTYPE;
    }
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= s->size) {
        ol_error_detail("rank %d is not a rank of the window's group (size %d)", rank, s->size);
        return MPI_ERR_RANK;
    }
    ol_rma_lock_state();
    ol_status_t rc = MPI_SUCCESS;
    if (s->lock_type[rank] || s->lock_all || s->naccess >= 0) {
        ol_error_detail("MPI_Win_lock of rank %d inside another access epoch to it (a lock "
                        "already held, lock_all or a start)", rank);
        rc = MPI_ERR_RMA_SYNC;
    } else if (!(assert & MPI_MODE_NOCHECK)) {
        rc = acquire(s, rank, lock_type);
    }
    if (rc == MPI_SUCCESS) {
        s->fence_epoch = false;
        s->lock_type[rank] = lock_type;
        s->lock_nocheck[rank] = (assert & MPI_MODE_NOCHECK) != 0;
    }
    ol_rma_unlock_state();
    return rc;
}

ol_status_t ol_rma_unlock(ol_win_t *win, int rank)
{
    ol_rma_state_t *s = win->state;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= s->size) {
        ol_error_detail("rank %d is not a rank of the window's group (size %d)", rank, s->size);
        return MPI_ERR_RANK;
    }
    ol_rma_lock_state();
    if (!s->lock_type[rank]) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_unlock of rank %d, which this process has not locked", rank);
        return MPI_ERR_RMA_SYNC;
    }
    /* The unlock's answer comes once the target has done every operation
     * sent before it; without a lock to release a flush says the same. */
    ol_status_t rc = release(s, rank);
    s->lock_type[rank] = 0;
    s->lock_nocheck[rank] = false;
    ol_rma_unlock_state();
    return rc;
}

ol_status_t ol_rma_lock_all(ol_win_t *win, int assert)
{
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    ol_status_t rc = MPI_SUCCESS;
    bool locks = s->lock_all || s->naccess >= 0;
    for (int r = 0; r < s->size; r++)
        locks = locks || s->lock_type[r];
    if (locks) {
        ol_error_detail("MPI_Win_lock_all inside another access epoch of the window");
        rc = MPI_ERR_RMA_SYNC;
    }
    for (int r = 0; rc == MPI_SUCCESS && !(assert & MPI_MODE_NOCHECK) && r < s->size; r++)
        rc = acquire(s, r, MPI_LOCK_SHARED);
    if (rc == MPI_SUCCESS) {
        s->lock_all = true;
        s->fence_epoch = false;
        for (int r = 0; r < s->size; r++)
            s->lock_nocheck[r] = (assert & MPI_MODE_NOCHECK) != 0;
    }
    ol_rma_unlock_state();
    return rc;
}

ol_status_t ol_rma_unlock_all(ol_win_t *win)
{
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    if (!s->lock_all) {
        ol_rma_unlock_state();
        ol_error_detail("MPI_Win_unlock_all without MPI_Win_lock_all");
        return MPI_ERR_RMA_SYNC;
    }
    ol_status_t rc = MPI_SUCCESS;
    if (s->direct) {
        for (int r = 0; r < s->size; r++) {
            s->lock_type[r] = MPI_LOCK_SHARED;
            release(s, r);
            s->lock_type[r] = 0;
        }
    } else {
        /* Every target asked at once, then every answer awaited. */
        rc = flush_ucx(s, -1);
        await_gets_apart(s, -1);
        ol_status_t answers = ask_and_wait(s, -1, s->lock_nocheck[0] ? MSG_FLUSH : MSG_UNLOCK,
                                           false);
        rc = rc != MPI_SUCCESS ? rc : answers;
        await_answers(s, -1);
    }
    s->lock_all = false;
    for (int r = 0; r < s->size; r++)
        s->lock_nocheck[r] = false;
    ol_rma_unlock_state();
    return rc;
}

/* ---- flushes and sync ---------------------------------------------------------------- */

ol_status_t ol_rma_flush(ol_win_t *win, int rank, bool local)
{
    ol_rma_state_t *s = win->state;
    if (rank >= s->size || rank < -1) {
        ol_error_detail("rank %d is not a rank of the window's group (size %d)", rank, s->size);
        return MPI_ERR_RANK;
    }
    ol_rma_lock_state();
    bool locked = s->lock_all || (rank >= 0 ? s->lock_type[rank] != 0 : false);
    for (int r = 0; rank < 0 && !locked && r < s->size; r++)
        locked = s->lock_type[r] != 0;
    if (!locked) {
        ol_rma_unlock_state();
        ol_error_detail("%s outside a passive-target epoch (MPI_Win_lock or "
                        "MPI_Win_lock_all)", local ? "MPI_Win_flush_local" : "MPI_Win_flush");
        return MPI_ERR_RMA_SYNC;
    }
    if (s->direct) { /* every operation was done when it was issued */
        ol_rma_unlock_state();
        atomic_thread_fence(memory_order_seq_cst);
        return MPI_SUCCESS;
    }
    /* MPI_Win_flush_local completes the operations at the target too, as
     * MPI_Win_flush does. Local completion alone would be free here (the
     * data of messages' puts and accumulates left in copies of their own
     * when they were issued), but UCX tells of its operations' completion
     * only once they are at the target, so with Open MPI's and MPICH's UCX
     * paths flush_local is a full flush, and programs rely on it: OSHMPI's
     * shmem_clear_lock releases a lock after puts completed by
     * flush_local only, and the SOS suite's mt_lock_test lost updates (3
     * runs of 3 on 4 ranks through messages, 58-63 of 64 kept) while a
     * local flush returned before the puts were done. */
    ol_status_t rc = flush_ucx(s, rank);
    if (rc == MPI_SUCCESS)
        rc = ask_and_wait(s, rank, MSG_FLUSH, true);
    await_answers(s, rank);
    rc = take_deferred(s, rc);
    ol_rma_unlock_state();
    return rc;
}

ol_status_t ol_rma_sync(ol_win_t *win)
{
    (void)win;
    /* The unified model: one copy of the memory; order this process's
     * loads and stores against the others'. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
