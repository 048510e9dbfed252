/* What the files of rma/ share: a window's state and the messages of the
 * protocol (README.md explains both). Private to rma/. */
#ifndef OL_RMA_INTERNAL_H
#define OL_RMA_INTERNAL_H

#include "pt2pt.h"
#include "rma.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

/* Every message of a window travels under this tag on its private
 * communicator, so that messages from one process are handled in the
 * order it sent them (MPI's non-overtaking rule). */
#define OL_RMA_TAG 0

/* A get of more bytes has its data sent apart from the reply messages: the
 * target sends it from its window, the origin receives it straight into
 * the result buffer (one message each way, no copies on either side),
 * under a tag of its own (ol_rma_data_tag). README.md, "The protocol". */
#define OL_RMA_GET_APART_BYTES 8192

/* The one rule both sides follow: a get of `bytes` has its data apart. */
static inline bool ol_rma_get_apart(uint64_t bytes)
{
    return bytes > OL_RMA_GET_APART_BYTES;
}

/* The tag of a get's data sent apart: one per get in flight, so that an
 * error answered instead of the data leaves no receive for another's. */
static inline int ol_rma_data_tag(uint64_t id)
{
    enum { TAGS = (1 << 23) - 2 }; /* 1 .. MPI_TAG_UB, never OL_RMA_TAG */
    return 1 + (int)(id % TAGS);
}

typedef enum {
    MSG_PUT,
    MSG_GET,
    MSG_ACCUMULATE,
    MSG_GET_ACCUMULATE,
    MSG_COMPARE_AND_SWAP,
    MSG_LOCK,     /* answered when granted */
    MSG_UNLOCK,   /* answered once released: the origin's operations are done */
    MSG_FLUSH,    /* answered: the origin's operations before it are done */
    MSG_POST,     /* PSCW: the target exposes its memory to the receiver */
    MSG_COMPLETE, /* PSCW: the origin's access epoch ended */
    MSG_REPLY,    /* data of a get, or the answer to a lock, unlock, flush */
    MSG_BUNDLE,   /* messages in a row, each its length (8 bytes) and itself,
                     padded to 8 bytes: handled one after the other */
    MSG_FENCE,    /* a fence of two processes: the sender's operations before it
                     are done (sync.c) */
} ol_rma_msg_kind_t;

/* A message: this header, then nblocks blocks, then the payload. */
typedef struct {
    uint8_t kind;      /* ol_rma_msg_kind_t */
    uint8_t exclusive; /* MSG_LOCK */
    uint16_t unused;
    int32_t error;     /* MSG_REPLY: an MPI error class found at the target */
    uint64_t op;       /* accumulates: the predefined MPI_Op's handle value */
    uint64_t basic;    /* accumulates: the predefined datatype all data is made of */
    uint64_t id;       /* what a reply answers; 0: no reply wanted */
    int64_t disp;      /* bytes from the window's base (an address: dynamic windows) */
    uint64_t nblocks;  /* target blocks that follow; 0: one block of `bytes` at disp */
    uint64_t bytes;    /* bytes addressed at the target */
} ol_rma_msg_t;

_Static_assert(sizeof(ol_rma_msg_t) % 8 == 0, "a bundle keeps its messages 8-byte aligned");

/* Small messages to one peer waiting to leave as one (protocol.c). */
typedef struct {
    char *buf; /* room for a MSG_BUNDLE header, then the messages */
    size_t bytes, capacity;
} ol_rma_bundle_t;

/* One contiguous piece of the target data, from disp. */
typedef struct {
    int64_t offset;
    uint64_t length;
} ol_rma_block_t;

/* What a process knows of another's window memory. */
typedef struct {
    MPI_Aint size;
    MPI_Aint disp_unit;
    void *shared_base; /* shared windows: where it is mapped here */
} ol_rma_peer_t;

/* Memory attached to a dynamic window. */
typedef struct ol_rma_region {
    uintptr_t base;
    size_t size;
    struct ol_rma_region *next;
} ol_rma_region_t;

