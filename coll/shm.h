/* The shared-memory path of blocking collectives on communicators whose
 * members all run on this host (private to coll/).
 *
 * shm_segment.c owns the per-communicator segment (creation, the one-time
 * agreement, release), its layout and the waiting; shm_coll.c runs the
 * collectives on it. See README.md, "The shared-memory path".
 *
 * Layout of a segment of p ranks, each part aligned to 64 bytes:
 *
 *   header      one line: the count of ranks asleep on a futex
 *   control[p]  one line per rank: its arrival and "slice reduced" words
 *   slot[p][D]  per rank OL_SHM_DEPTH data slots of slot_bytes, one per call in turn:
 *               a 16-byte header (the length of the data, then the word that says
 *               the data is there), then the data
 *   result[D]   shared slots, one per call in turn: the vector of sliced reductions
 *
 * Every word grows by one per call on the path (the call's sequence number
 * s, the same on every rank), so no flag is ever reset. */
#ifndef OL_COLL_SHM_H
#define OL_COLL_SHM_H

#include "coll.h"
#include "ol_params.h"

#include <stdatomic.h>

typedef struct {
    _Atomic uint32_t arrived; /* s: this rank is in call s, its data of call s (if any) is in
                                 its slot */
    _Atomic uint32_t reduced; /* s: its slice of the result of call s is in the result slot */
} ol_shm_control_t;

/* Slots per rank: call s uses slot s % OL_SHM_DEPTH, so that a root may
 * run OL_SHM_DEPTH - 1 calls ahead of the slowest rank (shm_segment.c). */
enum { OL_SHM_DEPTH = 16 };

typedef struct ol_coll_shm ol_coll_shm_t;

/* The path's parameters (shm_segment.c). */
extern int ol_coll_shm_enabled;   /* COLL_SHM */
extern int ol_coll_shm_max_bytes; /* COLL_SHM_MAX_BYTES: the size of a slot */
extern int ol_coll_shm_slice_bytes; /* COLL_SHM_SLICE_BYTES: reductions sliced from here on */
extern int ol_coll_shm_pieces_bytes; /* COLL_SHM_PIECES_BYTES: longer bcasts in pieces up to it */
extern int ol_coll_shm_reduce_pieces_bytes; /* COLL_SHM_REDUCE_PIECES_BYTES: reduces alike */
extern int ol_coll_shm_root_alone_bytes; /* COLL_SHM_ROOT_ALONE_BYTES: -1 no limit */

/* The communicator's segment, set up on first use (a collective step: all
 * members call it on the same call); *shm is NULL when the communicator
 * cannot have one (members on other hosts, too many, no memory for it),
 * which every member then sees alike for the life of the communicator, or
 * while the segment is being set up (the agreement's own collectives). */
ol_status_t ol_shm_segment(ol_comm_t *comm, ol_coll_shm_t **shm);

/* The next call's sequence number. */
uint32_t ol_shm_next_call(ol_coll_shm_t *shm);
ol_shm_control_t *ol_shm_control(ol_coll_shm_t *shm, int rank);
/* Rank's data slot for call s, and the shared result slot for call s. */
char *ol_shm_slot(ol_coll_shm_t *shm, int rank, uint32_t s);
/* The length in bytes of what rank put in its slot for call s: written
 * before it arrives, read after. */
uint64_t *ol_shm_slot_length(ol_coll_shm_t *shm, int rank, uint32_t s);
char *ol_shm_result(ol_coll_shm_t *shm, uint32_t s);

/* This rank is in call s, with no data (ol_shm_arrive) or with its data of
 * call s in its slot (ol_shm_arrive_with_data); and the wait for another
 * rank's data. A data reader waits on the word in the slot's header, where
 * it finds the data's first 48 bytes too, not in a line of its own. */
void ol_shm_arrive(ol_coll_shm_t *shm, int me, uint32_t s);
void ol_shm_arrive_with_data(ol_coll_shm_t *shm, int me, uint32_t s);
void ol_shm_wait_data(ol_coll_shm_t *shm, int rank, uint32_t s);

/* Sets *word to s (release) and wakes ranks asleep on it. */
void ol_shm_publish(ol_coll_shm_t *shm, _Atomic uint32_t *word, uint32_t s);
/* Returns once *word has reached s (acquire), progressing this rank's
 * other operations meanwhile. */
void ol_shm_wait(ol_coll_shm_t *shm, _Atomic uint32_t *word, uint32_t s);
/* Returns once every rank has arrived at call s; once every rank's data of
 * call s is in its slot. */
void ol_shm_wait_all_arrived(ol_coll_shm_t *shm, uint32_t s);
void ol_shm_wait_all_data(ol_coll_shm_t *shm, uint32_t s);
/* Returns once this rank may write its slots of call s: see shm_segment.c. */
void ol_shm_wait_slots_free(ol_coll_shm_t *shm, uint32_t s);

/* Whether this call takes the path (shm_coll.c): decided alike on every
 * member, may set up the segment; and running it. */
ol_status_t ol_coll_shm_applies(const ol_coll_args_t *a, bool *applies);
/* The info log's reason for a call that takes the path (ol_coll_why). */
const char *ol_coll_shm_why(const ol_coll_args_t *a);
ol_status_t ol_coll_shm_run(const ol_coll_args_t *a);

/* The path's parameters, loaded and printed with the collectives' own. */
extern const ol_param_t ol_coll_shm_params[];
extern const int ol_coll_shm_nparams;

#endif
