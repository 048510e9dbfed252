/* The shared-memory segment of a communicator whose members all run on
 * this host: its creation and the agreement on it, its layout (shm.h), and
 * waiting for the words in it.
 *
 * Creation, on the first call that takes the path: comm rank 0 creates a
 * file in /dev/shm (ol_shm_file.h: named after its pid and fresh random
 * bytes, so that no two live segments share a name, whatever context ids
 * are reused, and no other user can make it first; O_EXCL, mode 0600),
 * reserves its memory (posix_fallocate: a full tmpfs fails here, cleanly,
 * instead of with SIGBUS on a later write) and maps it; a broadcast tells
 * the others the name (empty: no segment), they check the file (this
 * user's, 0600, the size expected) and map it, and an allreduce (MIN) of
 * "mapped it" decides for everyone: all use the segment, or all keep the
 * pt2pt algorithms for the life of the communicator. Rank 0 then
 * unlinks the file: every member has it mapped or has given up, and a job
 * that crashes later leaves nothing in /dev/shm. The agreement's own
 * collectives run on this communicator while its state is "setting up",
 * which the path refuses, so they go the pt2pt way. */
#include "shm.h"
#include "ol_log.h"
#include "ol_runtime.h"
#include "ol_shm_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { LINE = 64 };
/* A slot's data follows its length and the word that says it is there,
 * 16 bytes on: aligned for any type, and up to 48 bytes in the header's
 * line. */
enum { SLOT_HEADER = 16, SLOT_FILLED_OFFSET = 8 };

int ol_coll_shm_enabled;
int ol_coll_shm_max_bytes;
int ol_coll_shm_slice_bytes;
int ol_coll_shm_pieces_bytes;
int ol_coll_shm_reduce_pieces_bytes;
int ol_coll_shm_root_alone_bytes;
static int max_procs;
static int memory_mib;

const ol_param_t ol_coll_shm_params[] = {
    {"COLL_SHM", OL_PARAM_INT, "1",
     "1: blocking barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall and "
     "reduce_scatter_block on a communicator whose members all run on this host go through a "
     "shared-memory segment of the communicator when small (COLL_SHM_MAX_BYTES); 0: always "
     "through pt2pt messages",
     &ol_coll_shm_enabled, 0, 1},
    {"COLL_SHM_MAX_BYTES", OL_PARAM_INT, "32768",
     "shared-memory collectives: the most bytes one rank puts into the segment in one call "
     "(its block, or all its blocks for scatter and alltoall, its vector for reductions); "
     "the segment of p ranks holds 16 (p + 1) slots of this size",
     &ol_coll_shm_max_bytes, 0, 16777216},
    {"COLL_SHM_MAX_PROCS", OL_PARAM_INT, "16",
     "shared-memory collectives: only on communicators of at most this many processes (every "
     "rank reads every other's line, and the segment grows with p; measured up to 8)",
     &max_procs, 0, 1024},
    {"COLL_SHM_MEMORY_MIB", OL_PARAM_INT, "256",
     "shared-memory collectives: the most MiB of segments a process maps at once (a segment "
     "is about 16 (p + 1) COLL_SHM_MAX_BYTES, 4.5 MiB for 8 ranks); communicators set up "
     "past it keep the pt2pt algorithms, so that a program with thousands of communicators "
     "does not fill /dev/shm",
     &memory_mib, 0, 1048576},
    {"COLL_SHM_SLICE_BYTES", OL_PARAM_INT, "16384",
     "shared-memory reduce and allreduce: from this many bytes on, each rank reduces a slice "
     "of the vector into a shared result, instead of every rank (the root) reducing it all",
     &ol_coll_shm_slice_bytes, 1, INT_MAX},
    {"COLL_SHM_PIECES_BYTES", OL_PARAM_INT, "1048576",
     "shared-memory bcast on 3 or more processes: messages longer than a slot "
     "(COLL_SHM_MAX_BYTES) and up to this many bytes go through the segment in slot-sized "
     "pieces, one after the other (0: never; longer ones go through pt2pt messages)",
     &ol_coll_shm_pieces_bytes, 0, INT_MAX},
    {"COLL_SHM_REDUCE_PIECES_BYTES", OL_PARAM_INT, "524288",
     "shared-memory reduce on 3 or more processes: the same for vectors up to this many "
     "bytes (longer ones lost beside busy processes: see coll/README.md)",
     &ol_coll_shm_reduce_pieces_bytes, 0, INT_MAX},
    {"COLL_SHM_ROOT_ALONE_BYTES", OL_PARAM_INT, "-1",
     "shared-memory reduce where this host has more of the job's ranks than cores: its root "
     "combines every contribution alone while the others' total at most this many bytes "
     "(-1: always), so that they need not wait for each other; beyond, every rank combines "
     "a slice, as where each rank has a core",
     &ol_coll_shm_root_alone_bytes, -1, INT_MAX},
};
const int ol_coll_shm_nparams = (int)OL_ARRAY_SIZE(ol_coll_shm_params);

