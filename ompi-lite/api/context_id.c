/* Context-id agreement, in the style of MPICH's mask allreduce.
 *
 * Every process keeps a bitmap of the ids it has free. To agree on a new
 * one, the participants AND a window of their bitmaps (2048 ids) plus one
 * word that says "I lent my real mask": the lowest bit set in the result is
 * free everywhere. Threads of one process that create communicators at the
 * same time would otherwise both take that bit: only one agreement at a time
 * lends the real mask, the others lend zeros and retry. Of the agreements
 * waiting in a process, only the one with the lowest priority value (its
 * parent's context id, then the parent's collective sequence number) may
 * lend, as in MPICH: two processes can then not
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
#define WINDOW_WORDS (OL_CID_WORDS - 1)

static uint64_t free_ids[CID_WORDS]; /* bit set: the id is free here */
static bool mask_lent;               /* an agreement of this process holds the mask */
static int lent_window;              /* ... of this window */

/* Agreements of this process in progress, by priority (a few at most: one
 * per thread creating a communicator). */
#define MAX_WAITING 64
static uint64_t waiting[MAX_WAITING];
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

static bool is_first(uint64_t priority)
{
    for (int i = 0; i < nwaiting; i++)
        if (waiting[i] < priority)
            return false;
    return true;
}

static void enter(uint64_t priority)
{
    pthread_mutex_lock(&lock);
    if (nwaiting < MAX_WAITING)
        waiting[nwaiting++] = priority;
    pthread_mutex_unlock(&lock);
}

static void leave(uint64_t priority)
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
static bool lend_mask(int window, uint64_t priority, uint64_t *words)
{
    pthread_mutex_lock(&lock);
    bool lent = !mask_lent && is_first(priority);
    if (lent) {
        mask_lent = true;
        lent_window = window;
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

void ol_cid_begin(ol_cid_agreement_t *a, uint64_t priority)
{
    a->priority = priority;
    a->window = 0;
    enter(priority);
    a->lent = lend_mask(a->window, priority, a->words);
}

ol_cid_step_t ol_cid_next(ol_cid_agreement_t *a, uint32_t *context_id)
{
    if (take_lowest(a->window, a->words, a->lent, context_id)) {
        leave(a->priority);
        return OL_CID_AGREED;
    }
    if (a->words[OL_CID_WORDS - 1] && ++a->window == CID_WORDS / WINDOW_WORDS) {
        leave(a->priority);
        ol_error_detail("no communicator context id is free in all processes (%d in use)",
                        OL_MAX_CONTEXT_IDS);
        return OL_CID_EXHAUSTED;
    }
    /* Every mask was real, so the window is full (and the next one is
     * tried), or another agreement held some mask: try again. */
    a->lent = lend_mask(a->window, a->priority, a->words);
    return OL_CID_AGAIN;
}

void ol_cid_abandon(ol_cid_agreement_t *a)
{
    uint32_t unused;
    take_lowest(a->window, (uint64_t[WINDOW_WORDS]){0}, a->lent, &unused);
    leave(a->priority);
}

ol_status_t ol_cid_allocate_local(uint32_t *context_id)
{
    pthread_mutex_lock(&lock);
    for (int word = 0; word < CID_WORDS; word++) {
        if (!free_ids[word] || (mask_lent && word / WINDOW_WORDS == lent_window))
            continue;
        int bit = __builtin_ctzll(free_ids[word]);
        free_ids[word] &= ~((uint64_t)1 << bit);
        *context_id = (uint32_t)(word * 64 + bit);
        pthread_mutex_unlock(&lock);
        return OL_OK;
    }
    pthread_mutex_unlock(&lock);
    ol_error_detail("no communicator context id is free in this process (%d in use)",
                    OL_MAX_CONTEXT_IDS);
    return MPI_ERR_INTERN;
}

ol_status_t ol_cid_allocate(ol_cid_and_t and_all, void *ctx, uint64_t priority,
                            uint32_t *context_id)
{
    ol_cid_agreement_t a;
    ol_cid_begin(&a, priority);
    for (;;) {
        ol_status_t rc = and_all(a.words, OL_CID_WORDS, ctx);
        if (rc != OL_OK) {
            ol_cid_abandon(&a);
            return rc;
        }
        ol_cid_step_t step = ol_cid_next(&a, context_id);
        if (step != OL_CID_AGAIN)
            return step == OL_CID_AGREED ? OL_OK : MPI_ERR_INTERN;
        if (!a.lent)
            sched_yield(); /* another agreement holds the mask */
    }
}
