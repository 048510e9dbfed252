/* The schedule engine (see coll_sched.h).
 *
 * Steps are kept in one array; round_end[k] is the index after the last
 * step of round k. Communication steps become pt2pt requests whose parent is
 * the schedule's round request: when its children have all completed (UCX
 * callbacks count them down) the round is over, and the next progress call
 * (ol_progress_hooks[OL_PROGRESS_COLL]s[OL_PROGRESS_COLL] -> advance_all) runs the next round's local steps and
 * posts its messages.
 *
 * A blocking collective takes a shorter way: no request, no place on the
 * active list; its caller advances it from its own waiting loop. And the
 * last freed schedule is kept, with its step arrays and its small-scratch
 * arena, for the next one: a repeated small blocking collective then calls
 * no malloc at all. */
#include "coll_sched.h"
#include "ol_accel.h"
#include "coll_util.h"
#include "ol_log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { STEP_SEND, STEP_RECV, STEP_REDUCE, STEP_COPY } step_kind_t;

typedef struct {
    step_kind_t kind;
    const void *src;
    void *dst;
    MPI_Count count, dst_count;
    ol_datatype_t *dt, *dst_dt;
    ol_op_t *op;
    int peer;
} step_t;

/* Scratch: small requests are cut from the front of one arena of
 * ARENA_BYTES, kept with the schedule; larger ones get a block each. A
 * freed schedule keeps the blocks of its last run (kept) for the next
 * one: a fresh megabyte block costs a memset or 256 page faults, which made
 * a repeated 1 MiB reduce 3x slower than its messages and arithmetic. */
typedef struct scratch {
    struct scratch *next;
    size_t bytes;
    max_align_t data[];
} scratch_t;

typedef struct {
    size_t used;
    max_align_t data[];
} arena_t;

/* The scratch of a small collective fits. */
enum { ARENA_BYTES = 4096 };

struct ol_sched {
    ol_comm_t *comm;
    int tag;
    step_t *steps;
    int nsteps, steps_cap;
    int *round_end;
    int nrounds, rounds_cap;
    int current;               /* the round in flight */
    ol_request_t round;        /* parent of the round's messages */
    ol_request_t *request;     /* what the caller waits on */
    ol_status_t error;         /* a local step failed: the schedule stops */
    ol_status_t message_error; /* a message failed (end_message): the rounds go on */
    scratch_t *scratch;        /* blocks in use */
    scratch_t *kept;           /* blocks of the previous run, free to reuse */
    arena_t *arena;
    bool device;               /* typed scratch on the device (ol_sched_use_device) */
    struct device_block *device_scratch;
    ol_sched_t *next_active;
};

/* Schedules in flight, advanced by every progress call. */
static ol_sched_t *active;
static pthread_mutex_t active_lock = PTHREAD_MUTEX_INITIALIZER;

/* Tags of schedules: one per collective call in flight on a communicator. */
enum { SCHED_TAG_BASE = 0x800, SCHED_TAGS = 0x800 };

/* The last freed schedule, empty, ready to be taken by the next create. */
static ol_sched_t *spare;

static void release_objects(const step_t *st);

/* Typed scratch of a schedule on device buffers. */
typedef struct device_block {
    struct device_block *next;
    void *ptr;
} device_block_t;

static void free_blocks(scratch_t *m)
{
    for (scratch_t *next; m; m = next) {
        next = m->next;
        free(m);
    }
}

/* Frees the device scratch; the host blocks become the kept ones, those
 * kept before and not reused this run are freed. */
static void free_scratch(ol_sched_t *s)
{
    free_blocks(s->kept);
    s->kept = s->scratch;
    s->scratch = NULL;
    for (device_block_t *b = s->device_scratch, *next; b; b = next) {
        next = b->next;
        ol_accel_device_free(b->ptr);
        free(b);
    }
    s->device_scratch = NULL;
    s->device = false;
}

void ol_sched_use_device(ol_sched_t *s)
{
    s->device = true;
}

static void *device_scratch(ol_sched_t *s, size_t bytes)
{
    device_block_t *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    b->ptr = ol_accel_device_alloc(bytes ? bytes : 1);
    if (!b->ptr) {
        free(b);
        return NULL;
    }
    b->next = s->device_scratch;
    s->device_scratch = b;
    return b->ptr;
}

