/* MPI matching: UCX's tag matching, or ompi-lite's own over shared-memory
 * rings when every rank of the job runs on this host (see match.h).
 *
 * Why our own: UCX's shared-memory tag path costs 0.15 us one way here
 * (ucx_perftest tag_lat), a cache line between two cores 0.07 us. With
 * the rings, every message to a rank of the job goes through the ring to
 * it, in order, which keeps MPI's non-overtaking rule:
 * - up to EAGER_BYTES, the bytes themselves (the send completes at once);
 * - contiguous ones from CMA_BYTES, their address: the receiver copies the
 *   bytes straight out of the sender's memory (process_vm_readv) when the
 *   announcement matches and says so through its ring to the sender, whose
 *   send (synchronous or not) then completes: one copy and no handshake
 *   but the two records (osu_bw 128/256 KiB 12.1/12.3 -> 12.6/13.4 GB/s);
 *   a sender waiting meanwhile copies part of it too, and a blocking
 *   MPI_Send that waits for its receiver moves its message aside
 *   (shm_copy.h); where the kernel forbids the copy, as below:
 * - other larger and synchronous sends, an announcement with a private UCX
 *   tag (the token), under which the data follows over UCX; the receiver
 *   posts a UCX receive of exactly that token when the announcement
 *   matches, so UCX's rendezvous and eager protocols move the bytes as
 *   before, and a synchronous send completes when a receive matched it.
 * A full ring never blocks a sender: its records wait in a per-peer backlog
 * (in order) that progress pushes on. The receiver drains its rings into
 * the posted receives, in posting order, or into the unexpected queue, in
 * arrival order. A rank about to sleep on UCX's event fd says so in its
 * segment; a sender that sees it sends a wake-up message over UCX, and so
 * does a receiver that makes the room a sleeping sender's backlog asked
 * for.
 *
 * Under MPI_THREAD_MULTIPLE everything here runs under ol_rt_match_lock. */
#include "match.h"
#include "path_counters.h"
#include "endpoint.h"
#include "ol_log.h"
#include "ol_param_table.h"
#include "shm_copy.h"
#include "shm_ring.h"
#include "tag_layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

/* ---- parameters ------------------------------------------------------------ */

static int shm_param, eager_param, ring_param, max_procs_param, cma_param;
static int shared_copy_param, shared_chunk_param;

static const ol_param_t match_params[] = {
    {"P2P_SHM", OL_PARAM_INT, "1",
     "point-to-point messages between ranks of a job that runs on one host go through "
     "shared-memory rings with ompi-lite's own matching (0: UCX's tag matching); every rank "
     "of the job must agree", &shm_param, 0, 1},
    {"P2P_SHM_EAGER_BYTES", OL_PARAM_INT, "8192",
     "messages of at most this many bytes (and at most a quarter of the ring) are copied "
     "through the ring; larger ones are announced there and their data goes over UCX, whose "
     "fragments the receiver copies while the sender copies the next (or by address from "
     "P2P_SHM_CMA_BYTES). Raise it where one core's copy of a message is cheaper than a "
     "fragment's hand-off; pt2pt/README.md has the measurements",
     &eager_param, 0, INT_MAX},
    {"P2P_SHM_RING_BYTES", OL_PARAM_INT, "0",
     "bytes of each ring from one rank to another (a power of two, at least 4096); 0: "
     "262144 for jobs of up to 8 ranks, 65536 for larger ones (each rank's segment holds a "
     "ring from every rank: 2 MiB at 8 ranks, 4 MiB at 64)",
     &ring_param, 0, 16777216},
    {"P2P_SHM_CMA_BYTES", OL_PARAM_INT, "-1",
     "contiguous messages of at least this many bytes are announced in the ring with their "
     "address, and the receiver copies them straight out of the sender's memory "
     "(process_vm_readv) instead of through the ring or over UCX (0: never; -1: 4097 where "
     "the kernel reads 8 KiB in under 1.25 us, timed at start-up, else 8193; blocking "
     "sends up to P2P_SHM_EAGER_BYTES keep the ring unless a receive is posted); a blocking "
     "MPI_Send up to 64 KiB that its receiver does not take at once is copied aside by its "
     "sender, so it still completes without its receive. It goes before "
     "P2P_SHM_EAGER_BYTES, so raise both together. The copy needs no core of the sender's, "
     "which beside busy processes made 16-64 KiB streams 2-4 times as fast; "
     "pt2pt/README.md has the measurements",
     &cma_param, -1, INT_MAX},
    {"P2P_SHM_SHARED_COPY_BYTES", OL_PARAM_INT, "131072",
     "a message copied out of its sender's memory (P2P_SHM_CMA_BYTES) of at least this many "
     "bytes is copied by both ranks at once when its sender waits in MPI meanwhile: the "
     "receiver reads chunks and the sender writes the others (0: never; only while the job "
     "has no more ranks than the host has cores)",
     &shared_copy_param, 0, INT_MAX},
    {"P2P_SHM_SHARED_COPY_CHUNK", OL_PARAM_INT, "262144",
     "the most bytes of a chunk that one of the two ranks of a shared copy takes at a time "
     "(a message is cut in halves up to that)",
     &shared_chunk_param, 4096, INT_MAX},
    {"P2P_SHM_MAX_PROCS", OL_PARAM_INT, "64",
     "the rings are used by jobs of at most this many ranks (each rank maps one ring per rank "
     "of the job from every rank)", &max_procs_param, 0, 4096},
};

void ol_match_params_load(void)
{
    ol_param_table_load(match_params, OL_ARRAY_SIZE(match_params));
}

void ol_match_params_print(FILE *out)
{
    ol_param_table_print(match_params, OL_ARRAY_SIZE(match_params), out);
}

/* ---- state ------------------------------------------------------------------ */

typedef enum { RECV_POSTED, RECV_MATCHED, RECV_DONE } recv_state_t;

/* A receive of ours; its handle is its address with the low bit set, so
 * that UCX's requests (the data of announced messages) pass through
 * ol_match_request_free and friends unchanged. */
typedef struct local_recv {
    ucp_tag_t tag, mask;
    ol_ucx_data_t data;
    ucp_tag_recv_nbx_callback_t callback;
    void *user_data;
    uint64_t sender_tag;
    ucs_status_t status;
    recv_state_t state;
    bool freed;
    /* the posted queue; the copy or the finishing queue; the free list */
    struct local_recv *prev, *next;
    /* An OL_RING_CMA message matched: */
    int sender;              /* world rank */
    size_t bytes;
    ol_ring_cma_ref_t source;
    void *landing;           /* where its bytes go: the buffer, or a copy for a derived type */
    size_t landed;           /* what fits of them */
} local_recv_t;

/* A send whose receiver copies the bytes out of this process (OL_RING_CMA);
 * its handle is its address with bit 1 set. */
typedef struct {
    ucp_send_nbx_callback_t callback; /* NULL: the caller polls the status */
    void *user_data;
    uint32_t copy_slot; /* shm_copy.h */
    bool movable;       /* its sender may move it aside (ol_match_send_move) */
    bool done, freed;
} local_send_t;

/* An arrived message that no receive matched yet. */
typedef struct unexpected {
    ol_ring_envelope_t envelope;
    int peer; /* world rank of its sender */
    struct unexpected *prev, *next;
    char payload[];
} unexpected_t;

/* A record that did not fit in its ring yet. */
typedef struct backlog_record {
    ol_ring_envelope_t envelope;
    struct backlog_record *next;
    char payload[];
} backlog_record_t;

typedef struct {
    backlog_record_t *head, *tail;
    size_t bytes; /* of the payloads waiting */
} backlog_t;

static bool rings;          /* our matching runs */
uint64_t ol_match_ucx_contexts[OL_MAX_CONTEXT_IDS / 64];
unsigned ol_match_ucx_contexts_live;
static size_t eager_bytes;
static size_t cma_bytes;    /* SIZE_MAX: never */
/* A blocking MPI_Send of at most this many bytes completes without its
 * receive, as it did when UCX's eager protocol carried it (up to
 * UCX_SHM_RNDV_THRESH), and as p2p_shm_flood's exchanges of 32 KiB
 * MPI_Sends before any receive need: by address, its sender moves it aside
 * when the receiver does not take it soon (shm_copy.h), or over UCX when no
 * movable slot is free. */
#define MOVABLE_SEND_BYTES 65536
static struct {
    local_recv_t *head, *tail;
} posted;
static struct {
    unexpected_t *head, *tail;
} arrived;
static struct {
    local_recv_t *head, *tail;
} copies; /* receives whose bytes wait to be copied out of their sender */
static local_recv_t *finishing; /* receives whose senders still copy chunks (shm_copy.h) */
static local_recv_t *free_recvs;
static backlog_t *backlogs;  /* by world rank */
static uint32_t *messages_sent; /* by world rank: the last message's seq (ol_ring_envelope_t) */
static int backlogged;       /* peers with a backlog */
static bool draining;        /* a completion callback must not drain again */
static uint32_t token_counter;
static void *wake_request;   /* the posted receive of wake-ups */
static bool wake_posting, wake_done_inside, wake_needed, wake_stopping;
static bool closing;         /* after the last fence: no more wake-ups for room */
static uint64_t wakes_received;
static ol_level_t unexpected_level, posted_level; /* for the tool interface; under lock() */

/* A message of MPI's counts on the path its data takes; a device buffer's
 * announcement counts on the device's (device.c). */
static inline void count_sent(ol_p2p_path_t path, ucp_tag_t tag, size_t bytes)
{
    if (ol_counters_on() && !ol_tag_is_device_announce(tag))
        ol_p2p_count_sent(path, bytes);
}