/* An answer this process waits for. */
typedef struct ol_rma_pending {
    uint64_t id;
    int target;
    bool data;              /* a get's data, else the answer to a lock/unlock/flush */
    void *buf;              /* where data goes */
    MPI_Count count;
    ol_datatype_t *dt;      /* retained */
    ol_request_t *request;  /* completed on arrival; NULL: none */
    ol_request_t *data_apart; /* the receive of a get's data sent apart; NULL: none */
    volatile bool done;
    ol_status_t error;
    struct ol_rma_pending *next;
} ol_rma_pending_t;

/* A message on its way in or out, with the memory it owns. */
typedef struct ol_rma_transfer {
    ol_request_t *request;
    void *buf;
    size_t bytes;
    int peer;
    struct ol_rma_transfer *next;
} ol_rma_transfer_t;

typedef struct ol_rma_waiter {
    int origin;
    bool exclusive;
    uint64_t id;
    struct ol_rma_waiter *next;
} ol_rma_waiter_t;

typedef struct ol_rma_slot ol_rma_slot_t; /* direct.c */
struct ol_rma_ucx;                        /* ucx.c */

typedef struct ol_rma_state {
    ol_win_t *win;
    struct ol_rma_state *next_live; /* the windows whose messages progress handles */
    int size;                       /* of the window's group */
    ol_rma_peer_t *peers;           /* size entries; NULL for dynamic windows */
    void *memory;                   /* what the window allocated (allocate) */
    void *segment;                  /* shared windows: the mapping */
    size_t segment_bytes;
    ol_rma_region_t *regions;       /* dynamic windows */

    /* ---- direct windows (all on one host: direct.c) ---- */
    bool direct;
    ol_rma_slot_t *slots;           /* in the control segment, one per process */
    _Atomic uint32_t *post_words;
    size_t control_bytes;           /* at the start of `segment` (all of it for
                                       MPI_Win_create windows) */
    pid_t *pids;                    /* MPI_Win_create windows: reached by cross-memory attach */
    void **remote_bases;
    void **probe_addresses;

    /* ---- windows whose puts, gets and atomics UCX carries (ucx.c) ---- */
    struct ol_rma_ucx *ucx;         /* NULL: everything is messages */
    bool on_device;                 /* some process's memory is device memory */
    bool ordered_accumulates;       /* accumulate_ordering is not "none" */
    bool cpu_atomic_accumulates;    /* origins use UCX's atomics: apply integer
                                       accumulates with the CPU's atomics */

    /* ---- as an origin ---- */
    uint64_t next_id;
    ol_rma_pending_t *pending, *pending_tail;
    int *data_pending;              /* per target: gets not yet answered */
    int *apart_pending;             /* per target: gets whose data apart is not yet in */
    int ndata_apart;                /* all of them */
    bool *touched;                  /* per target: operations without an answer of their
                                       own since it last answered a flush */
    ol_rma_bundle_t *bundles;       /* per target: what waits to leave (protocol.c) */
    int nbundled;                   /* targets whose bundle holds messages */
    ol_status_t deferred_error;     /* found at a target, for the next synchronisation */
    bool fence_epoch;               /* between fences */
    uint64_t fences_by_marker;      /* fences of a two-process window so far (sync.c) */
    volatile uint64_t fence_markers; /* MSG_FENCE received from the other process */
    bool messages_unsettled;        /* such a fence passed before the other process
                                       handled this one's messages: UCX's next
                                       operation waits for them (ucx.c) */
    size_t largest_sent;            /* the largest message of an operation since the
                                       last such fence (protocol.c, sync.c) */
    int *access;                    /* PSCW: the ranks of the access epoch */
    int naccess;                    /* -1: no access epoch */
    int *lock_type;                 /* per target: 0, MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE */
    bool *lock_nocheck;             /* per target: locked with MPI_MODE_NOCHECK */
    bool lock_all;
    volatile int *posts;            /* per target: its MPI_Win_post calls not yet started on */

    /* ---- as a target ---- */
    int exclusive_holder;           /* -1: none */
    int shared_holders;
    ol_rma_waiter_t *waiters, *waiters_tail;
    bool exposed;                   /* PSCW: between post and wait */
    int exposure_size;
    volatile int completes;         /* MSG_COMPLETE received, not yet waited for */
    ol_status_t *origin_error;      /* per origin: reported with its next answer */
    ol_rma_transfer_t *incoming, *incoming_tail; /* handled in arrival order */
    ol_rma_transfer_t *outgoing;
} ol_rma_state_t;

