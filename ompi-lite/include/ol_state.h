/* The per-rank state record: where a rank is, readable by its daemon while
 * the rank is stuck, in MPI or in user code, without its cooperation.
 *
 * The daemon creates one record per rank in shared memory (a memfd, passed
 * to the rank as descriptor $OMPI_LITE_STATE_FD) and maps it too; the
 * library maps it when it is loaded. The layout is plain fixed-width data,
 * so that this header is all the daemon shares with the library.
 *
 * Writing is the generated bindings' job (gen_bindings.py): at entry a
 * handful of plain stores into a history slot, then `active` = the call's
 * number; at exit `active` goes back to what it was (0 outside MPI, the
 * outer call's number inside a nested call). No lock, no system call, no
 * clock: the daemon derives "since when" by sampling `seq`. A reader copies
 * a slot and checks that its `seq` still names the call it wanted. */
#ifndef OL_STATE_H
#define OL_STATE_H

#include <stdint.h>
#include <stdio.h>

#define OL_STATE_MAGIC 0x6f6c7374u /* "olst" */
#define OL_STATE_VERSION 1u
#define OL_STATE_HISTORY 8u        /* last calls kept; a power of two */
#define OL_STATE_PENDING 16u       /* pending operations listed */
#define OL_STATE_COMMS 32u         /* communicator names kept */
#define OL_STATE_NAME_LEN 48u
#define OL_STATE_FN_NAMES 16384u   /* bytes of NUL-separated function names */
#define OL_STATE_FD_ENV "OMPI_LITE_STATE_FD"

/* Which fields of a call hold its arguments (constant per function). */
enum {
    OL_STATE_HAS_COMM = 1 << 0,
    OL_STATE_HAS_DEST = 1 << 1,   /* dest, dest_world, and tag when HAS_TAG */
    OL_STATE_HAS_SOURCE = 1 << 2, /* source, source_world, and rtag when HAS_RTAG */
    OL_STATE_HAS_ROOT = 1 << 3,   /* root in dest, dest_world */
    OL_STATE_HAS_TAG = 1 << 4,
    OL_STATE_HAS_RTAG = 1 << 5,
    OL_STATE_HAS_COUNT = 1 << 6,
    OL_STATE_HAS_DTYPE = 1 << 7,
    OL_STATE_COLLECTIVE = 1 << 8, /* coll_seq numbers it on its communicator */
};

/* One call, one cache line. */
typedef struct {
    uint64_t seq;          /* the call's number in this process (from 1) */
    uint16_t fn;           /* index into fn_names */
    uint16_t flags;        /* OL_STATE_HAS_* */
    uint32_t ctx;          /* the communicator's context id */
    uint32_t coll_seq;     /* collectives on that communicator before this one */
    int32_t dest, dest_world, tag;
    int32_t source, source_world, rtag;
    int32_t comm_size;
    int64_t count;
    uint64_t datatype;     /* the MPI_Datatype handle's value */
} ol_state_call_t;

enum { OL_STATE_OP_SEND = 1, OL_STATE_OP_RECV = 2, OL_STATE_OP_COLL = 3 };

/* A pending nonblocking operation of the user (not the collectives' own). */
typedef struct {
    uint32_t kind;         /* OL_STATE_OP_* */
    uint32_t ctx;
    int32_t peer, peer_world, tag;
    int32_t reserved;
    int64_t count;
} ol_state_op_t;

typedef struct {
    uint32_t ctx;
    int32_t size;
    uint32_t used;
    char name[OL_STATE_NAME_LEN];
    uint32_t reserved;
} ol_state_comm_t;

typedef struct {
    /* Written by the daemon at creation. */
    uint32_t magic, version, size;
    /* Written by the rank once, when the library maps the record. */
    int32_t pid;
    uint32_t attached;
    uint32_t fn_names_len;
    /* Written by every call. */
    _Alignas(64) uint64_t seq;  /* calls entered so far */
    uint64_t active;            /* the innermost call in progress; 0: outside MPI */
    _Alignas(64) ol_state_call_t history[OL_STATE_HISTORY];
    /* Written when the rank goes to sleep waiting (the slow path). */
    uint64_t pending_at;        /* `seq` when the list was written; 0: never */
    uint32_t pending_total, pending_count;
    ol_state_op_t pending[OL_STATE_PENDING];
    /* Written when a communicator is created or named. */
    uint32_t comm_next;
    ol_state_comm_t comms[OL_STATE_COMMS];
    char fn_names[OL_STATE_FN_NAMES];
} ol_state_record_t;

/* ---- the library's side ----------------------------------------------------- */

/* NULL when there is no record (no daemon, OMPI_LITE_STATE=0): the bindings
 * then pay one load and one branch. */
extern ol_state_record_t *ol_state_rec;

/* Maps the record named by the environment (called once, when the library
 * is loaded); names: the bindings' function names, NUL-separated. */
void ol_state_attach(const char *names, uint32_t len);

struct ol_comm;
/* Makes a communicator's name and size readable by the daemon. */
void ol_state_publish_comm(const struct ol_comm *comm);
/* Writes the pending operations into the record: the waiting loop calls it
 * before it sleeps, so a blocked rank's list is current. */
void ol_state_note_pending(void);
/* Who writes that list: the layer that owns requests (pt2pt) sets it, since
 * the runtime cannot see requests. */
extern void (*ol_state_pending_writer)(ol_state_record_t *record);
/* OMPI_LITE_STATE, for ompi_lite_info --params. */
void ol_state_params_print(FILE *out);

/* Starts recording a call: returns its slot (the caller fills the fields
 * its flags name, then calls ol_state_enter), or NULL when off. */
static inline ol_state_call_t *ol_state_begin(uint16_t fn, uint16_t flags)
{
    ol_state_record_t *r = ol_state_rec;
    if (__builtin_expect(r == NULL, 0))
        return NULL;
    uint64_t s = r->seq + 1;
    r->seq = s;
    ol_state_call_t *c = &r->history[s & (OL_STATE_HISTORY - 1)];
    c->seq = s;
    c->fn = fn;
    c->flags = flags;
    return c;
}

/* Publishes the filled slot as the call in progress; returns what to
 * restore at exit. Release order: a reader that sees `active` sees the
 * fields (a plain store on x86). */
static inline uint64_t ol_state_enter(ol_state_call_t *c)
{
    uint64_t outer = ol_state_rec->active;
    __atomic_store_n(&ol_state_rec->active, c->seq, __ATOMIC_RELEASE);
    return outer;
}

static inline void ol_state_leave(const ol_state_call_t *c, uint64_t outer)
{
    if (c)
        __atomic_store_n(&ol_state_rec->active, outer, __ATOMIC_RELEASE);
}

#endif