/* UCX reaches a process of this host through shared memory, another
 * host's through the network. */
static inline ol_p2p_path_t ucx_path(int peer)
{
    return ol_rt_proc_on_host(peer) ? OL_P2P_PATH_UCX_SHM : OL_P2P_PATH_UCX_NET;
}

static inline void count_received(ol_p2p_path_t path, ucp_tag_t tag, size_t bytes)
{
    if (ol_counters_on() && !ol_tag_is_device_announce(tag))
        ol_p2p_count_received(path, bytes);
}

/* The same on UCX's paths, which depend on where the peer runs: looked up
 * only while counters count. */
static inline void count_ucx_sent(int peer, ucp_tag_t tag, size_t bytes)
{
    if (ol_counters_on())
        count_sent(ucx_path(peer), tag, bytes);
}

static inline void count_ucx_received(int peer, ucp_tag_t tag, size_t bytes)
{
    if (ol_counters_on())
        count_received(ucx_path(peer), tag, bytes);
}

static inline bool is_ours(const void *request)
{
    return ((uintptr_t)request & 1) != 0;
}

static inline bool is_our_send(const void *request)
{
    return ((uintptr_t)request & 2) != 0;
}

static inline local_recv_t *ours(void *request)
{
    return (local_recv_t *)((uintptr_t)request & ~(uintptr_t)1);
}

static inline local_send_t *our_send(void *request)
{
    return (local_send_t *)((uintptr_t)request & ~(uintptr_t)2);
}

static inline void *handle_of(local_recv_t *r)
{
    return (void *)((uintptr_t)r | 1);
}

static inline void *send_handle_of(local_send_t *send)
{
    return (void *)((uintptr_t)send | 2);
}

/* Whether a message of this tag goes through the rings. */
static inline bool through_rings(ucp_tag_t tag)
{
    return rings && !ol_match_tag_over_ucx(tag);
}

void ol_pt2pt_context_over_ucx(uint32_t context_id, bool over_ucx)
{
    uint64_t bit = (uint64_t)1 << (context_id % 64);
    if (over_ucx) {
        __atomic_fetch_or(&ol_match_ucx_contexts[context_id / 64], bit, __ATOMIC_RELAXED);
        __atomic_fetch_add(&ol_match_ucx_contexts_live, 1, __ATOMIC_RELAXED);
    } else {
        __atomic_fetch_and(&ol_match_ucx_contexts[context_id / 64], ~bit, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&ol_match_ucx_contexts_live, 1, __ATOMIC_RELAXED);
    }
}

/* A message that a probe took out of UCX's matching while the rings run
 * carries a 1 in its lowest bit, so that ol_match_msg_recv tells it from
 * the rings' (both are aligned pointers). */
static inline ol_match_message_t ucx_message(ucp_tag_message_h message)
{
    return message ? (ol_match_message_t)((uintptr_t)message | 1) : NULL;
}

static inline ucp_tag_message_h is_ucx_message(ol_match_message_t message)
{
    return ((uintptr_t)message & 1) ? (ucp_tag_message_h)((uintptr_t)message & ~(uintptr_t)1)
                                    : NULL;
}

static inline void lock(void)
{
    if (OL_UNLIKELY(ol_rt.thread_level == MPI_THREAD_MULTIPLE))
        pthread_mutex_lock(&ol_rt_match_lock);
}

static inline void unlock(void)
{
    if (OL_UNLIKELY(ol_rt.thread_level == MPI_THREAD_MULTIPLE))
        pthread_mutex_unlock(&ol_rt_match_lock);
}

/* ---- record memory ------------------------------------------------------------ */

/* Backlog and unexpected records come from free lists, one per power of two
 * of payload from 64 bytes to CLASS_PAYLOAD_MAX, the largest record of the
 * rings' default sizes (larger ones, from a raised P2P_SHM_RING_BYTES, use
 * malloc). Up to KEEP_BYTES of freed records stay on the lists instead of
 * going back to malloc: a flood of eager sends (the root of back-to-back
 * broadcasts) queues a thousand records and frees them all, and malloc then
 * gave the pages back to the kernel, so the next flood faulted on every
 * page: a 2-rank osu_bcast of 4 KiB took 1.2-2.2 us a call, 0.32 with
 * malloc's trimming turned off.
 * Callers hold lock(). */
#define CLASS_PAYLOAD_MIN 64
#define CLASSES 11 /* 64 B .. 64 KiB */
#define CLASS_PAYLOAD_MAX (CLASS_PAYLOAD_MIN << (CLASSES - 1))
#define KEEP_BYTES (16u << 20)

typedef union free_record {
    union free_record *next;
    max_align_t align;
} free_record_t;

static free_record_t *free_records[CLASSES];
static size_t kept_bytes;

/* Both kinds of record share the lists, so a block has room for the
 * larger header. */
#define RECORD_HEADER sizeof(unexpected_t)
_Static_assert(sizeof(backlog_record_t) <= RECORD_HEADER, "a backlog record fits a block");

/* The size class of a record with `payload` bytes (CLASSES: malloc), and
 * the bytes of its block. */
static int record_class(size_t payload, size_t *bytes)
{
    if (payload > CLASS_PAYLOAD_MAX) {
        *bytes = RECORD_HEADER + payload;
        return CLASSES;
    }
    int c = 0;
    while (((size_t)CLASS_PAYLOAD_MIN << c) < payload)
        c++;
    *bytes = RECORD_HEADER + ((size_t)CLASS_PAYLOAD_MIN << c);
    return c;
}

static void *record_alloc(size_t payload)
{
    size_t bytes;
    int c = record_class(payload, &bytes);
    free_record_t *f = c < CLASSES ? free_records[c] : NULL;
    if (!f)
        return malloc(bytes);
    free_records[c] = f->next;
    kept_bytes -= bytes;
    return f;
}

static void record_free(void *record, size_t payload)
{
    size_t bytes;
    int c = record_class(payload, &bytes);
    if (c == CLASSES || kept_bytes + bytes > KEEP_BYTES) {
        free(record);
        return;
    }
    free_record_t *f = record;
    f->next = free_records[c];
    free_records[c] = f;
    kept_bytes += bytes;
}

static void records_release(void)
{
    for (int c = 0; c < CLASSES; c++) {
        while (free_records[c]) {
            free_record_t *f = free_records[c];
            free_records[c] = f->next;
            free(f);
        }
    }
    kept_bytes = 0;
}

static void unexpected_free(unexpected_t *u)
{
    record_free(u, ol_ring_payload_bytes(&u->envelope));
}

static void backlog_record_free(backlog_record_t *b)
{
    record_free(b, ol_ring_payload_bytes(&b->envelope));
}

/* Tags of our own traffic, in a context id no communicator gets: the
 * data of announced messages (C=0) and wake-up messages (C=1). */
#define PRIVATE_TAG(space) (((uint64_t)OL_CONTEXT_ID_PRIVATE << OL_CONTEXT_SHIFT) | \
                            OL_CONTROL_MASK | ((uint64_t)(space) << OL_COLL_SHIFT))
#define WAKE_TAG PRIVATE_TAG(1)

/* Unique among a sender's messages in flight unless 2^23 of them are. */
static ucp_tag_t next_token(void)
{
    uint32_t n = __atomic_add_fetch(&token_counter, 1, __ATOMIC_RELAXED);
    return PRIVATE_TAG(0) | ((uint64_t)(uint32_t)ol_rt.rank << OL_SOURCE_SHIFT) |
           (n & OL_TAG_MASK);
}

/* ---- data in and out of the ring -------------------------------------------- */

static size_t data_bytes(const ol_ucx_data_t *data)
{
    return data->dt ? data->count * data->dt->size : data->count;
}

static void copy_in(void *dst, const ol_ucx_data_t *data)
{
    if (data->dt)
        ol_dt_pack_all(data->dt, data->buffer, (MPI_Count)data->count, dst);
    else
        ol_copy_bytes(dst, data->buffer, data->count);
}

/* Copies what fits of a message of `bytes` into the receive and sets *st
 * (truncated: the first bytes are in place). */
static void copy_out(const ol_ucx_data_t *data, const void *src, size_t bytes,
                     ucs_status_t *st)
{
    size_t capacity = data_bytes(data);
    size_t n = bytes <= capacity ? bytes : capacity;
    *st = bytes <= capacity ? UCS_OK : UCS_ERR_MESSAGE_TRUNCATED;
    if (data->dt)
        ol_dt_unpack_first(data->dt, data->buffer, (MPI_Count)data->count, src, n);
    else if (n)
        ol_copy_bytes(data->buffer, src, n);
}

/* ---- receives ----------------------------------------------------------------- */

static local_recv_t *recv_new(const ol_ucx_data_t *data, const ucp_request_param_t *param)
{
    local_recv_t *r = free_recvs;
    if (r)
        free_recvs = r->next;
    else if (!(r = malloc(sizeof(*r))))
        return NULL;
    r->data = *data;
    r->callback = param->cb.recv;
    r->user_data = param->user_data;
    r->freed = false;
    r->state = RECV_POSTED;
    return r;
}

static void recv_recycle(local_recv_t *r)
{
    r->next = free_recvs;
    free_recvs = r;
}

/* Receives matched whose bytes are on their way (announced over UCX, or
 * to copy out of their sender): see may_stay. */
static int matched_waiting;

/* length: the message's size, also when it was truncated (as UCX reports
 * it, and so the status on every path). */
static void recv_complete(local_recv_t *r, ucs_status_t st, uint64_t sender_tag, size_t length)
{
    if (r->state == RECV_MATCHED)
        __atomic_sub_fetch(&matched_waiting, 1, __ATOMIC_RELAXED);
    r->state = RECV_DONE;
    r->status = st;
    ucp_tag_recv_info_t info = {.sender_tag = sender_tag, .length = length};
    r->callback(handle_of(r), st, &info, r->user_data);
}

