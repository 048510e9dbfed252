/* Counters behind the tool interface's performance variables
 * (api/tool.c): each layer counts its own events into per-process
 * variables and offers a snapshot to the API layer.
 *
 * Counters count only while a tool has started a handle of a counter
 * (ol_counters_started, which api/tool.c keeps): a handle counts only
 * while started anyway, and when no tool looks the cost is one load and a
 * branch (8-byte ping-pong, 2 ranks: the two adds of a message cost 1-2%
 * of its time). Only where several threads may count at once
 * (MPI_THREAD_MULTIPLE) is the add a relaxed atomic one, so no count is
 * lost; readers load each counter on its own (a snapshot is not taken at
 * one instant). Timers read the clock only while a tool has started one
 * (ol_progress_wait_timed). */
#ifndef OL_COUNTER_H
#define OL_COUNTER_H

#include "ol_runtime.h"

/* Started handles of counters, over all the tool's sessions. */
extern int ol_counters_started;

/* Adds n whatever is started (timers, which gate themselves). */
static inline void ol_counter_add_always(uint64_t *counter, uint64_t n)
{
    if (OL_UNLIKELY(ol_rt.thread_level == MPI_THREAD_MULTIPLE))
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    else
        *counter += n;
}

/* Whether counters count now: for callers that work out what to count. */
static inline bool ol_counters_on(void)
{
    return OL_UNLIKELY(__atomic_load_n(&ol_counters_started, __ATOMIC_RELAXED) != 0);
}

static inline void ol_counter_add(uint64_t *counter, uint64_t n)
{
    if (ol_counters_on())
        ol_counter_add_always(counter, n);
}

static inline uint64_t ol_counter_read(const uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* A queue's length and its high-water mark, kept by the code that holds the
 * queue's lock: plain updates. */
typedef struct {
    unsigned length;
    unsigned high_water; /* the largest length since the last reset */
} ol_level_t;

static inline void ol_level_up(ol_level_t *level)
{
    if (++level->length > level->high_water)
        level->high_water = level->length;
}

static inline void ol_level_down(ol_level_t *level)
{
    level->length--;
}

/* A tool's reset of the high-water mark: from the current length on. */
static inline void ol_level_reset_high_water(ol_level_t *level)
{
    __atomic_store_n(&level->high_water, __atomic_load_n(&level->length, __ATOMIC_RELAXED),
                     __ATOMIC_RELAXED);
}

#endif
