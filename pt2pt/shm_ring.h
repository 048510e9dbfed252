/* Shared-memory rings between the ranks of one host, private to pt2pt/:
 * the transport of match.c's own matching (see there for what travels).
 *
 * Each rank owns one segment in /dev/shm that holds the slots of the copies
 * it shares with its receivers (shm_copy.h) and a ring from every rank of
 * the job (itself included) to it. A ring is single-producer,
 * single-consumer: records of a 40-byte header and a payload, each starting
 * on a cache line. The producer writes the payload and the header, then the
 * header's seal (the record's position + 1) last; the consumer polls the
 * seal at its position, so one cache line carries both the signal and a
 * small message. Old payload bytes must never pass for a seal on a later
 * lap: the producer marks a record one of whose lines begins with a word
 * that could, and every record of up to 8 KiB, and the consumer clears
 * the first word of every line of a marked record (only: see shm_ring.c).
 *
 * Set-up is collective over the job, at MPI_Init: every rank creates its
 * segment under a name with a secret random part (ol_shm_file.h: O_EXCL,
 * mode 0600) and shares the name through PMIx ("" if it made none), a
 * fence, every rank maps every peer's segment, after checking the file
 * (this user's, 0600, the size expected), and if it mapped them all, writes
 * its pid in its own and says so in the ring from it in every segment, a
 * fence, every rank unlinks its own file, so a crash leaves nothing in
 * /dev/shm. A rank uses the rings only if every rank said so in its own
 * segment: a rank that made no segment, or found a peer's unfit, said so
 * nowhere, so all ranks agree without a further message. Then each rank
 * tries to read a word of every peer's memory and writes the answer in the
 * ring from that peer. */
#ifndef OL_PT2PT_SHM_RING_H
#define OL_PT2PT_SHM_RING_H

#include "ol_common.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

typedef enum {
    OL_RING_INLINE = 1, /* the message's bytes follow the header */
    OL_RING_ANNOUNCE,   /* the bytes come over UCX, tagged with `token` */
    OL_RING_WRAP,       /* internal: the rest of the lap is empty */
    OL_RING_CMA,        /* the receiver copies the bytes out of the sender's memory; an
                           ol_ring_cma_ref_t follows the header */
    OL_RING_CMA_DONE,   /* back to the sender of OL_RING_CMA: its receiver is done with
                           the bytes; `token` is the ref's request */
    OL_RING_CANCEL,     /* the sender asks to take back its message `seq` if no receive
                           has it yet and no probe reported it; `token` is the sender's,
                           handed back in: */
    OL_RING_CANCEL_REPLY, /* the answer; `bytes` is 1 if the message was taken back */
} ol_ring_kind_t;

/* What a record says of its message. */
typedef struct {
    uint64_t tag;   /* the message's tag, in the UCX tag layout */
    uint64_t token; /* OL_RING_ANNOUNCE: the UCX tag of its data */
    uint64_t bytes; /* the message's size */
    uint32_t kind;  /* ol_ring_kind_t */
    uint32_t seq;   /* a message's number among those from its sender to this rank,
                       from 1 (which MPI_Cancel names it by), 0 for other records */
} ol_ring_envelope_t;

/* Where the bytes of an OL_RING_CMA message are in its sender. */
typedef struct {
    uint64_t address; /* in the sender's memory */
    uint64_t request; /* the sender's, handed back in OL_RING_CMA_DONE */
    uint32_t copy_slot; /* the sender's slot for sharing the copy (shm_copy.h) */
    uint32_t unused;
} ol_ring_cma_ref_t;

/* Records of up to this many bytes of payload are cleared by their
 * consumer in any case (shm_ring.c says why). */
#define OL_RING_CLEARED_BYTES 8192

/* Whether a record is a message (a receive takes it), not a control
 * record that progress takes (a send's end, a cancel) nor a wrap. */
static inline bool ol_ring_is_message(const ol_ring_envelope_t *envelope)
{
    return envelope->kind == OL_RING_INLINE || envelope->kind == OL_RING_ANNOUNCE ||
           envelope->kind == OL_RING_CMA;
}

/* The bytes of a record after its header. */
static inline size_t ol_ring_payload_bytes(const ol_ring_envelope_t *envelope)
{
    return envelope->kind == OL_RING_INLINE ? envelope->bytes
           : envelope->kind == OL_RING_CMA  ? sizeof(ol_ring_cma_ref_t)
                                            : 0;
}