static void token_done(void *ucx_request, ucs_status_t st, const ucp_tag_recv_info_t *info,
                       void *user_data)
{
    local_recv_t *r = user_data;
    size_t length = info->length;
    ucp_request_free(ucx_request);
    recv_complete(r, st, r->sender_tag, length);
}

/* The data of an announced message: a UCX receive of exactly its token. */
static void receive_announced(local_recv_t *r, const ol_ring_envelope_t *envelope)
{
    r->state = RECV_MATCHED;
    __atomic_add_fetch(&matched_waiting, 1, __ATOMIC_RELAXED);
    r->sender_tag = envelope->tag;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = token_done,
        .user_data = r,
        .datatype = r->data.datatype,
    };
    void *u = ucp_tag_recv_nbx(ol_rt.ucp_worker, r->data.buffer, r->data.count, envelope->token,
                               ~(ucp_tag_t)0, &param);
    if (UCS_PTR_IS_ERR(u))
        recv_complete(r, UCS_PTR_STATUS(u), envelope->tag, 0);
}

typedef enum { ENQUEUED, RING_FULL, NO_MEMORY } enqueue_result_t;
static enqueue_result_t enqueue(int peer, ol_ring_envelope_t *envelope, const ol_ucx_data_t *data);

/* Starts copying what fits of an OL_RING_CMA message out of its sender's
 * memory: straight into a contiguous receive, into a copy of the bytes for
 * a derived type. */
static ol_shm_copy_state_t copy_begin(local_recv_t *r)
{
    size_t capacity = data_bytes(&r->data);
    r->landed = r->bytes <= capacity ? r->bytes : capacity;
    r->landing = r->data.dt ? malloc(r->landed ? r->landed : 1) : r->data.buffer;
    if (r->landed == 0) /* a receive of nothing may have no buffer */
        return OL_SHM_COPY_DONE;
    if (!r->landing) {
        errno = ENOMEM;
        return OL_SHM_COPY_FAILED;
    }
    return ol_shm_copy_receive(r->sender, r->source.copy_slot, r->landing, r->source.address,
                               r->landed);
}

static ol_shm_copy_state_t copy_check(local_recv_t *r)
{
    return ol_shm_copy_check(r->sender, r->source.copy_slot, r->landing, r->source.address,
                             r->landed);
}

/* The copy has ended: the sender learns that its buffer is free again, and
 * the receive completes (truncated: the first bytes are in place). */
static void copy_end(local_recv_t *r, ol_shm_copy_state_t state)
{
    ucs_status_t st;
    if (state == OL_SHM_COPY_FAILED) {
        int error = errno;
        OL_WARN("pt2pt", "cannot copy a message of %zu bytes out of rank %d: %s", r->bytes,
                r->sender, strerror(error));
        st = error == ENOMEM ? UCS_ERR_NO_MEMORY : UCS_ERR_IO_ERROR;
    } else {
        if (r->data.dt)
            ol_dt_unpack_first(r->data.dt, r->data.buffer, (MPI_Count)r->data.count, r->landing,
                               r->landed);
        st = r->landed == r->bytes ? UCS_OK : UCS_ERR_MESSAGE_TRUNCATED;
    }
    if (r->data.dt)
        free(r->landing);
    ol_ring_envelope_t done = {.token = r->source.request, .kind = OL_RING_CMA_DONE};
    if (enqueue(r->sender, &done, NULL) != ENQUEUED)
        OL_WARN("pt2pt", "out of memory: rank %d never learns that its send of %zu bytes "
                "completed", r->sender, r->bytes);
    recv_complete(r, st, r->sender_tag, state == OL_SHM_COPY_FAILED ? 0 : r->bytes);
}

/* A receive meets an OL_RING_CMA message: the copy waits for progress, not
 * done in the call that posts the receive, which would hold back the
 * sends the caller posts next (osu_bibw, whose receives are posted first,
 * ran at half its bandwidth). */
static void receive_from_sender(local_recv_t *r, int peer, const ol_ring_envelope_t *envelope,
                                const ol_ring_cma_ref_t *ref)
{
    r->state = RECV_MATCHED;
    __atomic_add_fetch(&matched_waiting, 1, __ATOMIC_RELAXED);
    r->sender_tag = envelope->tag;
    r->sender = peer;
    r->bytes = envelope->bytes;
    r->source = *ref;
    r->next = NULL;
    *(copies.tail ? &copies.tail->next : &copies.head) = r;
    copies.tail = r;
}

/* Whether r's bytes are the receiver's alone to copy (no slot: its sender
 * takes no part), straight into a contiguous buffer. */
static bool copied_alone_into_buffer(const local_recv_t *r)
{
    return r->source.copy_slot == OL_SHM_COPY_NONE && !r->data.dt && r->bytes > 0 &&
           r->data.count > 0;
}

/* Copies that stand together at the head of the queue, from one sender,
 * each the receiver's alone, are read in one call: the kernel's fixed cost
 * of a read is shared. One process reading 8 pieces, one call against 8
 * (2-core Intel Xeon VM): 8 KiB pieces 9.9 -> 16.3 GB/s, 16 KiB 12.8 ->
 * 18.3, 64 KiB 20.6 -> 22.9. Streams of messages by address (osu_bw,
 * osu_bibw) leave several such receives at once. 0 when fewer than two
 * stand so, or the read failed: the caller copies them one by one. */
#define COPY_BATCH 16
static int copy_batch(void)
{
    local_recv_t *batch[COPY_BATCH];
    struct iovec local[COPY_BATCH], remote[COPY_BATCH];
    int n = 0;
    for (local_recv_t *r = copies.head; r && n < COPY_BATCH && copied_alone_into_buffer(r) &&
                                         r->sender == copies.head->sender;
         r = r->next) {
        r->landed = r->bytes < r->data.count ? r->bytes : r->data.count;
        r->landing = r->data.buffer;
        local[n] = (struct iovec){r->landing, r->landed};
        remote[n] = (struct iovec){(void *)(uintptr_t)r->source.address, r->landed};
        batch[n++] = r;
    }
    if (n < 2 || !ol_ring_read_peer_pieces(batch[0]->sender, local, remote, n))
        return 0;
    copies.head = batch[n - 1]->next; /* taken before any completion adds to the queue */
    if (!copies.head)
        copies.tail = NULL;
    for (int i = 0; i < n; i++)
        copy_end(batch[i], OL_SHM_COPY_DONE);
    return n;
}

/* Copies the bytes of matched OL_RING_CMA messages and completes their
 * receives; one whose sender still copies a chunk waits in the finishing
 * queue, and this rank goes on with the next. */
static int copy_matched(void)
{
    int events = 0;
    local_recv_t *r;
    while ((r = copies.head) != NULL) {
        int batched = copy_batch();
        if (batched > 0) {
            events += batched;
            continue;
        }
        copies.head = r->next;
        if (!copies.head)
            copies.tail = NULL;
        ol_shm_copy_state_t state = copy_begin(r);
        if (state == OL_SHM_COPY_SENDER_BUSY) {
            r->next = finishing;
            finishing = r;
        } else {
            copy_end(r, state);
        }
        events++;
    }
    return events;
}

static int finish_copies(void)
{
    int events = 0;
    for (local_recv_t **at = &finishing; *at;) {
        local_recv_t *r = *at;
        ol_shm_copy_state_t state = copy_check(r);
        if (state == OL_SHM_COPY_SENDER_BUSY) {
            at = &r->next;
            continue;
        }
        *at = r->next;
        copy_end(r, state);
        events++;
    }
    return events;
}

static void wake(int peer);

/* Lets go of the oldest record of the ring from world rank peer, and wakes
 * peer if it sleeps until that room (records of its backlog wait); not
 * once the channel closes, after the last fence, when nobody waits for
 * room and a peer may have counted its last wake-up. */
static void consume(int peer)
{
    if (ol_ring_oldest_scanned(peer)) /* a message counted as unexpected where it waited */
        ol_level_down(&unexpected_level);
    if (ol_ring_consume(peer) && !closing)
        wake(peer);
}

/* Lets go of the record a message came in once a receive has what it needs
 * of it: the unexpected copy `kept`, or (NULL) the oldest record of the
 * ring from world rank peer. */
static void release_message(int peer, unexpected_t *kept)
{
    if (kept)
        unexpected_free(kept);
    else
        consume(peer);
}

/* A receive meets its message from world rank peer: bytes in the record
 * (payload), an announcement, or where to copy the bytes from. The record
 * is let go of before the receive completes: its callback may post or send
 * again, and find the ring moved on. */
static void deliver(local_recv_t *r, int peer, const ol_ring_envelope_t *record,
                    const void *payload, unexpected_t *kept)
{
    ol_ring_envelope_t envelope = *record; /* the record goes first */
    if (envelope.kind == OL_RING_ANNOUNCE) {
        count_ucx_received(peer, envelope.tag, envelope.bytes);
        release_message(peer, kept);
        receive_announced(r, &envelope);
    } else if (envelope.kind == OL_RING_CMA) {
        count_received(OL_P2P_PATH_SHM_RING, envelope.tag, envelope.bytes);
        receive_from_sender(r, peer, &envelope, payload); /* keeps the reference */
        release_message(peer, kept);
    } else {
        count_received(OL_P2P_PATH_SHM_RING, envelope.tag, envelope.bytes);
        ucs_status_t st;
        copy_out(&r->data, payload, envelope.bytes, &st);
        release_message(peer, kept);
        recv_complete(r, st, envelope.tag, envelope.bytes);
    }
}