typedef enum { SHM_SETTING_UP, SHM_READY, SHM_UNAVAILABLE } shm_state_t;

struct ol_coll_shm {
    shm_state_t state;
    int size;
    char *base; /* the mapping; NULL: none */
    size_t bytes;
    _Atomic uint32_t *sleepers; /* ranks asleep on a futex of this segment */
    char *control, *slots, *results;
    size_t slot_bytes;
    uint32_t calls;       /* calls on the path so far: the last one's number */
    uint32_t all_arrived; /* latest call this rank saw every rank arrive at */
};

/* Offsets of the parts of a segment (shm.h). */
typedef struct {
    size_t control, slots, results, total;
} layout_t;

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

static layout_t layout_of(int procs, size_t slot_bytes)
{
    layout_t l;
    l.control = LINE;
    l.slots = l.control + (size_t)procs * LINE;
    l.results = l.slots + OL_SHM_DEPTH * (size_t)procs * slot_bytes;
    l.total = l.results + OL_SHM_DEPTH * slot_bytes;
    return l;
}

static void map_parts(ol_coll_shm_t *shm, char *base, const layout_t *l)
{
    shm->base = base;
    shm->bytes = l->total;
    shm->sleepers = (_Atomic uint32_t *)base;
    shm->control = base + l->control;
    shm->slots = base + l->slots;
    shm->results = base + l->results;
}

/* Bytes of segments this process has mapped (COLL_SHM_MEMORY_MIB). */
static _Atomic size_t mapped_bytes;

static bool within_budget(size_t bytes)
{
    size_t budget = (size_t)memory_mib << 20;
    size_t after = atomic_fetch_add(&mapped_bytes, bytes) + bytes;
    if (after <= budget)
        return true;
    atomic_fetch_sub(&mapped_bytes, bytes);
    OL_INFO("coll", "shared-memory collectives: a new segment of %zu bytes would pass "
            "COLL_SHM_MEMORY_MIB=%d", bytes, memory_mib);
    return false;
}

