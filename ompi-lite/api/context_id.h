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
 * of one process (the parent communicator's context id: lower goes first),
 * so that threads creating communicators at once cannot starve each other. */
ol_status_t ol_cid_allocate(ol_cid_and_t and_all, void *ctx, uint32_t priority,
                            uint32_t *context_id);
void ol_cid_release(uint32_t context_id);
/* Marks the ids of the predefined communicators as used. */
void ol_cid_init(void);

#endif