/* The receiver of an OL_RING_CMA message is done with its bytes. */
static void send_complete(uint64_t request)
{
    local_send_t *send = (local_send_t *)(uintptr_t)request;
    ucp_send_nbx_callback_t callback = send->callback;
    void *user_data = send->user_data;
    bool freed = send->freed;
    ol_shm_copy_withdraw(send->copy_slot);
    __atomic_store_n(&send->done, true, __ATOMIC_RELEASE); /* a poller may free it now */
    if (callback)
        callback(send_handle_of(send), UCS_OK, user_data); /* which frees it */
    else if (freed)
        free(send);
}

static bool matches(ucp_tag_t message_tag, ucp_tag_t tag, ucp_tag_t mask)
{
    return ((message_tag ^ tag) & mask) == 0;
}

static void unpost(local_recv_t *r)
{
    ol_level_down(&posted_level);
    *(r->prev ? &r->prev->next : &posted.head) = r->next;
    *(r->next ? &r->next->prev : &posted.tail) = r->prev;
}

static local_recv_t *take_posted(ucp_tag_t message_tag)
{
    for (local_recv_t *r = posted.head; r; r = r->next) {
        if (matches(message_tag, r->tag, r->mask)) {
            unpost(r);
            return r;
        }
    }
    return NULL;
}

static void post(local_recv_t *r)
{
    r->next = NULL;
    r->prev = posted.tail;
    *(posted.tail ? &posted.tail->next : &posted.head) = r;
    posted.tail = r;
    ol_level_up(&posted_level);
}

static unexpected_t *find_arrived(ucp_tag_t tag, ucp_tag_t mask)
{
    for (unexpected_t *u = arrived.head; u; u = u->next)
        if (matches(u->envelope.tag, tag, mask))
            return u;
    return NULL;
}

static void unlink_arrived(unexpected_t *u)
{
    ol_level_down(&unexpected_level);
    *(u->prev ? &u->prev->next : &arrived.head) = u->next;
    *(u->next ? &u->next->prev : &arrived.tail) = u->prev;
}

/* Keeps a message nobody waits for; false: out of memory. */
static bool keep_arrived(int peer, const ol_ring_envelope_t *envelope, const void *payload)
{
    unexpected_t *u = record_alloc(ol_ring_payload_bytes(envelope));
    if (!u)
        return false;
    u->envelope = *envelope;
    u->peer = peer;
    memcpy(u->payload, payload, ol_ring_payload_bytes(envelope));
    u->next = NULL;
    u->prev = arrived.tail;
    *(arrived.tail ? &arrived.tail->next : &arrived.head) = u;
    arrived.tail = u;
    ol_level_up(&unexpected_level);
    return true;
}

/* ---- cancelled sends ------------------------------------------------------------ */

static void discarded(void *ucx_request, ucs_status_t st, const ucp_tag_recv_info_t *info,
                      void *user_data)
{
    (void)st;
    (void)info;
    free(user_data);
    ucp_request_free(ucx_request);
}

/* The data of an announced message that nobody will receive is taken into
 * scratch memory all the same: its sender's UCX send completes so. */
static bool discard_announced(const ol_ring_envelope_t *envelope)
{
    void *scratch = malloc(envelope->bytes ? envelope->bytes : 1);
    if (!scratch)
        return false;
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = discarded,
        .user_data = scratch,
        .datatype = ucp_dt_make_contig(1),
    };
    void *u = ucp_tag_recv_nbx(ol_rt.ucp_worker, scratch, envelope->bytes, envelope->token,
                               ~(ucp_tag_t)0, &param);
    if (UCS_PTR_IS_ERR(u)) {
        free(scratch);
        return false;
    }
    return true;
}

/* Message seq from world rank peer leaves the unexpected queue, if it is
 * there (no receive has it yet, and no probe has reported it: a probe
 * unnumbers what it reports, see ol_match_probe), and its sender is let go:
 * the bytes of an OL_RING_CMA message count as copied, an announced one's
 * are discarded. */
static bool take_back(int peer, uint32_t seq)
{
    unexpected_t *u = arrived.head;
    while (u && (u->peer != peer || u->envelope.seq != seq))
        u = u->next;
    if (!u)
        return false;
    if (u->envelope.kind == OL_RING_ANNOUNCE && !discard_announced(&u->envelope))
        return false;
    if (u->envelope.kind == OL_RING_CMA) {
        const ol_ring_cma_ref_t *ref = (const ol_ring_cma_ref_t *)u->payload;
        ol_ring_envelope_t done = {.token = ref->request, .kind = OL_RING_CMA_DONE};
        if (enqueue(peer, &done, NULL) != ENQUEUED)
            return false;
    }
    unlink_arrived(u);
    unexpected_free(u);
    return true;
}

/* A record that is no message: sends' ends and cancels. */
static bool is_control(const ol_ring_envelope_t *envelope)
{
    return envelope->kind == OL_RING_CMA_DONE || envelope->kind == OL_RING_CANCEL ||
           envelope->kind == OL_RING_CANCEL_REPLY;
}

static void take_control(int peer, const ol_ring_envelope_t *envelope)
{
    if (envelope->kind == OL_RING_CMA_DONE) {
        send_complete(envelope->token);
    } else if (envelope->kind == OL_RING_CANCEL_REPLY) {
        ol_match_cancel_answered((void *)(uintptr_t)envelope->token, envelope->bytes != 0);
    } else {
        ol_ring_envelope_t reply = {.token = envelope->token,
                                    .bytes = take_back(peer, envelope->seq),
                                    .kind = OL_RING_CANCEL_REPLY};
        if (enqueue(peer, &reply, NULL) != ENQUEUED)
            OL_WARN("pt2pt", "out of memory: rank %d waits for ever in the cancel of a send",
                    peer);
    }
}

bool ol_match_cancel_send(int peer, uint32_t seq, void *asker)
{
    if (!rings || seq == 0 || peer == ol_rt.rank)
        return false;
    ol_ring_envelope_t ask = {.token = (uint64_t)(uintptr_t)asker, .kind = OL_RING_CANCEL,
                              .seq = seq};
    return enqueue(peer, &ask, NULL) == ENQUEUED;
}

/* ---- draining the rings ------------------------------------------------------- */

/* From MPI_Finalize on, progress takes every message: a sender's copies
 * that wait for room in a ring must reach it before the sender leaves. */
static bool taking_all;

/* Whether progress may leave the message at the head of the ring from
 * peer, which no posted receive takes, where it is, for the receive to
 * come to copy it once, straight out of the ring, instead of twice through
 * the unexpected queue. Only while this rank is in a receive: one of its
 * receives has just taken the record before (`took`) or waits for the
 * bytes of its message, and no receive is posted (each would have to be
 * matched against the records behind). A rank that waits for anything
 * else (a barrier, a send, a test loop) moves them out, so that their
 * sender finds room: 64 messages of 4 KiB sent to a rank that waits in a
 * barrier took 49-52 us a round left in the ring against 35-37 moved. And
 * not while a control record waits behind it (a send's end, a cancel),
 * which progress must take. The messages the look passes count as
 * unexpected from then on. */
static bool may_stay(int peer, bool took)
{
    if (taking_all || posted.head != NULL ||
        (!took && __atomic_load_n(&matched_waiting, __ATOMIC_RELAXED) == 0))
        return false;
    unsigned passed;
    bool control_waits = ol_ring_scan(peer, &passed);
    while (passed-- > 0)
        ol_level_up(&unexpected_level);
    return !control_waits;
}

/* Takes what the ring from peer holds, or up to the record that `until`
 * takes (NULL: all, or with `leave` up to a message that may stay in the
 * ring), setting *reached then. */
static int drain_ring(int peer, const local_recv_t *until, bool leave, bool *reached)
{
    int events = 0;
    const void *payload;
    const ol_ring_envelope_t *record;
    bool took = false;
    while ((record = ol_ring_peek(peer, &payload)) != NULL) {
        ol_ring_envelope_t envelope = *record;
        if (OL_UNLIKELY(is_control(&envelope))) {
            consume(peer);
            take_control(peer, &envelope);
            events++;
            continue;
        }
        local_recv_t *r = take_posted(envelope.tag);
        *reached = r != NULL && r == until; /* compared before a callback recycles r */
        if (r) {
            deliver(r, peer, &envelope, payload, NULL);
            took = true;
        } else {
            if (leave && may_stay(peer, took))
                break;
            if (!keep_arrived(peer, &envelope, payload))
                break; /* stays in the ring until memory is back */
            consume(peer);
        }
        events++;
        if (*reached)
            break;
    }
    return events;
}

/* Drains every ring (until NULL), or only until the posted receive `until`
 * has its message. A new receive need not drain everything: the records
 * behind its message stay in the ring for the receives to come, which then
 * copy them once, instead of twice through the unexpected queue (a root of
 * back-to-back 2-rank broadcasts keeps its peer's ring full). Only a
 * receive posted when no other waits reads the rings at all; one posted
 * behind others leaves its message to the next progress call, as the
 * messages of the receives before it: in a window of receives, each look
 * at a record the sender is still writing took the line from the sender's
 * cache in the middle of its stores. A window of 64 Irecvs then 64 Isends
 * each way, 2 ranks, medians of 5 alternating runs, the first receive
 * reading against all of them: osu_bibw 1 B-1 KiB 1.25-1.53 times the
 * bandwidth, osu_bw 16 B-8 KiB 1.07-1.88, osu_latency the same. The ring
 * to start from rotates, so that a wildcard receive does not always favour
 * the same sender.
 * Progress (`leave`) takes what posted receives and control records need;
 * in a receive it leaves the other messages where they are (may_stay). It
 * took them all, and a receiver that streams (the peer of back-to-back
 * 2-rank broadcasts) copied every record behind its message into the
 * unexpected queue whenever it waited, fell further behind its sender and
 * waited so more often: 300,000 broadcasts of 8 KiB took 1.61-2.21 us a
 * call, 0.78-0.81 now (MPICH 0.84-0.86). Probes and cancels take all. */