/* Everything of rma/ runs under this lock (recursive: a send may progress).
 * Waits release it, so that other threads' RMA calls go on meanwhile. */
void ol_rma_lock_state(void);
void ol_rma_unlock_state(void);

/* protocol.c: messages. */
void ol_rma_window_live(ol_rma_state_t *s);
void ol_rma_window_dead(ol_rma_state_t *s);
/* Sends a message (hdr, blocks, payload) to peer; the copy made is the
 * message's, so the caller's buffers are free on return. */
ol_status_t ol_rma_send(ol_rma_state_t *s, int peer, const ol_rma_msg_t *hdr,
                        const ol_rma_block_t *blocks, const void *payload, size_t payload_bytes);
/* The same in two steps, for a payload packed straight into the message:
 * a message (*bytes in all) of hdr, blocks and room for payload_bytes at
 * *payload; then its sending, which takes it (freed once sent, or at once
 * on failure). */
char *ol_rma_message_new(const ol_rma_msg_t *hdr, const ol_rma_block_t *blocks,
                         size_t payload_bytes, char **payload, size_t *bytes);
ol_status_t ol_rma_message_send(ol_rma_state_t *s, int peer, char *msg, size_t bytes);
/* The same for the message of an operation or of an answer: a small one
 * waits to leave with the next message to peer, or with the next progress. */
ol_status_t ol_rma_message_send_later(ol_rma_state_t *s, int peer, char *msg, size_t bytes);
/* A small message (at most 16 KiB) built where it waits, in peer's
 * bundle: hdr and blocks written, *payload where the caller writes its
 * payload_bytes, *bytes its size; it joins the bundle with
 * ol_rma_message_join_bundle, before anything else is sent to peer (or
 * is dropped by not joining). NULL for a larger message, or when out of
 * memory: ol_rma_message_new then. */
char *ol_rma_message_in_bundle(ol_rma_state_t *s, int peer, const ol_rma_msg_t *hdr,
                               const ol_rma_block_t *blocks, size_t payload_bytes,
                               char **payload, size_t *bytes);
void ol_rma_message_join_bundle(ol_rma_state_t *s, int peer, size_t bytes);
/* Sends what waits in the bundles. Lock held. */
void ol_rma_send_bundles(ol_rma_state_t *s);
/* Frees the bundles; what still waits in one (a window freed inside an
 * epoch, which MPI forbids) is dropped. */
void ol_rma_bundles_free(ol_rma_state_t *s);
/* A new answer to wait for; data: the reply carries count of dt into buf. */
ol_rma_pending_t *ol_rma_expect(ol_rma_state_t *s, int target, bool data, void *buf,
                                MPI_Count count, ol_datatype_t *dt, ol_request_t *request);
/* Forgets an answer whose operation could not be sent. */
void ol_rma_unexpect(ol_rma_state_t *s, ol_rma_pending_t *p);
/* Posts the receive of a get's data sent apart (its bytes are more than
 * OL_RMA_GET_APART_BYTES), before the get's message leaves; on failure p
 * is forgotten. */
ol_status_t ol_rma_receive_apart(ol_rma_state_t *s, ol_rma_pending_t *p);
/* Waits (lock released) until the answer came; returns its error and
 * forgets it. */
ol_status_t ol_rma_await(ol_rma_state_t *s, ol_rma_pending_t *p);
/* Waits (lock released) until cond(arg) holds. */
void ol_rma_wait_until(bool (*cond)(void *arg), void *arg);
/* Waits until every message this process sent on the window is out. */
void ol_rma_drain_outgoing(ol_rma_state_t *s);

