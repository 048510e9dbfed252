/* Context ids: agreement on a new communicator's id without a central
 * server (private to api/). */
#ifndef OL_API_CONTEXT_ID_H
#define OL_API_CONTEXT_ID_H

#include "ol_comm.h"

/* ANDs n words across every process taking part in the agreement (all of
 * them call it with the same n), leaving the result in words. */
typedef ol_status_t (*ol_cid_and_t)(uint64_t *words, int n, void *ctx);

/* Agrees on the lowest context id free in every participant; and_all
 * defines who the participants are. priority orders concurrent agreements
 * of one process (the same in every participant; lower goes first), so
 * that threads creating communicators at once cannot keep taking the ids
 * from each other. */
ol_status_t ol_cid_allocate(ol_cid_and_t and_all, void *ctx, uint64_t priority,
                            uint32_t *context_id);

/* An id for a communicator of this process alone: no agreement, and none
 * of the ids that agreements in flight have lent. */
ol_status_t ol_cid_allocate_local(uint32_t *context_id);

/* The same agreement step by step, for nonblocking calls (MPI_Comm_idup):
 * begin, then until agreed, AND `words` across the participants and call
 * next. Every participant takes the same steps, as each depends only on
 * the ANDed words. */
enum { OL_CID_WORDS = 33 };
typedef struct {
    uint64_t words[OL_CID_WORDS];
    uint64_t lent[OL_CID_WORDS - 1]; /* the ids of the window this process lent */
    uint64_t priority;
    int window;
    int full_windows; /* windows in a row found full everywhere */
} ol_cid_agreement_t;
typedef enum { OL_CID_AGREED, OL_CID_AGAIN, OL_CID_EXHAUSTED } ol_cid_step_t;

void ol_cid_begin(ol_cid_agreement_t *a, uint64_t priority);
/* After the AND: the id (OL_CID_AGREED), another AND to do, or an error
 * (OL_CID_EXHAUSTED, detail set). */
ol_cid_step_t ol_cid_next(ol_cid_agreement_t *a, uint32_t *context_id);
/* The AND failed: the agreement ends without an id. */
void ol_cid_abandon(ol_cid_agreement_t *a);
void ol_cid_release(uint32_t context_id);
/* Marks the ids of the predefined communicators as used. */
void ol_cid_init(void);

#endif