static int drain_rings_until(const local_recv_t *until, bool leave)
{
    static int first_peer;
    if (draining)
        return 0;
    draining = true;
    int events = 0;
    bool reached = false;
    for (int i = 0; i < ol_rt.size && !reached; i++) {
        int peer = (first_peer + i) % ol_rt.size;
        events += drain_ring(peer, until, leave, &reached);
        if (reached)
            first_peer = (peer + 1) % ol_rt.size;
    }
    draining = false;
    return events;
}

static int drain_rings(bool leave)
{
    return drain_rings_until(NULL, leave);
}

/* ---- sends ---------------------------------------------------------------------- */

static void wake(int peer)
{
    ucp_ep_h ep;
    if (ol_ep_get(peer, &ep) != OL_OK)
        return;
    ol_ring_count_wake(peer);
    ucp_request_param_t param = {.op_attr_mask = 0};
    void *r = ucp_tag_send_nbx(ep, NULL, 0, WAKE_TAG | ((uint64_t)ol_rt.rank << OL_SOURCE_SHIFT),
                               &param);
    if (r && !UCS_PTR_IS_ERR(r))
        ucp_request_free(r); /* released when UCX is done with it */
}

static bool backlog_add(int peer, const ol_ring_envelope_t *envelope, const ol_ucx_data_t *data)
{
    backlog_record_t *b = record_alloc(ol_ring_payload_bytes(envelope));
    if (!b)
        return false;
    b->envelope = *envelope;
    if (ol_ring_payload_bytes(envelope))
        copy_in(b->payload, data);
    b->next = NULL;
    backlog_t *q = &backlogs[peer];
    q->bytes += ol_ring_payload_bytes(envelope);
    if (q->tail)
        q->tail->next = b;
    else
        backlogged++;
    if (!q->head)
        q->head = b;
    q->tail = b;
    return true;
}

/* Pushes peer's backlog into its ring while there is room. */
static int flush_backlog(int peer)
{
    backlog_t *q = &backlogs[peer];
    int events = 0;
    bool sleeping = false;
    while (q->head) {
        backlog_record_t *b = q->head;
        void *slot = ol_ring_reserve(peer, ol_ring_payload_bytes(&b->envelope));
        if (!slot)
            break;
        memcpy(slot, b->payload, ol_ring_payload_bytes(&b->envelope));
        sleeping = ol_ring_publish(peer, &b->envelope);
        q->head = b->next;
        q->bytes -= ol_ring_payload_bytes(&b->envelope);
        backlog_record_free(b);
        events++;
    }
    if (!q->head) {
        q->tail = NULL;
        backlogged--;
    }
    if (sleeping)
        wake(peer);
    return events;
}

static int flush_backlogs(void)
{
    int events = 0;
    for (int peer = 0; backlogged > 0 && peer < ol_rt.size; peer++)
        if (backlogs[peer].head)
            events += flush_backlog(peer);
    return events;
}

/* A record whose ring is full waits in a malloc'ed copy; a message of more
 * than backlog_copy_bytes is announced instead, its bytes left to UCX.
 * With 64 KiB rings, leaving 4 KiB messages to UCX instead of copying them
 * took osu_bibw at 4 KiB (windows of 64, beyond the ring) from 5.3 to
 * 12.1-12.6 GB/s, osu_bw from 6.4 to 11.2 (medians of 5 batches, 3 runs).
 * With the 256 KiB rings of jobs of up to 8 ranks, which such a window
 * overflows by a few records only, 8 KiB won while each rank has a core:
 * osu_bibw 4/8 KiB 1.38/1.10-1.13 times the bandwidth, osu_bw 1.04 (2
 * ranks, medians of 5 alternating runs, twice). A copy waits for its
 * sender to run again, which with more ranks than cores may be late: 4
 * ranks on 2 cores, osu_mbw_mr 4/8 KiB measured 0.76-0.85/0.93, within
 * what two runs of the same code differed there (0.80-0.83), so unproven
 * either way. Hence 8 KiB where each rank has a core and the rings hold
 * 256 KiB, and the measured 2 KiB otherwise. */
static size_t backlog_copy_bytes;
/* The most bytes of messages that wait in copies for one peer's ring: past
 * it, a message is announced and its bytes go over UCX, whose own queues
 * make a sender that runs ahead wait. A window of 64 messages of 8 KiB
 * overflows a 256 KiB ring by as much; a sender that runs further ahead
 * of a receiver that is not running (beside busy processes, 2-rank
 * osu_bcast of 8 KiB, whose root sends and never waits) filled the copies
 * without bound: fresh pages, their faults, and copies out of memory
 * instead of the cache, 8-11 us a broadcast where 16 KiB by address took
 * 2.5, and 3.3-3.5 with this bound (2 ranks beside two busy processes;
 * a bound of a quarter of the ring measured the same). Twice the ring's
 * size, so that such a window still waits in copies whole: at the ring's
 * size, osu_bibw at 8 KiB through the ring lost 3-5%. */
static size_t backlog_max_bytes;

/* Into the ring to peer, or behind what waits for room there; RING_FULL
 * (nothing done) for an inline record too large to wait in a copy. A
 * message that goes is numbered (envelope->seq). */
static enqueue_result_t enqueue(int peer, ol_ring_envelope_t *envelope, const ol_ucx_data_t *data)
{
    bool sleeping = false;
    enqueue_result_t result = ENQUEUED;
    lock();
    bool numbered = ol_ring_is_message(envelope);
    uint32_t seq = messages_sent[peer] + 1;
    if (seq == 0) /* 0 names no message */
        seq = 1;
    if (numbered)
        envelope->seq = seq;
    /* What waits goes first, and now: a sender whose sends all complete at
     * once may not call progress for a long time (the root of a loop of
     * 2-rank broadcasts of 1-2 KiB waited 100-500 us a call). */
    if (OL_UNLIKELY(backlogs[peer].head != NULL))
        flush_backlog(peer);
    void *slot = backlogs[peer].head ? NULL : ol_ring_reserve(peer, ol_ring_payload_bytes(envelope));
    if (slot) {
        if (ol_ring_payload_bytes(envelope))
            copy_in(slot, data);
        sleeping = ol_ring_publish(peer, envelope);
    } else if (ol_ring_payload_bytes(envelope) > backlog_copy_bytes ||
               (envelope->kind == OL_RING_INLINE &&
                backlogs[peer].bytes + envelope->bytes > backlog_max_bytes)) {
        result = RING_FULL;
    } else if (!backlog_add(peer, envelope, data)) {
        result = NO_MEMORY;
    }
    if (result == ENQUEUED && numbered)
        messages_sent[peer] = seq;
    unlock();
    if (sleeping)
        wake(peer);
    return result;
}

/* Whether a record from peer waits in our ring: the peer streams to us
 * too, and may itself wait for room in ours. */
static bool streams_to_us(int peer)
{
    const void *payload;
    lock();
    bool pending = ol_ring_peek(peer, &payload) != NULL;
    unlock();
    return pending;
}

/* An inline message whose ring is full waits up to ROOM_WAIT_S for its
 * receiver to make room, rather than going over UCX: a receiver that
 * keeps up then keeps every message on one path. When the stream outruns
 * it, the mix of ring and UCX messages each receive then meets slows the
 * receiver further. 2 ranks, medians of 5 alternating runs, with the wait:
 * osu_reduce 16-256 KiB 0.14-0.68 of the time, osu_bcast 64 KiB 0.78,
 * osu_bibw 16-64 KiB 1.06-1.23 times the bandwidth, osu_bw and the
 * exchanges the same. Not when the receiver streams to us as well, as it
 * may wait for room in our ring meanwhile (osu_bibw 16-64 KiB took 3-10
 * times as long), nor for records the ring clears anyway, whose one-way
 * streams are slow on the ring alone (osu_reduce 4-8 KiB 1.2-1.6 times the
 * time). Measured with the rings copying up to 32 KiB: with the default of
 * 8 KiB (P2P_SHM_EAGER_BYTES), no message waits so, nor goes by address
 * below (FULL_RING_CMA_BYTES); both serve a job that raises it. */
#define ROOM_WAIT_S 20e-6
static enqueue_result_t enqueue_when_room(int peer, ol_ring_envelope_t *envelope,
                                          const ol_ucx_data_t *data)
{
    double give_up = ol_rt_wtime() + ROOM_WAIT_S;
    enqueue_result_t result;
    do
        result = enqueue(peer, envelope, data);
    while (result == RING_FULL && ol_rt_wtime() < give_up);
    return result;
}

/* What send_by_address answers when a movable send finds no slot free. */
#define NO_MOVABLE_SLOT UCS_STATUS_PTR(UCS_ERR_NO_RESOURCE)

/* A contiguous message the receiver copies out of this process: it completes
 * (a synchronous send too) when the receiver says it is done, a movable one
 * also when its sender moves it aside. */
