/* Context-id agreement, in the style of MPICH's mask allreduce.
 *
 * Every process keeps a bitmap of the ids it has free. To agree on a new
 * one, the participants AND a window of their bitmaps (2048 ids) plus one
 * word that says "I lent my real mask": the lowest bit set in the result is
 * free everywhere. Threads of one process that create communicators at the
 * same time would otherwise both take that bit: only one agreement at a time
 * lends the real mask, the others lend zeros and retry. Of the agreements
 * waiting in a process, only the one with the lowest priority value (its
 * parent's context id) may lend, as in MPICH: two processes can then not
 * keep favouring different agreements, and every agreement ends. When every
 * lender was real and the window is full, all move on to the next window;
 * the decision depends only on the ANDed result, so all participants agree. */
#include "context_id.h"
#include "ol_runtime.h"
#include "tag_layout.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

#define CID_WORDS (OL_MAX_CONTEXT_IDS / 64)
#define WINDOW_WORDS 32

static uint64_t free_ids[CID_WORDS]; /* bit set: the id is free here */
static bool mask_lent;               /* an agreement of this process holds the mask */

/* Agreements of this process in progress, by priority (a few at most: one
 * per thread creating a communicator). */
#define MAX_WAITING 64
static uint32_t waiting[MAX_WAITING];
static int nwaiting;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void ol_cid_init(void)
{
    memset(free_ids, 0xff, sizeof(free_ids));
    free_ids[0] &= ~(uint64_t)3; /* 0: MPI_COMM_WORLD, 1: MPI_COMM_SELF */
    free_ids[OL_CONTEXT_ID_PRIVATE / 64] &= ~((uint64_t)1 << (OL_CONTEXT_ID_PRIVATE % 64));
}

void ol_cid_release(uint32_t id)
{
    pthread_mutex_lock(&lock);
    free_ids[id / 64] |= (uint64_t)1 << (id % 64);
    pthread_mutex_unlock(&lock);
}

static bool is_first(uint32_t priority)
{
    for (int i = 0; i < nwaiting; i++)
        if (waiting[i] < priority)
            return false;
    return true;
}

static void enter(uint32_t priority)
{
    pthread_mutex_lock(&lock);
    if (nwaiting < MAX_WAITING)
        waiting[nwaiting++] = priority;
    pthread_mutex_unlock(&lock);
}

static void leave(uint32_t priority)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nwaiting; i++) {
        if (waiting[i] == priority) {
            waiting[i] = waiting[--nwaiting];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Fills words[0..WINDOW_WORDS) with the window and words[WINDOW_WORDS]
 * with 1 when this agreement may lend the real mask, zeros otherwise. */
static bool lend_mask(int window, uint32_t priority, uint64_t *words)
{
    pthread_mutex_lock(&lock);
    bool lent = !mask_lent && is_first(priority);
    if (lent) {
        mask_lent = true;
        memcpy(words, &free_ids[window * WINDOW_WORDS], WINDOW_WORDS * sizeof(uint64_t));
    } else {
        memset(words, 0, WINDOW_WORDS * sizeof(uint64_t));
    }
    words[WINDOW_WORDS] = lent;
    pthread_mutex_unlock(&lock);
    return lent;
}

/* Takes the lowest id set in the ANDed window; false when there is none. */
static bool take_lowest(int window, const uint64_t *words, bool lent, uint32_t *id)
{
    pthread_mutex_lock(&lock);
    if (lent)
        mask_lent = false;
    bool found = false;
    for (int w = 0; w < WINDOW_WORDS && !found; w++) {
        if (!words[w])
            continue;
        int bit = __builtin_ctzll(words[w]);
        int word = window * WINDOW_WORDS + w;
        free_ids[word] &= ~((uint64_t)1 << bit);
        *id = (uint32_t)(word * 64 + bit);
        found = true;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

ol_status_t ol_cid_allocate(ol_cid_and_t and_all, void *ctx, uint32_t priority,
                            uint32_t *context_id)
{
    uint64_t words[WINDOW_WORDS + 1];
    int window = 0;
    ol_status_t rc = MPI_ERR_INTERN;
    enter(priority);
    while (window < CID_WORDS / WINDOW_WORDS) {
        bool lent = lend_mask(window, priority, words);
        rc = and_all(words, WINDOW_WORDS + 1, ctx);
        if (rc != OL_OK) {
            take_lowest(window, (uint64_t[WINDOW_WORDS]){0}, lent, context_id);
            break;
        }
        if (take_lowest(window, words, lent, context_id))
            break;
        if (words[WINDOW_WORDS]) /* every mask was real: this window is full */
            window++;
        else
            sched_yield(); /* another agreement held some mask: try again */
    }
    leave(priority);
    if (window == CID_WORDS / WINDOW_WORDS) {
        ol_error_detail("no communicator context id is free in all processes (%d in use)",
                        OL_MAX_CONTEXT_IDS);
        rc = MPI_ERR_INTERN;
    }
    return rc;
}
