/* What bcast.c lends its algorithms (bcast_*.c). */
#ifndef OL_COLL_BCAST_UTIL_H
#define OL_COLL_BCAST_UTIL_H

#include "coll_select.h"

/* BCAST_SEGMENT_SIZE: bytes per segment of the pipelined chain. */
int ol_coll_bcast_segment_size(void);

/* The scatter-allgather and pipelined broadcasts cut the message at byte
 * offsets that must be the same on every rank, whatever datatype each rank
 * passed: *bytes is a's message seen as MPI_BYTE (a packed copy where the
 * type is not contiguous, filled by the root), and
 * ol_coll_bcast_bytes_done unpacks it on the others at the end. */
ol_status_t ol_coll_bcast_bytes(ol_sched_t *s, const ol_coll_args_t *a, ol_coll_args_t *bytes);
ol_status_t ol_coll_bcast_bytes_done(ol_sched_t *s, const ol_coll_args_t *a,
                                     const ol_coll_args_t *bytes);

#endif