static void *send_by_address(int peer, const ol_ucx_data_t *data, ucp_tag_t tag,
                             const ucp_request_param_t *param, bool movable, uint32_t *seq)
{
    local_send_t *send = malloc(sizeof(*send));
    if (!send)
        return UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
    bool has_callback = param->op_attr_mask & UCP_OP_ATTR_FIELD_CALLBACK;
    *send = (local_send_t){.callback = has_callback ? param->cb.send : NULL,
                           .user_data = param->op_attr_mask & UCP_OP_ATTR_FIELD_USER_DATA
                                            ? param->user_data
                                            : NULL,
                           .movable = movable};
    lock();
    send->copy_slot = movable ? ol_shm_copy_offer_movable(peer, data->buffer, data->count)
                              : ol_shm_copy_offer(peer, data->buffer, data->count);
    unlock();
    if (movable && send->copy_slot == OL_SHM_COPY_NONE) {
        free(send);
        return NO_MOVABLE_SLOT;
    }
    ol_ring_cma_ref_t ref = {.address = (uint64_t)(uintptr_t)data->buffer,
                             .request = (uint64_t)(uintptr_t)send,
                             .copy_slot = send->copy_slot};
    ol_ucx_data_t ref_bytes;
    ol_ucx_describe_bytes(&ref, sizeof(ref), &ref_bytes);
    ol_ring_envelope_t envelope = {.tag = tag, .bytes = data->count, .kind = OL_RING_CMA};
    if (enqueue(peer, &envelope, &ref_bytes) != ENQUEUED) {
        lock();
        ol_shm_copy_withdraw(send->copy_slot);
        unlock();
        free(send);
        return UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
    }
    *seq = envelope.seq;
    return send_handle_of(send);
}

/* An inline message of at least this many bytes that still finds the ring
 * full goes by its address (when the job may copy so) rather than over
 * UCX: the receiver copies it once, straight into its buffer. 2 ranks,
 * windows of 64 messages beyond a 256 KiB ring, medians of 5 alternating
 * runs: 64 KiB osu_bibw 1.41-1.60 times the bandwidth, osu_bw 1.24-1.27,
 * the 2-rank osu collectives at 64 KiB 0.97-1.01 of the time. From 32 KiB
 * it made no difference; from 16 KiB, osu_bibw at 16 KiB lost (0.56) as
 * the receiver's copies came later than UCX's. */
#define FULL_RING_CMA_BYTES 65536

/* Whether the receiver may copy this message straight out of our memory:
 * the job allows it, the data is contiguous and the kernel lets the peer. */
static bool peer_may_copy(int peer, const ol_ucx_data_t *data)
{
    return cma_bytes != SIZE_MAX && !data->dt && ol_ring_peer_reads_here(peer);
}

static void *counted_by_address(int peer, const ol_ucx_data_t *data, ucp_tag_t tag,
                                const ucp_request_param_t *param, bool movable, uint32_t *seq)
{
    void *r = send_by_address(peer, data, tag, param, movable, seq);
    if (!UCS_PTR_IS_ERR(r))
        count_sent(OL_P2P_PATH_SHM_RING, tag, data->count);
    return r;
}

/* Whether a receive of this rank waits for its message. A blocking send
 * of up to the eager size goes by address only then: it waits until its
 * receiver takes it, which a peer that exchanges the same way (a receive
 * posted, then the send: MPI_Sendrecv, the 2-rank collectives) does at
 * once, while in the ring it would complete at once. A peer that sends
 * before it receives would leave it SEND_MOVE_US to move aside. */
static bool awaits_a_message(void)
{
    lock();
    bool waits = posted.head != NULL;
    unlock();
    return waits;
}

void *ol_match_send(ucp_ep_h ep, int peer, const ol_ucx_data_t *data, ucp_tag_t tag, bool sync,
                    bool blocking_standard, const ucp_request_param_t *param, uint32_t *seq)
{
    *seq = 0;
    size_t bytes = data_bytes(data);
    if (!through_rings(tag)) {
        count_ucx_sent(peer, tag, bytes);
        return sync ? ucp_tag_send_sync_nbx(ep, data->buffer, data->count, tag, param)
                    : ucp_tag_send_nbx(ep, data->buffer, data->count, tag, param);
    }
    if (bytes >= cma_bytes && peer_may_copy(peer, data) &&
        !(blocking_standard && bytes <= eager_bytes && !awaits_a_message())) {
        bool movable = blocking_standard && bytes <= MOVABLE_SEND_BYTES;
        void *r = counted_by_address(peer, data, tag, param, movable, seq);
        if (r != NO_MOVABLE_SLOT)
            return r;
    }
    if (!sync && bytes <= eager_bytes) {
        ol_ring_envelope_t envelope = {.tag = tag, .bytes = bytes, .kind = OL_RING_INLINE};
        enqueue_result_t result = enqueue(peer, &envelope, data);
        if (result == RING_FULL && bytes > OL_RING_CLEARED_BYTES && !streams_to_us(peer))
            result = enqueue_when_room(peer, &envelope, data);
        *seq = envelope.seq;
        if (result == ENQUEUED)
            count_sent(OL_P2P_PATH_SHM_RING, tag, bytes);
        if (result != RING_FULL)
            return result == ENQUEUED ? NULL : UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
        if (bytes >= FULL_RING_CMA_BYTES && peer_may_copy(peer, data))
            return counted_by_address(peer, data, tag, param, false, seq);
    }
    ucp_tag_t token = next_token();
    ol_ring_envelope_t envelope = {.tag = tag, .token = token, .bytes = bytes,
                                   .kind = OL_RING_ANNOUNCE};
    if (enqueue(peer, &envelope, data) != ENQUEUED)
        return UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
    *seq = envelope.seq;
    count_ucx_sent(peer, tag, bytes);
    return sync ? ucp_tag_send_sync_nbx(ep, data->buffer, data->count, token, param)
                : ucp_tag_send_nbx(ep, data->buffer, data->count, token, param);
}

/* ---- receives, probes, cancel ------------------------------------------------------ */

/* UCX 1.13 leaves sender_tag unwritten when a receive completes inside
 * ucp_tag_recv_nbx because its message had already arrived (openucx/ucx
 * issue 9425, fixed in 1.16), yet the status and the device protocol need
 * it. So a receive first takes an arrived message by probe, whose
 * information is right, and posts only when none has arrived. Under
 * MPI_THREAD_MULTIPLE the two steps exclude UCX progress (ol_rt_match_lock),
 * so no message arrives between them. */
static void *ucx_recv(const ol_ucx_data_t *data, ucp_tag_t tag, ucp_tag_t mask,
                      const ucp_request_param_t *param, uint64_t *sender_tag, bool *sender_known)
{
    lock();
    ucp_tag_recv_info_t info;
    void *r;
    ucp_tag_message_h found = ucp_tag_probe_nb(ol_rt.ucp_worker, tag, mask, 1, &info);
    if (found) {
        *sender_tag = info.sender_tag;
        *sender_known = true;
        r = ucp_tag_msg_recv_nbx(ol_rt.ucp_worker, data->buffer, data->count, found, param);
    } else {
        r = ucp_tag_recv_nbx(ol_rt.ucp_worker, data->buffer, data->count, tag, mask, param);
    }
    unlock();
    return r;
}

/* A receive from one sender whose message is the next record of that
 * sender's ring, inline, while no receive posted before it waits: the
 * message is its own and no other receive's. Copied out and completed now,
 * through the callback with a NULL request: no receive of ours, no queue,
 * no wait. It is the case of a receive whose message came first: the
 * receiver of back-to-back 8 B broadcasts ran 764 instead of 957
 * instructions a call (callgrind), osu_bw 1-16 B 1.04-1.10 times the
 * bandwidth (2 ranks, medians of 5 alternating runs). */
static bool received_at_once(const ol_ucx_data_t *data, int peer, ucp_tag_t tag, ucp_tag_t mask,
                             const ucp_request_param_t *param)
{
    const void *payload;
    const ol_ring_envelope_t *record;
    if (peer < 0 || posted.head != NULL || (record = ol_ring_peek(peer, &payload)) == NULL ||
        record->kind != OL_RING_INLINE || !matches(record->tag, tag, mask))
        return false;
    ol_ring_envelope_t envelope = *record; /* the record goes before the callback */
    count_received(OL_P2P_PATH_SHM_RING, envelope.tag, envelope.bytes);
    ucs_status_t st;
    copy_out(data, payload, envelope.bytes, &st);
    consume(peer);
    ucp_tag_recv_info_t info = {.sender_tag = envelope.tag, .length = envelope.bytes};
    param->cb.recv(NULL, st, &info, param->user_data);
    return true;
}

/* Whether a waiting rank may watch one ring alone for a while: nothing it
 * started waits on its progress, and no other thread shares its matching. */
static bool nothing_else_to_progress(void)
{
    return posted.head == NULL && backlogged == 0 && finishing == NULL && copies.head == NULL &&
           !ol_shm_copy_offers_out() && ol_progress_hooks_idle() &&
           ol_rt.thread_level != MPI_THREAD_MULTIPLE;
}

/* A blocking receive that finds its message not yet there otherwise posts
 * a receive object and waits in the progress engine, whose every pass
 * reads all rings and UCX: the message then goes through the posted queue
 * and a callback. Watching the sender's ring alone, with a pause between
 * looks, osu_latency 0 B-8 KiB (2 ranks, medians of 5-7 alternating runs)
 * took 0.85-0.94 of the time (0 B 0.37 -> 0.33 us, Open MPI 0.36 beside
 * them); without the pause, 0.92-0.95. Small messages make a round trip
 * here in 0.2-0.8 us: a watch of 1 us and one of 5 measured the same. */
#define AWAIT_SENDER_US 1.0
#define AWAIT_POLLS_PER_CLOCK 32