/* Empties a schedule for reuse; it keeps its arrays and its arena. */
static void reset(ol_sched_t *s)
{
    for (int i = 0; i < s->nsteps; i++)
        release_objects(&s->steps[i]);
    s->nsteps = 0;
    s->nrounds = 0;
    s->current = 0;
    s->request = NULL;
    s->error = s->message_error = OL_OK;
    s->next_active = NULL;
    free_scratch(s);
    if (s->arena)
        s->arena->used = 0;
}

int ol_sched_next_tag(ol_comm_t *comm)
{
    return SCHED_TAG_BASE + (int)(comm->coll_sequence++ % SCHED_TAGS);
}

ol_sched_t *ol_sched_create(ol_comm_t *comm)
{
    ol_sched_t *s = __atomic_exchange_n(&spare, NULL, __ATOMIC_ACQ_REL);
    if (!s)
        s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->comm = comm;
    s->tag = ol_sched_next_tag(comm);
    return s;
}

static void destroy(ol_sched_t *s)
{
    free_scratch(s);
    free_blocks(s->kept);
    free(s->arena);
    free(s->steps);
    free(s->round_end);
    free(s);
}

void ol_sched_free(ol_sched_t *s)
{
    reset(s);
    ol_sched_t *none = NULL;
    if (!__atomic_compare_exchange_n(&spare, &none, s, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        destroy(s); /* one spare is enough */
}

static size_t round_up(size_t bytes)
{
    size_t unit = sizeof(max_align_t);
    return (bytes + unit - 1) / unit * unit;
}

/* Bytes from the arena, or NULL when they do not fit. */
static void *from_arena(ol_sched_t *s, size_t bytes)
{
    if (!s->arena) {
        s->arena = malloc(sizeof(arena_t) + ARENA_BYTES);
        if (!s->arena)
            return NULL;
        s->arena->used = 0;
    }
    arena_t *a = s->arena;
    if (ARENA_BYTES - a->used < bytes)
        return NULL;
    char *data = (char *)a->data + a->used;
    a->used += bytes;
    return data;
}

/* A kept block of at least bytes (the smallest such), or a new one. */
static scratch_t *take_block(ol_sched_t *s, size_t bytes)
{
    scratch_t **best = NULL;
    for (scratch_t **m = &s->kept; *m; m = &(*m)->next)
        if ((*m)->bytes >= bytes && (!best || (*m)->bytes < (*best)->bytes))
            best = m;
    scratch_t *block;
    if (best) {
        block = *best;
        *best = block->next;
    } else {
        block = malloc(sizeof(*block) + bytes);
        if (!block)
            return NULL;
        block->bytes = bytes;
    }
    block->next = s->scratch;
    s->scratch = block;
    return block;
}

void *ol_sched_buffer(ol_sched_t *s, size_t bytes)
{
    bytes = round_up(bytes ? bytes : 1);
    void *small = from_arena(s, bytes);
    if (small)
        return small;
    scratch_t *block = take_block(s, bytes);
    return block ? block->data : NULL;
}

void *ol_sched_scratch(ol_sched_t *s, size_t bytes)
{
    void *data = ol_sched_buffer(s, bytes);
    return data ? memset(data, 0, bytes) : NULL;
}

void *ol_sched_scratch_typed(ol_sched_t *s, const ol_datatype_t *dt, MPI_Count count)
{
    size_t bytes = ol_dt_scratch_span(dt, count);
    char *base = s->device && bytes > 0 ? device_scratch(s, bytes) : ol_sched_buffer(s, bytes);
    return base ? ol_dt_buffer_for(base, dt) : NULL;
}

/* A started schedule may outlive the user's handles (MPI_Type_free,
 * MPI_Op_free after MPI_Iallreduce): each step holds its objects. */
static void retain_objects(const step_t *st)
{
    if (st->dt)
        ol_dt_retain(st->dt);
    if (st->dst_dt)
        ol_dt_retain(st->dst_dt);
    if (st->op)
        ol_op_retain(st->op);
}

static void release_objects(const step_t *st)
{
    if (st->dt)
        ol_dt_release(st->dt);
    if (st->dst_dt)
        ol_dt_release(st->dst_dt);
    if (st->op)
        ol_op_release(st->op);
}

static ol_status_t add_step(ol_sched_t *s, step_t step)
{
    if (s->nsteps == s->steps_cap) {
        int cap = s->steps_cap ? 2 * s->steps_cap : 16;
        step_t *grown = realloc(s->steps, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return MPI_ERR_NO_MEM;
        s->steps = grown;
        s->steps_cap = cap;
    }
    retain_objects(&step);
    s->steps[s->nsteps++] = step;
    return OL_OK;
}

ol_status_t ol_sched_send(ol_sched_t *s, const void *buf, MPI_Count count, ol_datatype_t *dt,
                          int peer)
{
    return add_step(s, (step_t){.kind = STEP_SEND, .src = buf, .count = count, .dt = dt,
                                .peer = peer});
}

ol_status_t ol_sched_recv(ol_sched_t *s, void *buf, MPI_Count count, ol_datatype_t *dt, int peer)
{
    return add_step(s, (step_t){.kind = STEP_RECV, .dst = buf, .count = count, .dt = dt,
                                .peer = peer});
}

ol_status_t ol_sched_reduce(ol_sched_t *s, const void *in, void *inout, MPI_Count count,
                            ol_datatype_t *dt, ol_op_t *op)
{
    return add_step(s, (step_t){.kind = STEP_REDUCE, .src = in, .dst = inout, .count = count,
                                .dt = dt, .op = op});
}

ol_status_t ol_sched_copy(ol_sched_t *s, const void *src, MPI_Count src_count,
                          ol_datatype_t *src_dt, void *dst, MPI_Count dst_count,
                          ol_datatype_t *dst_dt)
{
    return add_step(s, (step_t){.kind = STEP_COPY, .src = src, .count = src_count, .dt = src_dt,
                                .dst = dst, .dst_count = dst_count, .dst_dt = dst_dt});
}

ol_status_t ol_sched_round(ol_sched_t *s)
{
    if (s->nrounds && s->round_end[s->nrounds - 1] == s->nsteps)
        return OL_OK; /* an empty round adds nothing */
    if (s->nrounds == s->rounds_cap) {
        int cap = s->rounds_cap ? 2 * s->rounds_cap : 8;
        int *grown = realloc(s->round_end, sizeof(*grown) * (size_t)cap);
        if (!grown)
            return MPI_ERR_NO_MEM;
        s->round_end = grown;
        s->rounds_cap = cap;
    }
    s->round_end[s->nrounds++] = s->nsteps;
    return OL_OK;
}

/* ---- running ----------------------------------------------------------- */

static ol_status_t copy_typed(const step_t *st)
{
    if (st->dt == st->dst_dt && st->count == st->dst_count)
        return ol_coll_copy(st->dst, st->src, st->count, st->dt);
    size_t bytes = (size_t)st->count * st->dt->size;
    if (bytes != (size_t)st->dst_count * st->dst_dt->size) {
        ol_error_detail("the send and receive type signatures differ (%zu and %zu bytes)", bytes,
                        (size_t)st->dst_count * st->dst_dt->size);
        return MPI_ERR_TRUNCATE;
    }
    void *packed = malloc(bytes ? bytes : 1);
    if (!packed)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = ol_pt2pt_pack(st->src, st->count, st->dt, packed);
    if (rc == OL_OK)
        rc = ol_pt2pt_unpack(packed, st->dst, st->dst_count, st->dst_dt);
    free(packed);
    return rc;
}

/* A process's own block copied from its send to its receive buffer. Types
 * of different lengths mean that the counts differ between the processes,
 * as a failed message does (end_message): the rounds go on, with empty
 * sends, so that the others do not wait for ever for this process's
 * messages and report the wrong length in their turn. */
static ol_status_t copy_local(ol_sched_t *s, const step_t *st)
{
    ol_status_t rc = copy_typed(st);
    if (rc != MPI_ERR_TRUNCATE)
        return rc;
    if (s->message_error == OL_OK)
        s->message_error = rc;
    return OL_OK;
}

/* A message's completion: its error, or a receive's wrong length
 * (ol_coll_check_length), becomes the round's. */
static void end_message(ol_request_t *req)
{
    ol_status_t error = req->error;
    if (req->kind == OL_REQ_RECV) {
        ol_status_t length = ol_coll_check_length(ol_status_get_bytes(&req->status),
                                                  req->status.MPI_SOURCE, req->args.count,
                                                  req->args.dt);
        if (error == OL_OK)
            error = length;
    }
    ol_status_t none = OL_OK;
    if (error != OL_OK)
        __atomic_compare_exchange_n(&req->parent->error, &none, error, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
}

/* After a failed message (a count that differs between the processes) a
 * rank's buffers hold what it could not receive, yet the rounds go on: its
 * later sends are empty, so that a rank it forwards to reports a wrong
 * length instead of succeeding with that data. */
static MPI_Count count_to_send(const ol_sched_t *s, const step_t *st)
{
    return s->message_error == OL_OK ? st->count : 0;
}

static ol_status_t post_message(ol_sched_t *s, const step_t *st)
{
    ol_op_args_t args = {.buf = st->kind == STEP_SEND ? (void *)st->src : st->dst,
                         .count = st->kind == STEP_SEND ? count_to_send(s, st) : st->count,
                         .dt = st->dt, .peer = st->peer,
                         .tag = ol_coll_tag(s->comm, s->tag), .comm = s->comm,
                         .space = OL_TAGSPACE_COLL, .mode = OL_SEND_STANDARD};
    ol_request_t *req;
    ol_status_t rc = ol_pt2pt_prepare(st->kind == STEP_SEND ? OL_REQ_SEND : OL_REQ_RECV, &args,
                                      &req);
    if (rc != OL_OK)
        return rc;
    req->parent = &s->round;
    req->on_complete = end_message;
    ol_request_free_when_complete(req);
    __atomic_add_fetch(&s->round.pending_children, 1, __ATOMIC_ACQ_REL);
    rc = ol_pt2pt_start(req);
    if (rc != OL_OK) {
        __atomic_sub_fetch(&s->round.pending_children, 1, __ATOMIC_ACQ_REL);
        ol_request_release(req);
    }
    return rc;
}

/* Runs the local steps of the current round and posts its messages. The
 * round request counts one extra child while posting, so that messages
 * completing at once cannot end the round early. */
static ol_status_t start_round(ol_sched_t *s)
{
    int first = s->current ? s->round_end[s->current - 1] : 0;
    int last = s->round_end[s->current];
    s->round.complete = 0;
    s->round.release_claims = 0; /* the round request is the schedule's, never released */
    s->round.error = OL_OK;
    s->round.pending_children = 1;
    ol_status_t rc = OL_OK;
    for (int i = first; rc == OL_OK && i < last; i++) {
        const step_t *st = &s->steps[i];
        switch (st->kind) {
        case STEP_SEND:
        case STEP_RECV: rc = post_message(s, st); break;
        case STEP_REDUCE: rc = ol_op_apply(st->op, st->src, st->dst, st->count, st->dt); break;
        case STEP_COPY: rc = copy_local(s, st); break;
        }
    }
    if (__atomic_sub_fetch(&s->round.pending_children, 1, __ATOMIC_ACQ_REL) == 0)
        ol_request_complete(&s->round, s->round.error);
    return rc;
}

static int advance_all(void);

int (*volatile ol_coll_followup)(void);

static void activate(ol_sched_t *s)
{
    pthread_mutex_lock(&active_lock);
    s->next_active = active;
    active = s;
    ol_progress_hooks[OL_PROGRESS_COLL] = advance_all;
    pthread_mutex_unlock(&active_lock);
}

static void deactivate_locked(ol_sched_t *s)
{
    for (ol_sched_t **link = &active; *link; link = &(*link)->next_active) {
        if (*link == s) {
            *link = s->next_active;
            break;
        }
    }
    if (!active)
        ol_progress_hooks[OL_PROGRESS_COLL] = NULL;
}

/* Moves one schedule on; true when it has finished (or failed). */
static bool advance(ol_sched_t *s)
{
    if (s->current == s->nrounds)
        return true;
    while (ol_request_is_complete(&s->round)) {
        /* A failed message is the call's result, but the rounds go on: the
         * processes that wait for this one's later messages (a broadcast
         * forwarded down a tree) would otherwise wait for ever. */
        if (s->round.error != OL_OK && s->message_error == OL_OK)
            s->message_error = s->round.error;
        if (s->error != OL_OK || ++s->current == s->nrounds) {
            if (s->error == OL_OK)
                s->error = s->message_error;
            return true;
        }
        ol_status_t rc = start_round(s);
        if (rc != OL_OK && s->error == OL_OK)
            s->error = rc;
    }
    return false;
}

/* The progress hook: advances every active schedule, completes the
 * finished ones' requests. */
static int advance_all(void)
{
    int events = 0;
    if (pthread_mutex_trylock(&active_lock) != 0)
        return 0; /* another thread is at it */
    for (ol_sched_t *s = active, *next; s; s = next) {
        next = s->next_active;
        if (!advance(s))
            continue;
        deactivate_locked(s);
        ol_request_complete(s->request, s->error);
        events++;
    }
    pthread_mutex_unlock(&active_lock);
    int (*followup)(void) = ol_coll_followup;
    return followup ? events + followup() : events;
}

static void release_sched(ol_request_t *req)
{
    ol_sched_free(req->owner);
    req->owner = NULL;
}

/* Resets the schedule to its first round and starts that round; true when
 * it has finished already (local work only, or nothing to do, or failed). */
static bool begin(ol_sched_t *s)
{
    ol_sched_round(s);
    s->current = 0;
    s->error = s->message_error = OL_OK;
    if (s->nrounds == 0) /* nothing to do: a collective on one process */
        return true;
    ol_status_t rc = start_round(s);
    if (rc != OL_OK)
        s->error = rc;
    return advance(s);
}

static ol_status_t launch(ol_sched_t *s)
{
    s->request->complete = 0;
    s->request->release_claims = 0;
    s->request->active = true;
    s->request->error = OL_OK;
    ol_status_set_empty(&s->request->status);
    if (begin(s))
        ol_request_complete(s->request, s->error);
    else
        activate(s);
    return OL_OK;
}

static void init_round_request(ol_sched_t *s)
{
    memset(&s->round, 0, sizeof(s->round));
    s->round.magic = OL_REQUEST_MAGIC;
    s->round.kind = OL_REQ_COMPOUND;
}

/* The request the caller waits on; it owns the schedule from now on. */
static ol_status_t attach_request(ol_sched_t *s, bool persistent, ol_request_t **request)
{
    ol_request_t *req = ol_request_alloc(OL_REQ_COLL);
    if (!req)
        return MPI_ERR_NO_MEM;
    init_round_request(s);
    req->owner = s;
    req->on_release = release_sched;
    req->persistent = persistent;
    req->args.comm = s->comm;
    s->request = req;
    *request = req;
    return OL_OK;
}

ol_status_t ol_sched_start(ol_sched_t *s, bool persistent, ol_request_t **request)
{
    ol_status_t rc = attach_request(s, persistent, request);
    return rc == OL_OK ? launch(s) : rc;
}

ol_status_t ol_sched_prepare(ol_sched_t *s, ol_request_t **request)
{
    ol_status_t rc = attach_request(s, true, request);
    if (rc != OL_OK)
        return rc;
    ol_request_t *req = *request;
    req->active = false; /* until MPI_Start */
    req->complete = 1;
    ol_status_set_empty(&req->status);
    return OL_OK;
}

ol_status_t ol_sched_restart(ol_request_t *request)
{
    return launch(request->owner);
}

static bool finished(void *sched)
{
    return advance(sched);
}

/* The caller's waiting loop advances the schedule (finished): nothing else
 * needs to see it, so it is neither a request nor on the active list. */
ol_status_t ol_sched_run(ol_sched_t *s)
{
    init_round_request(s);
    if (!begin(s))
        ol_progress_wait(finished, s);
    ol_status_t rc = s->error;
    ol_sched_free(s);
    return rc;
}
