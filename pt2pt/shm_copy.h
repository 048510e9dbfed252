/* A large message's copy shared by its receiver and its sender, both ranks
 * of one host, and a blocking send's message moved aside by its sender;
 * private to pt2pt/ (match.c's OL_RING_CMA messages).
 *
 * The receiver of a message sent by address copies it out of the sender's
 * memory (process_vm_readv) in chunks, which it claims one at a time from
 * the front, through a counter in a slot of the sender's segment. A sender
 * that waits meanwhile (in progress) claims chunks from the back and writes
 * them into the receiver's memory (process_vm_writev), so two cores copy at
 * once. The receiver first copies the front half, then goes on with other
 * work (the next message) and comes back to copy what the sender has not
 * claimed by then. Its receive completes once every chunk is copied, and
 * only then tells the sender (OL_RING_CMA_DONE), which frees the slot. A
 * sender that never looks costs its receiver nothing but the claims: it
 * copies every chunk itself, as without the slot.
 *
 * Why: one core's copy does not use the machine's memory bandwidth, and a
 * sender waiting in MPI_Wait or MPI_Waitall has nothing else to do.
 *
 * A blocking MPI_Send up to 64 KiB goes by address too, through a movable
 * slot: if its receiver has not begun to copy it after a few microseconds,
 * the sender copies the message to a buffer of its own, says so in the slot
 * and returns; the receiver copies from that buffer, and its
 * OL_RING_CMA_DONE frees it. Whoever changes the slot first has the
 * message. So such a send takes one copy when its receive is there, and
 * still completes without it, as programs that send both ways before they
 * receive need.
 *
 * Everything here runs under the match lock (match.c), one thread at a
 * time per process. */
#ifndef OL_PT2PT_SHM_COPY_H
#define OL_PT2PT_SHM_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Slots a rank offers at once (each a line of its segment); sends beyond
 * them are copied by their receivers alone. */
#define OL_SHM_COPY_SLOTS 64
#define OL_SHM_COPY_AREA_BYTES ((1 + OL_SHM_COPY_SLOTS) * 64)
/* No slot: the receiver copies alone. */
#define OL_SHM_COPY_NONE UINT32_MAX

/* Messages of at least min_bytes are shared, in chunks of chunk_bytes (0
 * min_bytes: none is). */
void ol_shm_copy_init(size_t min_bytes, size_t chunk_bytes);
void ol_shm_copy_finalize(void);
/* Chunks and bytes this process wrote into receivers since the start. */
void ol_shm_copy_written(uint64_t *chunks, uint64_t *bytes);

/* Sender: a slot for a message of `bytes` at `source` to world rank
 * receiver, or OL_SHM_COPY_NONE; set before the message's record is
 * published. Withdrawn when the receiver says it is done. */
uint32_t ol_shm_copy_offer(int receiver, const void *source, size_t bytes);
/* Sender: a movable slot (never shared) for such a message, or
 * OL_SHM_COPY_NONE when every slot is out. */
uint32_t ol_shm_copy_offer_movable(int receiver, const void *source, size_t bytes);
/* Sender: copies the message of a movable slot aside, unless its receiver
 * has taken it already; true when moved (the source is free again, and the
 * copy goes at ol_shm_copy_withdraw). */
bool ol_shm_copy_move(uint32_t slot);
void ol_shm_copy_withdraw(uint32_t slot);

/* Sender, in progress: copies chunks of the offers whose receivers have
 * started, if free_to_help (no work of its own waits), and says so to
 * them; returns the chunks copied. */
int ol_shm_copy_progress(bool free_to_help);
/* Whether some shared offer is out: progress need not look otherwise. */
bool ol_shm_copy_offers_out(void);

typedef enum {
    OL_SHM_COPY_DONE,        /* every byte is in place */
    OL_SHM_COPY_SENDER_BUSY, /* chunks left to the sender: ol_shm_copy_check later */
    OL_SHM_COPY_FAILED,      /* the kernel refused a chunk (errno set) */
} ol_shm_copy_state_t;

/* Receiver: copies the first `bytes` of the message at `address` in world
 * rank sender's memory to dst, sharing the copy through the sender's slot
 * (or alone for OL_SHM_COPY_NONE); then, while that says SENDER_BUSY, the
 * same arguments to ol_shm_copy_check. A chunk the sender failed to write is
 * read again (all of it, alone). */
ol_shm_copy_state_t ol_shm_copy_receive(int sender, uint32_t slot, void *dst, uint64_t address,
                                        size_t bytes);
ol_shm_copy_state_t ol_shm_copy_check(int sender, uint32_t slot, void *dst, uint64_t address,
                                      size_t bytes);

#endif