void ol_match_await_sender(int peer, ucp_tag_t tag, ucp_tag_t mask)
{
    if (!through_rings(tag) || peer < 0 || peer == ol_rt.rank || ol_rt.spin_us == 0 ||
        !nothing_else_to_progress() || find_arrived(tag, mask) != NULL)
        return;
    const void *payload;
    double until = 0;
    for (unsigned polls = 1; ol_ring_peek(peer, &payload) == NULL; polls++) {
        ol_cpu_relax();
        if (polls % AWAIT_POLLS_PER_CLOCK != 0)
            continue;
        double now = ol_rt_wtime();
        if (until == 0)
            until = now + 1e-6 * AWAIT_SENDER_US;
        else if (now >= until)
            return;
    }
}

void *ol_match_recv(const ol_ucx_data_t *data, int peer, ucp_tag_t tag, ucp_tag_t mask,
                    const ucp_request_param_t *param, uint64_t *sender_tag, bool *sender_known)
{
    if (!through_rings(tag))
        return ucx_recv(data, tag, mask, param, sender_tag, sender_known);
    lock();
    unexpected_t *u = find_arrived(tag, mask);
    if (!u && received_at_once(data, peer, tag, mask, param)) {
        unlock();
        return NULL;
    }
    local_recv_t *r = recv_new(data, param);
    if (!r) {
        unlock();
        return UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
    }
    r->tag = tag & mask;
    r->mask = mask;
    if (u) {
        unlink_arrived(u);
        deliver(r, u->peer, &u->envelope, u->payload, u);
    } else {
        bool first = posted.head == NULL;
        post(r);
        if (first) /* a message in a ring lands in the buffer without a copy between */
            drain_rings_until(r, false);
    }
    unlock();
    return handle_of(r);
}

ol_match_message_t ol_match_probe(ucp_tag_t tag, ucp_tag_t mask, bool remove,
                                  ucp_tag_recv_info_t *info)
{
    if (!rings)
        return ucp_tag_probe_nb(ol_rt.ucp_worker, tag, mask, remove, info);
    if (!through_rings(tag)) {
        lock();
        ucp_tag_message_h found = ucp_tag_probe_nb(ol_rt.ucp_worker, tag, mask, remove, info);
        unlock();
        return remove ? ucx_message(found) : found;
    }
    lock();
    drain_rings(false);
    unexpected_t *u = find_arrived(tag, mask);
    if (u) {
        info->sender_tag = u->envelope.tag;
        info->length = u->envelope.bytes;
        /* A message a probe has reported is promised to the receive that
         * follows: its sender's cancel no longer finds it (take_back). */
        u->envelope.seq = 0;
        if (remove)
            unlink_arrived(u);
    }
    unlock();
    return u;
}

void *ol_match_msg_recv(const ol_ucx_data_t *data, ol_match_message_t message,
                        const ucp_request_param_t *param)
{
    if (!rings)
        return ucp_tag_msg_recv_nbx(ol_rt.ucp_worker, data->buffer, data->count, message, param);
    ucp_tag_message_h taken = is_ucx_message(message);
    if (taken)
        return ucp_tag_msg_recv_nbx(ol_rt.ucp_worker, data->buffer, data->count, taken, param);
    unexpected_t *u = message;
    lock();
    local_recv_t *r = recv_new(data, param);
    if (r)
        deliver(r, u->peer, &u->envelope, u->payload, u);
    unlock();
    if (!r) /* the message stays the caller's */
        return UCS_STATUS_PTR(UCS_ERR_NO_MEMORY);
    return handle_of(r);
}

/* Moves what this rank sent itself into matching: the records of its own
 * ring and those that wait for room there, in order, to the receives
 * posted for them or the unexpected queue. Not from inside a drain (a
 * completion callback), which leaves them where they are. Callers hold
 * lock(). */
static void drain_own_ring(void)
{
    int self = ol_rt.rank;
    bool reached;
    if (draining)
        return;
    draining = true;
    do
        drain_ring(self, NULL, false, &reached);
    while (backlogs[self].head && flush_backlog(self) > 0);
    draining = false;
}

/* Decided now rather than by a cancel record through this rank's own
 * ring, which only a later progress call reads: MPI_Cancel would return
 * undecided, and a receive posted on the strength of that could then find
 * its message taken back behind it. Here the message is either still
 * unexpected and unprobed, and leaves, or a receive or probe of this rank
 * already has it. */
bool ol_match_cancel_own_send(uint32_t seq)
{
    if (!rings || seq == 0)
        return false;
    lock();
    drain_own_ring();
    bool taken = take_back(ol_rt.rank, seq);
    unlock();
    return taken;
}

void ol_match_cancel(void *request)
{
    if (is_our_send(request))
        return; /* its receiver may be reading it: it runs to its end */
    if (!is_ours(request)) {
        ucp_request_cancel(ol_rt.ucp_worker, request);
        return;
    }
    local_recv_t *r = ours(request);
    lock();
    if (r->state == RECV_POSTED) {
        unpost(r);
        recv_complete(r, UCS_ERR_CANCELED, 0, 0);
    }
    unlock();
}

void ol_match_request_free(void *request)
{
    if (request == NULL)
        return;
    if (is_our_send(request)) {
        local_send_t *send = our_send(request);
        lock();
        send->freed = true;
        bool gone = send->done;
        unlock();
        if (gone)
            free(send);
        return;
    }
    if (!is_ours(request)) {
        ucp_request_free(request);
        return;
    }
    local_recv_t *r = ours(request);
    lock();
    r->freed = true;
    if (r->state == RECV_DONE)
        recv_recycle(r);
    unlock();
}

bool ol_pt2pt_reaches_memory(const ol_comm_t *comm, int rank)
{
    return rings && !comm->spans_jobs && ol_ring_reads_peer(ol_comm_world_rank(comm, rank));
}

bool ol_pt2pt_read_memory(const ol_comm_t *comm, int rank, void *dst, uint64_t address,
                          size_t bytes)
{
    return ol_ring_read_peer(ol_comm_world_rank(comm, rank), dst, address, bytes);
}

bool ol_pt2pt_write_memory(const ol_comm_t *comm, int rank, uint64_t address, const void *src,
                           size_t bytes)
{
    return ol_ring_write_peer(ol_comm_world_rank(comm, rank), address, src, bytes);
}

bool ol_match_send_movable(void *request)
{
    return is_our_send(request) && our_send(request)->movable;
}

bool ol_match_send_move(void *request)
{
    local_send_t *send = our_send(request);
    lock();
    bool moved = !send->done && ol_shm_copy_move(send->copy_slot);
    unlock();
    return moved;
}

ucs_status_t ol_match_request_status(void *request)
{
    if (is_our_send(request))
        return __atomic_load_n(&our_send(request)->done, __ATOMIC_ACQUIRE) ? UCS_OK
                                                                           : UCS_INPROGRESS;
    if (!is_ours(request))
        return ucp_request_check_status(request);
    local_recv_t *r = ours(request);
    return __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == RECV_DONE ? r->status
                                                                      : UCS_INPROGRESS;
}

/* ---- the channel: progress and sleep ------------------------------------------------ */

static void post_wake_recv(void);

static int channel_progress(void)
{
    lock();
    int events = drain_rings(true);
    if (OL_UNLIKELY(backlogged > 0))
        events += flush_backlogs();
    if (copies.head)
        events += copy_matched();
    if (finishing)
        events += finish_copies();
    if (ol_shm_copy_offers_out())
        events += ol_shm_copy_progress(!posted.head && !finishing);
    if (OL_UNLIKELY(wake_needed) && !wake_stopping)
        post_wake_recv();
    unlock();
    return events;
}

/* Receives wait for a sender's last chunks: the peer that copies the chunk
 * wakes nobody. */
static bool channel_owes_progress(void)
{
    return __atomic_load_n(&finishing, __ATOMIC_RELAXED) != NULL;
}

/* A rank whose records wait for room may sleep: the consumer of each such
 * ring is asked to wake it once the first record fits (before the fence
 * of ol_ring_sleep_begin), and after that fence the room is looked at
 * once more. Until this, such a rank yielded instead: beside busy
 * processes each yield gave a time slice away (see "Busy cores" in
 * README.md). */
static void want_room_for_backlogs(void)
{
    for (int peer = 0; backlogged > 0 && peer < ol_rt.size; peer++)
        if (backlogs[peer].head)
            ol_ring_want_room(peer, ol_ring_payload_bytes(&backlogs[peer].head->envelope));
}

static bool backlog_fits(void)
{
    for (int peer = 0; backlogged > 0 && peer < ol_rt.size; peer++)
        if (backlogs[peer].head &&
            ol_ring_has_room(peer, ol_ring_payload_bytes(&backlogs[peer].head->envelope)))
            return true;
    return false;
}

/* Also false when another thread's progress has just left work owed. */
static bool channel_sleep_begin(void)
{
    lock();
    want_room_for_backlogs();
    unlock();
    /* Messages left in the rings (may_stay) wait for receives to come;
     * with receives posted, progress takes all, so look from the oldest. */
    bool past_scanned = __atomic_load_n(&posted.head, __ATOMIC_RELAXED) == NULL;
    bool quiet = ol_ring_sleep_begin() && !ol_ring_any_pending(past_scanned) &&
                 !channel_owes_progress();
    lock();
    quiet = quiet && !backlog_fits();
    unlock();
    return quiet;
}

static void channel_close(void);

static const ol_rt_channel_t channel = {
    .progress = channel_progress,
    .sleep_begin = channel_sleep_begin,
    .sleep_end = ol_ring_sleep_end,
    .owes_progress = channel_owes_progress,
    .close = channel_close,
};

/* A wake-up carries nothing: its arrival ended the sleep. The next
 * receive for wake-ups is posted by progress, not here: this callback may
 * run inside the call that posts. */

