/* Collectives: the interface the API layer calls. Each collective has a
 * selection function that picks an algorithm (one file each, same
 * signature); algorithms talk through pt2pt in the collective tag space. */
#ifndef OL_COLL_H
#define OL_COLL_H

#include "ol_comm.h"

/* Tags inside the collective tag space: one range per collective, so that
 * traffic of different collectives on one communicator never matches. */
enum {
    OL_COLL_TAG_BARRIER = 0x100,
};

ol_status_t ol_coll_barrier(ol_comm_t *comm);

#endif