/* direct.c */
bool ol_rma_direct_wanted(void);
size_t ol_rma_control_bytes(int size);
void ol_rma_direct_attach_control(ol_rma_state_t *s, void *control);
bool ol_rma_direct_can_reach(ol_rma_state_t *s, int target);
void ol_rma_direct_lock(ol_rma_state_t *s, int target, bool exclusive);
void ol_rma_direct_unlock(ol_rma_state_t *s, int target, bool exclusive);
void ol_rma_direct_acc_begin(ol_rma_state_t *s, int target);
void ol_rma_direct_acc_end(ol_rma_state_t *s, int target);
void ol_rma_direct_post(ol_rma_state_t *s, int origin);
void ol_rma_direct_start(ol_rma_state_t *s, int target);
void ol_rma_direct_complete(ol_rma_state_t *s, int target);
bool ol_rma_direct_take_completes(ol_rma_state_t *s, int n, bool wait);
ol_status_t ol_rma_direct_read(ol_rma_state_t *s, int target, int64_t offset, void *dst,
                               size_t bytes);
ol_status_t ol_rma_direct_write(ol_rma_state_t *s, int target, int64_t offset, const void *src,
                                size_t bytes);

/* ucx.c (RMA_UCX is read by direct.c, with the other parameters) */
bool ol_rma_ucx_wanted(void);
bool ol_rma_ucx_atomics_wanted(void);
/* Collective: registers this process's memory (base, size) and takes
 * everyone's remote key, if every process wants UCX (and can); else leaves
 * s->ucx NULL, everyone agreeing. UCX's atomics too where every process
 * wants them (RMA_UCX_ATOMICS). */
ol_status_t ol_rma_ucx_setup(ol_rma_state_t *s, void *base, size_t size, bool wanted,
                             ol_comm_t *comm);
void ol_rma_ucx_free(ol_rma_state_t *s);
/* Issues op through UCX where UCX can do it (*done), else leaves it to the
 * messages after ordering it behind earlier UCX accumulates. blocks: the
 * target layout from disp. request: completed once op is complete at the
 * origin. Lock held. */
ol_status_t ol_rma_ucx_issue(ol_rma_state_t *s, const ol_rma_op_t *op,
                             const ol_datatype_t *basic, int64_t disp,
                             const ol_rma_block_t *blocks, size_t nblocks,
                             ol_request_t *request, bool *done);
/* Waits until every UCX operation to target (-1: all) is complete there.
 * Lock held. */
ol_status_t ol_rma_ucx_flush(ol_rma_state_t *s, int target);
/* Finishes the operations UCX has completed; the first error of one no
 * request reports goes to *error (if NULL, nowhere). Returns how many. */
int ol_rma_ucx_reap(ol_rma_state_t *s, ol_status_t *error);

/* sync.c: the messages sent to target so far are handled there. Lock held. */
ol_status_t ol_rma_flush_messages(ol_rma_state_t *s, int target);
/* protocol.c: sends peer the marker of a fence behind this process's
 * messages, with an error its operations met here. Lock held. */
ol_status_t ol_rma_send_fence_marker(ol_rma_state_t *s, int peer);

/* protocol.c: whether basic is a 4- or 8-byte integer, which the CPU's
 * atomics (and UCX's) work on: accumulates on those are atomic element by
 * element wherever UCX's atomics or origins on this host may hit the
 * same memory. */
bool ol_rma_atomic_type(const ol_datatype_t *basic);
/* protocol.c: one element at `at` updated (in op at) with the CPU's
 * atomics; what was there goes to old. in is not read for MPI_NO_OP. */
void ol_rma_atomic_element(ol_op_t *op, const ol_datatype_t *basic, char *at, const char *in,
                           char *old);

/* protocol.c: target = in op target, n elements of basic, both packed. */
ol_status_t ol_rma_combine(ol_op_t *op, ol_datatype_t *basic, const char *in, char *target,
                           size_t n);

/* sync.c: waits (lock held on entry, released meanwhile) until every
 * operation this process issued is done at its target; returns an error a
 * target reported. */
ol_status_t ol_rma_complete_at_targets(ol_rma_state_t *s);
/* sync.c: whether an operation to target may be issued now. */
bool ol_rma_in_epoch(const ol_rma_state_t *s, int target);

#endif