static void woken(void *ucx_request, ucs_status_t st, const ucp_tag_recv_info_t *info,
                  void *user_data)
{
    (void)info;
    (void)user_data;
    ucp_request_free(ucx_request);
    wake_request = NULL;
    wake_done_inside = wake_posting;
    wake_needed = st != UCS_ERR_CANCELED;
    if (st == UCS_OK)
        wakes_received++;
}

static void post_wake_recv(void)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
        .cb.recv = woken,
    };
    wake_needed = false;
    wake_posting = true;
    wake_done_inside = false;
    void *r = ucp_tag_recv_nbx(ol_rt.ucp_worker, NULL, 0, WAKE_TAG, ~(ucp_tag_t)OL_SOURCE_MASK,
                               &param);
    wake_posting = false;
    if (!UCS_PTR_IS_ERR(r) && !wake_done_inside)
        wake_request = r;
}

/* ---- start and end ------------------------------------------------------------------- */

static bool is_power_of_two(size_t n)
{
    return n && (n & (n - 1)) == 0;
}

/* P2P_SHM_RING_BYTES, or its default for the job's size (0 for a negative
 * setting). */
static size_t ring_bytes_for_job(void)
{
    if (ring_param == 0)
        return ol_rt.size <= 8 ? 262144 : 65536;
    return ring_param > 0 ? (size_t)ring_param : 0;
}

/* Whether this rank offers the rings; the job uses them only if all do. */
static bool offers_rings(size_t ring_bytes)
{
    if (!shm_param || ol_rt.size > max_procs_param)
        return false;
    if (ring_bytes < 4096 || !is_power_of_two(ring_bytes)) {
        fprintf(stderr, "ompi-lite: OMPI_LITE_P2P_SHM_RING_BYTES=%d is not a power of two of at "
                "least 4096 (or 0 for the default); point-to-point keeps UCX's shared memory\n",
                ring_param);
        return false;
    }
    return true;
}

/* Where a message of 4-8 KiB goes by address by default: a copy through
 * the kernel costs a fixed price that differs between hosts, against two
 * copies through the ring. 2 ranks, ompi-lite alone, alternating runs: on
 * a 2-core Intel Xeon VM, where the kernel reads 8 KiB in 0.75 us alone
 * (0.74-1.19 timed so at the start of a 2-rank job), by address from 4097
 * took osu_bibw 8 KiB from 8.7-9.0 to 10.4-12.8 GB/s, osu_bw from 8.0-9.0
 * to 9.2-9.8, osu_allgather 8 KiB 3.0-3.1 to 2.0-2.9 us (three pairs); on
 * a 2-core AMD EPYC VM, where it takes 1.5 us, the ring won every 8 KiB
 * cell (pt2pt/README.md). A rank that times a slow read keeps the ring,
 * as all did before. 4 KiB stays in the ring on both: by address, osu_bw
 * at 4 KiB lost half its bandwidth. */
#define CHEAP_KERNEL_READ_S 1.25e-6
static size_t measured_cma_bytes(void)
{
    return ol_ring_kernel_read_seconds(8192) < CHEAP_KERNEL_READ_S ? 4097 : 8193;
}

/* A shared copy needs its sender running while its receiver copies: not
 * when ranks wait for a core (more ranks than cores). */
static void init_shared_copies(void)
{
    bool shared = shared_copy_param >= 8192 && shared_chunk_param >= 4096 &&
                  ol_rt_core_per_local_rank();
    ol_shm_copy_init(shared ? (size_t)shared_copy_param : 0,
                     shared ? (size_t)shared_chunk_param : 0);
}

ol_status_t ol_match_init(void)
{
    if (ol_rt.singleton || ol_rt.size < 2 || ol_rt.local_size != ol_rt.size)
        return OL_OK;
    bool usable;
    size_t ring_bytes = ring_bytes_for_job();
    ol_status_t rc = ol_ring_init(ring_bytes, offers_rings(ring_bytes), &usable);
    if (rc != OL_OK || !usable)
        return rc;
    backlogs = calloc((size_t)ol_rt.size, sizeof(*backlogs));
    messages_sent = calloc((size_t)ol_rt.size, sizeof(*messages_sent));
    if (!backlogs || !messages_sent) {
        free(backlogs);
        free(messages_sent);
        ol_ring_finalize();
        return MPI_ERR_NO_MEM;
    }
    size_t largest = ol_ring_max_payload();
    eager_bytes = eager_param < 0 ? 0 : (size_t)eager_param < largest ? (size_t)eager_param
                                                                      : largest;
    cma_bytes = cma_param > 0    ? (size_t)cma_param
                : cma_param == 0 ? SIZE_MAX
                                 : measured_cma_bytes();
    init_shared_copies();
    backlog_copy_bytes = ol_rt_core_per_local_rank() && ring_bytes >= 262144 ? 8192 : 2048;
    backlog_max_bytes = 2 * ring_bytes;
    rings = true;
    ol_match_by_ucx = false;
    ol_ucx_transport_packs_bytes = eager_bytes;
    /* The runtime may start again in one process (sessions): the wake-ups
     * of the new rings are counted from 0, and taken again. */
    wakes_received = 0;
    wake_stopping = false;
    taking_all = false;
    closing = false;
    post_wake_recv();
    ol_rt_channel = &channel;
    OL_INFO("pt2pt", "matching over shared-memory rings of %zu bytes, eager up to %zu bytes, "
            "contiguous messages from %zu bytes (0: none) copied out of their sender",
            ring_bytes, eager_bytes, cma_bytes == SIZE_MAX ? 0 : cma_bytes);
    return OL_OK;
}

/* Records still in a backlog go to their rings while the peers take
 * them; a peer that stopped taking them for a second (it will never
 * receive them) loses them, as it would lose UCX's eager messages. */
void ol_match_finalize(void)
{
    if (!rings)
        return;
    taking_all = true;
    double deadline = ol_rt_wtime() + 1.0;
    while (backlogged > 0 && ol_rt_wtime() < deadline)
        if (ol_progress() > 0)
            deadline = ol_rt_wtime() + 1.0;
    for (int peer = 0; peer < ol_rt.size; peer++) {
        while (backlogs[peer].head) {
            backlog_record_t *b = backlogs[peer].head;
            backlogs[peer].head = b->next;
            backlog_record_free(b);
        }
        backlogs[peer].tail = NULL;
        backlogs[peer].bytes = 0;
    }
    backlogged = 0;
}

/* After the last fence every wake-up sent to this rank is on its way
 * through UCX: they are taken (else UCX finds them unexpected when its
 * worker is destroyed), then the rings go. */
static void channel_close(void)
{
    closing = true;
    double deadline = ol_rt_wtime() + 1.0;
    while (wakes_received < ol_ring_wakes_sent_here() && ol_rt_wtime() < deadline)
        ol_progress();
    wake_stopping = true;
    if (wake_request)
        ucp_request_cancel(ol_rt.ucp_worker, wake_request);
    while (wake_request)
        ucp_worker_progress(ol_rt.ucp_worker);
    ol_rt_channel = NULL;
    rings = false;
    ol_match_by_ucx = true;
    ol_ucx_transport_packs_bytes = 0;
    ol_shm_copy_finalize();
    ol_ring_finalize();
    while (arrived.head) {
        unexpected_t *u = arrived.head;
        arrived.head = u->next;
        unexpected_free(u);
    }
    arrived.tail = NULL;
    unexpected_level.length = 0;
    records_release();
    while (free_recvs) {
        local_recv_t *r = free_recvs;
        free_recvs = r->next;
        free(r);
    }
    free(backlogs);
    backlogs = NULL;
    free(messages_sent);
    messages_sent = NULL;
}

uint64_t ol_match_messages_sent(void)
{
    /* The sum of the peers' last sequence numbers: nothing to count on
     * the send path. */
    uint64_t total = 0;
    const uint32_t *sent = __atomic_load_n(&messages_sent, __ATOMIC_ACQUIRE);
    for (int peer = 0; sent && peer < ol_rt.size; peer++)
        total += __atomic_load_n(&sent[peer], __ATOMIC_RELAXED);
    return total;
}

unsigned ol_match_backlogged_peers(void)
{
    int n = __atomic_load_n(&backlogged, __ATOMIC_RELAXED);
    return n > 0 ? (unsigned)n : 0;
}

void ol_match_queue_levels(unsigned *unexpected, unsigned *unexpected_high_water, unsigned *posted)
{
    *unexpected = __atomic_load_n(&unexpected_level.length, __ATOMIC_RELAXED);
    *unexpected_high_water = __atomic_load_n(&unexpected_level.high_water, __ATOMIC_RELAXED);
    *posted = __atomic_load_n(&posted_level.length, __ATOMIC_RELAXED);
}

void ol_pt2pt_reset_unexpected_high_water(void)
{
    ol_level_reset_high_water(&unexpected_level);
}

bool ol_match_by_ucx = true;

/* The world index of the process whose messages on comm carry source in
 * their tag (a view of a subgroup carries its parent's ranks: tag_ranks). */
static int sender_of(const ol_comm_t *comm, int source)
{
    if (comm->tag_ranks) {
        int rank = 0;
        while (rank < comm->peer_size && comm->tag_ranks[rank] != source)
            rank++;
        source = rank;
    }
    return source < comm->peer_size ? ol_comm_world_rank(comm, source) : -1;
}

void ol_match_count_ucx_message(const ucp_tag_recv_info_t *info, ucs_status_t st,
                                const ol_comm_t *comm)
{
    if (st != UCS_OK && st != UCS_ERR_MESSAGE_TRUNCATED)
        return;
    int source = (int)((info->sender_tag & OL_SOURCE_MASK) >> OL_SOURCE_SHIFT);
    count_ucx_received(sender_of(comm, source), info->sender_tag, info->length);
}