/* Maps the segment; the caller has counted its bytes (within_budget). */
static bool map_fd(ol_coll_shm_t *shm, int fd, const layout_t *l)
{
    void *base = mmap(NULL, l->total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        return false;
    map_parts(shm, base, l);
    return true;
}

/* Rank 0: a new segment, zeroed (tmpfs pages start so), its name in name;
 * name is "" when there is none. */
static void create_segment(ol_coll_shm_t *shm, const layout_t *l, char *name, size_t size)
{
    char why[OL_SHM_NAME_MAX + 128];
    name[0] = '\0';
    if (!within_budget(l->total))
        return;
    int fd = -1;
    if (!ol_shm_new_coll_name(name, size))
        snprintf(why, sizeof(why), "no random bytes for a name: %s", strerror(errno));
    else if ((fd = ol_shm_create(name, l->total, why, sizeof(why))) >= 0 && !map_fd(shm, fd, l)) {
        snprintf(why, sizeof(why), "cannot map /dev/shm%s: %s", name, strerror(errno));
        shm_unlink(name);
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        OL_WARN("coll", "shared-memory collectives: %s; this communicator's go through "
                "point-to-point", why);
        atomic_fetch_sub(&mapped_bytes, l->total);
        name[0] = '\0';
        return;
    }
    close(fd);
}

/* The other ranks: rank 0's segment, if its file is fit to map and has
 * this rank's idea of the size (parameters that differ between ranks would
 * make it differ). */
static void open_segment(ol_coll_shm_t *shm, const layout_t *l, const char *name)
{
    char why[OL_SHM_NAME_MAX + 128];
    if (!within_budget(l->total))
        return;
    int fd = ol_shm_open_made(name, l->total, why, sizeof(why));
    if (fd >= 0 && !map_fd(shm, fd, l))
        snprintf(why, sizeof(why), "cannot map /dev/shm%s: %s", name, strerror(errno));
    if (!shm->base) {
        OL_WARN("coll", "shared-memory collectives: %s: not mapped; this communicator's go "
                "through point-to-point", why);
        atomic_fetch_sub(&mapped_bytes, l->total);
    }
    if (fd >= 0)
        close(fd);
}

static void unmap(ol_coll_shm_t *shm)
{
    if (shm->base) {
        munmap(shm->base, shm->bytes);
        atomic_fetch_sub(&mapped_bytes, shm->bytes);
    }
    shm->base = NULL;
}

static ol_status_t agree_on_segment(ol_comm_t *comm, ol_coll_shm_t *shm)
{
    layout_t l = layout_of(comm->size, shm->slot_bytes);
    char name[OL_SHM_NAME_MAX] = "";
    if (comm->rank == 0)
        create_segment(shm, &l, name, sizeof(name));
    ol_status_t rc = ol_coll_bcast(name, sizeof(name), ol_dt_from_handle(MPI_CHAR), 0, comm);
    name[sizeof(name) - 1] = '\0';
    if (rc == OL_OK && comm->rank != 0 && name[0])
        open_segment(shm, &l, name);
    int mapped = shm->base != NULL, everyone = 0;
    if (rc == OL_OK)
        rc = ol_coll_allreduce(&mapped, &everyone, 1, ol_dt_from_handle(MPI_INT),
                               ol_op_from_handle(MPI_MIN), comm);
    if (comm->rank == 0 && name[0])
        shm_unlink(name);
    if (rc != OL_OK || !everyone) {
        unmap(shm);
        shm->state = SHM_UNAVAILABLE;
        OL_INFO("coll", "%s: no shared-memory segment (%s)", comm->name[0] ? comm->name : "a communicator",
                rc != OL_OK ? "the agreement failed" : "a rank could not map it");
        return rc;
    }
    shm->state = SHM_READY;
    return OL_OK;
}

static bool members_on_this_host(const ol_comm_t *comm)
{
    for (int r = 0; r < comm->size; r++)
        if (!ol_rt_same_host(ol_comm_world_rank(comm, r)))
            return false;
    return true;
}

ol_status_t ol_shm_segment(ol_comm_t *comm, ol_coll_shm_t **out)
{
    ol_coll_shm_t *shm = comm->coll_shm;
    *out = NULL;
    if (OL_LIKELY(shm != NULL)) {
        if (shm->state == SHM_READY)
            *out = shm;
        return OL_OK;
    }
    shm = calloc(1, sizeof(*shm));
    if (!shm)
        return MPI_ERR_NO_MEM;
    comm->coll_shm = shm;
    shm->size = comm->size;
    shm->slot_bytes = round_up((size_t)ol_coll_shm_max_bytes + SLOT_HEADER, LINE);
    /* every member sees the same answers here: no message needed */
    if (ol_comm_is_inter(comm) || comm->size > max_procs || !members_on_this_host(comm)) {
        shm->state = SHM_UNAVAILABLE;
        return OL_OK;
    }
    shm->state = SHM_SETTING_UP;
    ol_status_t rc = agree_on_segment(comm, shm);
    if (shm->state == SHM_READY)
        *out = shm;
    return rc;
}

/* The state of every view: never a segment, never freed. */
static ol_coll_shm_t no_segment = {.state = SHM_UNAVAILABLE};

void ol_coll_comm_view(ol_comm_t *view)
{
    view->coll_shm = &no_segment;
}

void ol_coll_comm_release(ol_comm_t *comm)
{
    if (!comm->coll_shm || comm->coll_shm == &no_segment)
        return;
    unmap(comm->coll_shm);
    free(comm->coll_shm);
    comm->coll_shm = NULL;
}

/* ---- layout ------------------------------------------------------------- */

uint32_t ol_shm_next_call(ol_coll_shm_t *shm)
{
    return ++shm->calls;
}

ol_shm_control_t *ol_shm_control(ol_coll_shm_t *shm, int rank)
{
    return (ol_shm_control_t *)(shm->control + (size_t)rank * LINE);
}

static char *slot_start(ol_coll_shm_t *shm, int rank, uint32_t s)
{
    return shm->slots + ((size_t)rank * OL_SHM_DEPTH + s % OL_SHM_DEPTH) * shm->slot_bytes;
}

char *ol_shm_slot(ol_coll_shm_t *shm, int rank, uint32_t s)
{
    return slot_start(shm, rank, s) + SLOT_HEADER;
}

uint64_t *ol_shm_slot_length(ol_coll_shm_t *shm, int rank, uint32_t s)
{
    return (uint64_t *)slot_start(shm, rank, s);
}

/* s once rank's data of call s is in its slot of call s. Each slot's word
 * only grows (call s, then s + OL_SHM_DEPTH, ...). */
static _Atomic uint32_t *slot_filled(ol_coll_shm_t *shm, int rank, uint32_t s)
{
    return (_Atomic uint32_t *)(slot_start(shm, rank, s) + SLOT_FILLED_OFFSET);
}

char *ol_shm_result(ol_coll_shm_t *shm, uint32_t s)
{
    return shm->results + s % OL_SHM_DEPTH * shm->slot_bytes;
}

/* ---- waiting ------------------------------------------------------------ */

/* Polls between two progress calls while spinning: an idle
 * ucp_worker_progress costs about ten times a look at a cached word. */
enum { POLLS_PER_PROGRESS = 16 };
/* The longest futex sleep: a safety net, every publisher wakes sleepers. */
enum { SLEEP_NS = 1000 * 1000 };

static bool reached(_Atomic uint32_t *word, uint32_t s, memory_order order)
{
    return (int32_t)(atomic_load_explicit(word, order) - s) >= 0; /* wraps at 2^32 calls */
}

/* A sleeper counts itself before its last look at the word, and a
 * publisher reads the count after its store, both sequentially consistent
 * (the fence in ol_shm_publish): either that look sees the new value or
 * the publisher sees the sleeper and wakes the futex. FUTEX_WAIT itself
 * sleeps only while the word still holds the value looked at. */
static void sleep_on(ol_coll_shm_t *shm, _Atomic uint32_t *word, uint32_t s)
{
    atomic_fetch_add_explicit(shm->sleepers, 1, memory_order_seq_cst);
    uint32_t seen = atomic_load_explicit(word, memory_order_seq_cst);
    if ((int32_t)(seen - s) < 0) {
        struct timespec timeout = {0, SLEEP_NS};
        syscall(SYS_futex, word, FUTEX_WAIT, seen, &timeout, NULL, 0);
    }
    atomic_fetch_sub_explicit(shm->sleepers, 1, memory_order_relaxed);
}

static void wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void ol_shm_publish(ol_coll_shm_t *shm, _Atomic uint32_t *word, uint32_t s)
{
    atomic_store_explicit(word, s, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(shm->sleepers, memory_order_relaxed) > 0)
        wake(word);
}

/* The phases of the progress engine's wait (spin, yield, sleep), with
 * this rank's other operations progressed now and then (MPI's progress
 * rule: a rank blocked here may owe a peer a message). A pause between
 * looks (ol_cpu_relax): 2 ranks, medians of 7-9 alternating runs,
 * osu_barrier 0.40 -> 0.29 us, osu_allreduce and osu_allgather 4-32 B
 * 0.91-0.97 of the time, larger sizes and osu_bcast the same. The same
 * pause in the progress engine's own spin (ol_progress_wait) gave nothing
 * and made osu_bibw 16-32 KiB 0.84-0.91 of the bandwidth. */
void ol_shm_wait(ol_coll_shm_t *shm, _Atomic uint32_t *word, uint32_t s)
{
    if (reached(word, s, memory_order_acquire))
        return;
    ol_wait_phase_t phase = ol_wait_start();
    for (unsigned polls = 1; !reached(word, s, memory_order_acquire); polls++) {
        ol_cpu_relax();
        if (polls % POLLS_PER_PROGRESS == 0 && ol_progress_and_wake()) {
            if (ol_wait_restarts_on_progress())
                phase = ol_wait_start();
            continue;
        }
        if (ol_wait_poll_again(&phase))
            continue;
        sleep_on(shm, word, s);
        phase = ol_wait_start();
    }
}

void ol_shm_arrive(ol_coll_shm_t *shm, int me, uint32_t s)
{
    ol_shm_publish(shm, &ol_shm_control(shm, me)->arrived, s);
}

/* Readers of the data wait on the slot's word, which brings them the
 * data's first line with it; the others (ol_shm_wait_slots_free, a
 * barrier) on the rank's line, which no data reader then takes from its
 * owner. 2 ranks, medians of 5 alternating runs, against the rank's line
 * alone: osu_allreduce 4-256 B 0.75-0.85 of the time, osu_allgather and
 * osu_alltoall 0.80-0.96, osu_reduce_scatter 0.80-0.96, osu_bcast 4-32 KiB
 * 0.76-1.01. With the slot's word alone (every arrival there), a broadcast
 * took 1.09-1.13 times the time at 8-32 KiB: each receiver's arrival then
 * wrote a line its root had read 16 calls before. Both words are
 * published behind one fence (see ol_shm_publish). */
void ol_shm_arrive_with_data(ol_coll_shm_t *shm, int me, uint32_t s)
{
    _Atomic uint32_t *filled = slot_filled(shm, me, s);
    _Atomic uint32_t *arrived = &ol_shm_control(shm, me)->arrived;
    atomic_store_explicit(filled, s, memory_order_release);
    atomic_store_explicit(arrived, s, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(shm->sleepers, memory_order_relaxed) > 0) {
        wake(filled);
        wake(arrived);
    }
}

static void wait_arrival(ol_coll_shm_t *shm, int rank, uint32_t s)
{
    ol_shm_wait(shm, &ol_shm_control(shm, rank)->arrived, s);
}

void ol_shm_wait_data(ol_coll_shm_t *shm, int rank, uint32_t s)
{
    ol_shm_wait(shm, slot_filled(shm, rank, s), s);
}

void ol_shm_wait_all_arrived(ol_coll_shm_t *shm, uint32_t s)
{
    for (int q = 0; q < shm->size; q++)
        wait_arrival(shm, q, s);
    shm->all_arrived = s;
}

void ol_shm_wait_all_data(ol_coll_shm_t *shm, uint32_t s)
{
    for (int q = 0; q < shm->size; q++)
        ol_shm_wait_data(shm, q, s);
    shm->all_arrived = s;
}

/* Why OL_SHM_DEPTH slots per rank (and result slots) are enough: in call s
 * a rank writes the slots s % DEPTH, last used by call s - DEPTH. A rank
 * that has arrived at call s - DEPTH + 1 has returned from call s - DEPTH
 * and reads nothing of it any more; so once every rank has arrived there,
 * those slots are free. The lowest arrival seen is kept, so that in a
 * sequence of calls the others' words are read once every few calls (and
 * never after calls that wait for every arrival anyway); a root runs up to
 * DEPTH - 1 calls ahead of the slowest rank before it waits. */
void ol_shm_wait_slots_free(ol_coll_shm_t *shm, uint32_t s)
{
    uint32_t needed = s - (OL_SHM_DEPTH - 1);
    if ((int32_t)(shm->all_arrived - needed) >= 0)
        return;
    uint32_t lowest = s;
    for (int q = 0; q < shm->size; q++) {
        _Atomic uint32_t *arrived = &ol_shm_control(shm, q)->arrived;
        ol_shm_wait(shm, arrived, needed);
        uint32_t seen = atomic_load_explicit(arrived, memory_order_acquire);
        if ((int32_t)(seen - lowest) < 0)
            lowest = seen;
    }
    shm->all_arrived = lowest;
}
