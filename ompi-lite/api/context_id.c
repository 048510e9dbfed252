/* Context-id agreement, in the style of MPICH's mask allreduce.
 *
 * Every process keeps a bitmap of the ids it has free. To agree on a new
 * one, the participants AND a window of their bitmaps (2048 ids) plus one
 * word that says "I lent every id I have free there": the lowest bit set in
 * the result is free everywhere.
 *
 * Agreements of one process may be in flight together: threads creating
 * communicators at once, nonblocking MPI_Comm_idup. Each reserves the ids
 * it lends until its AND returns, so that no two take the same id; the
 * others lend only what is not reserved. A reservation covers one window
 * for one step, so an agreement that waits for processes busy elsewhere
 * (an idup whose peers first create another communicator) holds back only
 * that window: the others move on to the next window and end there.
 * At one window, only the agreement with the lowest priority value (its
 * parent's context id, then the parent's collective sequence number) may
 * lend, as in MPICH: two processes can then not keep favouring different
 * agreements. When the AND is empty, all participants move to the next
 * window (round robin); when every window in a row was full in every
 * process, the ids are exhausted. Each decision depends only on the ANDed
 * words, so all participants take it alike. */
#include "context_id.h"
#include "ol_runtime.h"
#include "tag_layout.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>

#define CID_WORDS (OL_MAX_CONTEXT_IDS / 64)
#define WINDOW_WORDS (OL_CID_WORDS - 1)
#define WINDOWS (CID_WORDS / WINDOW_WORDS)

static uint64_t free_ids[CID_WORDS]; /* bit set: the id is free here */
static uint64_t reserved[CID_WORDS]; /* bit set: an agreement in flight lent it */

/* Agreements of this process in flight (a few at most: one per thread
 * creating a communicator, one per pending idup). */
#define MAX_WAITING 64
static ol_cid_agreement_t *waiting[MAX_WAITING];
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

/* Whether a goes first at its window among this process's agreements. */
static bool is_first(const ol_cid_agreement_t *a)
{
    for (int i = 0; i < nwaiting; i++)
        if (waiting[i]->window == a->window && waiting[i]->priority < a->priority)
            return false;
    return true;
}

static void enter(ol_cid_agreement_t *a)
{
    pthread_mutex_lock(&lock);
    if (nwaiting < MAX_WAITING)
        waiting[nwaiting++] = a;
    pthread_mutex_unlock(&lock);
}

static void leave(ol_cid_agreement_t *a)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nwaiting; i++) {
        if (waiting[i] == a) {
            waiting[i] = waiting[--nwaiting];
            break;
        }
    }
    pthread_mutex_unlock(&lock);
}

/* Fills the words with what a lends at its window: the free ids that no
 * other agreement reserved, or none when one of lower priority value is at
 * the same window; the last word says whether that was every free id. */
static void lend(ol_cid_agreement_t *a)
{
    pthread_mutex_lock(&lock);
    uint64_t *free_here = &free_ids[a->window * WINDOW_WORDS];
    uint64_t *reserved_here = &reserved[a->window * WINDOW_WORDS];
    bool first = is_first(a), everything = first;
    for (int w = 0; w < WINDOW_WORDS; w++) {
        a->lent[w] = first ? free_here[w] & ~reserved_here[w] : 0;
        everything = everything && !(free_here[w] & reserved_here[w]);
        reserved_here[w] |= a->lent[w];
        a->words[w] = a->lent[w];
    }
    a->words[WINDOW_WORDS] = everything;
    pthread_mutex_unlock(&lock);
}

/* Ends a's reservation, taking the lowest id set in the ANDed window when
 * there is one (it is among those a lent); false when there is none. */
static bool take_lowest(ol_cid_agreement_t *a, uint32_t *id)
{
    pthread_mutex_lock(&lock);
    bool found = false;
    for (int w = 0; w < WINDOW_WORDS; w++) {
        int word = a->window * WINDOW_WORDS + w;
        reserved[word] &= ~a->lent[w];
        if (found || !a->words[w])
            continue;
        int bit = __builtin_ctzll(a->words[w]);
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
    a->full_windows = 0;
    enter(a);
    lend(a);
}

ol_cid_step_t ol_cid_next(ol_cid_agreement_t *a, uint32_t *context_id)
{
    if (take_lowest(a, context_id)) {
        leave(a);
        return OL_CID_AGREED;
    }
    bool full = a->words[WINDOW_WORDS];
    a->full_windows = full ? a->full_windows + 1 : 0;
    if (a->full_windows == WINDOWS) {
        leave(a);
        ol_error_detail("no communicator context id is free in all processes (%d in use)",
                        OL_MAX_CONTEXT_IDS);
        return OL_CID_EXHAUSTED;
    }
    /* The window is full, or other agreements held some of it: the next. */
    pthread_mutex_lock(&lock);
    a->window = (a->window + 1) % WINDOWS;
    pthread_mutex_unlock(&lock);
    lend(a);
    return OL_CID_AGAIN;
}

void ol_cid_abandon(ol_cid_agreement_t *a)
{
    uint32_t unused;
    memset(a->words, 0, sizeof(a->words));
    take_lowest(a, &unused);
    leave(a);
}

ol_status_t ol_cid_allocate_local(uint32_t *context_id)
{
    pthread_mutex_lock(&lock);
    for (int word = 0; word < CID_WORDS; word++) {
        uint64_t unlent = free_ids[word] & ~reserved[word];
        if (!unlent)
            continue;
        int bit = __builtin_ctzll(unlent);
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
        sched_yield(); /* let the agreements that held ids back go on */
    }
}