/* Maps the rings of a job whose ranks all run on this host, ring_bytes per
 * pair (a power of two); every rank calls it, offering a segment or not.
 * OL_OK with *usable false: some rank did not offer one, offered another
 * size, or found a segment unfit to map (it warns, naming the file), and
 * the job keeps UCX (every rank sees that alike). An error: a fence or the
 * sharing of the names failed, and the job cannot go on. */
ol_status_t ol_ring_init(size_t ring_bytes, bool offer, bool *usable);
void ol_ring_finalize(void);

/* The largest payload a record may carry. */
size_t ol_ring_max_payload(void);

/* Producer side, one thread at a time per peer: room for a record with
 * `bytes` of payload in the ring to world rank `peer` (NULL: full), then
 * its publication. */
void *ol_ring_reserve(int peer, size_t bytes);
/* Returns whether the peer may be asleep (ol_ring_sleep_begin): the caller
 * wakes it then. */
bool ol_ring_publish(int peer, const ol_ring_envelope_t *envelope);

/* Whether a record with `bytes` of payload fits in the ring to peer now. */
bool ol_ring_has_room(int peer, size_t bytes);

/* Consumer side, one thread at a time: the oldest record from world rank
 * `peer` (NULL: none), and its end; true when the producer sleeps until
 * the room that end made (ol_ring_want_room): the caller wakes it. */
const ol_ring_envelope_t *ol_ring_peek(int peer, const void **payload);
bool ol_ring_consume(int peer);
/* True when a record waits in any ring to this rank; past_scanned: one
 * after the messages ol_ring_scan passed. */
bool ol_ring_any_pending(bool past_scanned);
/* Looks at the records of the ring from world rank peer after the oldest,
 * from where the last scan stopped, up to the first that is no message:
 * true when there is one (a control record waits). *messages: how many
 * messages it passed that no scan had passed before. */
bool ol_ring_scan(int peer, unsigned *messages);
/* Whether the oldest record from peer is a message a scan passed. */
bool ol_ring_oldest_scanned(int peer);

/* Whether world rank peer has found that it can read this process's
 * memory (process_vm_readv, which a kernel or container may forbid); false
 * until it has looked, at the end of ol_ring_init. */
bool ol_ring_peer_reads_here(int peer);
/* Whether this rank found that it can read world rank peer's memory (and
 * so write it: the kernel asks the same of both). */
bool ol_ring_reads_peer(int peer);
/* Copies `bytes` at `address` in world rank peer's memory to dst, or from
 * src to there; false (errno set) when the kernel refuses or moves less. */
bool ol_ring_read_peer(int peer, void *dst, uint64_t address, size_t bytes);
/* Reads `count` pieces of world rank peer's memory in one call, remote[i]
 * into local[i]: one kernel entry for all; false when less than all moved
 * (then what landed is undefined). */
bool ol_ring_read_peer_pieces(int peer, const struct iovec *local, const struct iovec *remote,
                              int count);
/* The fastest of a few reads of `bytes` through the kernel
 * (process_vm_readv, of this process itself), in seconds: what a receiver
 * pays to copy a message out of its sender; a large number where the
 * kernel refuses. */
double ol_ring_kernel_read_seconds(size_t bytes);
bool ol_ring_write_peer(int peer, uint64_t address, const void *src, size_t bytes);

/* The OL_SHM_COPY_AREA_BYTES of world rank's segment that its shared
 * copies use (shm_copy.h); zero at first. */
void *ol_ring_copy_area(int rank);

/* Counts a wake-up message sent to world rank peer (in its segment), and
 * those sent to this rank: it takes them all before UCX stops. */
void ol_ring_count_wake(int peer);
uint64_t ol_ring_wakes_sent_here(void);

/* A rank about to sleep says so; senders that publish afterwards see it,
 * or the rank sees their records in ol_ring_any_pending. False: it cannot
 * be sure of that now (a failed membarrier), and must not sleep; it still
 * calls ol_ring_sleep_end.
 * A rank whose record of `bytes` of payload waits for room in the ring to
 * peer asks that consumer, before ol_ring_sleep_begin, to wake it once the
 * record fits (ol_ring_want_room), and after it looks at the room once
 * more (ol_ring_has_room): a consumer that made the room before the look
 * is seen there, one that makes it after sees the wish. */
void ol_ring_want_room(int peer, size_t bytes);
bool ol_ring_sleep_begin(void);
void ol_ring_sleep_end(void);

#endif
