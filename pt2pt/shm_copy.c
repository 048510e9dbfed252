/* A large message's copy shared by its receiver and its sender, and a
 * blocking send's message moved aside by its sender: see shm_copy.h. */
#include "shm_copy.h"
#include "ol_common.h"
#include "ol_log.h"
#include "ol_runtime.h"
#include "shm_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A slot, in its sender's segment. The sender resets it before it
 * publishes the message's record; the receiver fills in where the bytes go,
 * then marks it started; both claim chunks and count those copied.
 *
 * The receiver claims chunks from the front of the message, the sender from
 * the back, so that each writes the same part of a buffer used again (a
 * loop's receive buffer) every time, and its lines stay in that core's
 * cache. Claimed from one counter by whoever came first, the chunks of a
 * reused buffer moved between the cores: osu_bw, 2 ranks, 256 KiB, runs
 * settled either at 30 GB/s (the sender took the second half of nearly
 * every message) or at 19-21 (it took 57 % of them; Open MPI 22-25), and
 * 64 KiB chunks of 256-512 KiB messages ran at 17-21 in every run. */
typedef struct {
    uint32_t started;       /* the receiver has filled in the fields below */
    uint32_t sender_failed; /* a chunk the sender could not write */
    int32_t receiver_error; /* errno of a chunk the receiver could not read */
    uint32_t mode;          /* slot_mode_t */
    uint64_t target;        /* the receiver's buffer */
    uint64_t bytes;         /* what the receiver takes of the message */
    uint64_t chunk_bytes;
    uint64_t claims;        /* chunks claimed: from the front (low half), from the back */
    uint64_t copied;        /* chunks */
    uint64_t moved_to;      /* SLOT_MOVED: where the message is now, in the sender */
} slot_t;

/* A slot shares the copy of a large message, or lets the sender of a
 * blocking send move its message aside. Whoever of the two first changes
 * SLOT_MOVABLE has the message: the receiver copies it from where it was
 * sent (SLOT_TAKEN), or from the sender's copy of it (SLOT_MOVED), which
 * the sender made before it said so, so the receiver never waits for it. */
typedef enum { SLOT_SHARED, SLOT_MOVABLE, SLOT_TAKEN, SLOT_MOVED } slot_mode_t;

/* A rank's copy area: whether it waits in progress with nothing of its own
 * to do, so its receivers cut its messages in chunks, on a line of its own;
 * then the slots. */
typedef struct {
    uint32_t helping;
    char pad[64 - 4];
    slot_t slots[OL_SHM_COPY_SLOTS];
} area_t;

_Static_assert(sizeof(area_t) == OL_SHM_COPY_AREA_BYTES, "a line, then a slot a line");

/* What the sender alone knows of its offers. */
typedef struct {
    int receiver;
    const char *source;
    size_t bytes;
    bool finished; /* no chunk left to claim */
    void *moved;   /* the sender's copy of a moved message */
} offer_t;

static size_t min_bytes;   /* 0: no sharing */
static size_t max_chunk_bytes;
static uint64_t offered;   /* a bit per slot of ours that is out */
static uint64_t movable;   /* of them, those offered movable */
static bool helping;       /* as said in our area */
static bool *unwritable;   /* by world rank: the kernel refused a write into its memory */
static uint64_t chunks_written, bytes_written; /* told at the end, for the curious */
static uint64_t moves;
static offer_t offers[OL_SHM_COPY_SLOTS];

void ol_shm_copy_init(size_t min_shared, size_t chunk)
{
    unwritable = calloc((size_t)ol_rt.size, sizeof(*unwritable));
    min_bytes = unwritable ? min_shared : 0;
    max_chunk_bytes = chunk;
    offered = movable = 0;
    helping = false;
}

void ol_shm_copy_written(uint64_t *chunks, uint64_t *bytes)
{
    *chunks = __atomic_load_n(&chunks_written, __ATOMIC_RELAXED);
    *bytes = __atomic_load_n(&bytes_written, __ATOMIC_RELAXED);
}

void ol_shm_copy_finalize(void)
{
    if (chunks_written)
        OL_INFO("pt2pt", "wrote %llu chunks (%llu bytes) of large messages into their "
                "receivers while waiting", (unsigned long long)chunks_written,
                (unsigned long long)bytes_written);
    if (moves)
        OL_INFO("pt2pt", "moved %llu blocking sends aside that their receivers had not taken "
                "yet", (unsigned long long)moves);
    chunks_written = bytes_written = moves = 0;
    for (uint64_t out = offered; out; out &= out - 1) /* moved messages nobody took */
        free(offers[__builtin_ctzll(out)].moved);
    offered = movable = 0;
    free(unwritable);
    unwritable = NULL;
}

static area_t *area_of(int owner)
{
    return ol_ring_copy_area(owner);
}

static slot_t *slot_of(int owner, uint32_t index)
{
    return &area_of(owner)->slots[index];
}

static void say_helping(bool now)
{
    if (now != helping) {
        helping = now;
        __atomic_store_n(&area_of(ol_rt.rank)->helping, now, __ATOMIC_RELAXED);
    }
}

/* A free slot of ours, reset, in the given mode. Its stores are seen by
 * the receiver through the record's publication, which orders them before
 * it. */
static uint32_t take_slot(int receiver, const void *source, size_t bytes, slot_mode_t mode)
{
    uint32_t index = (uint32_t)__builtin_ctzll(~offered);
    slot_t *s = slot_of(ol_rt.rank, index);
    s->sender_failed = 0;
    s->receiver_error = 0;
    s->claims = 0;
    s->copied = 0;
    s->started = 0;
    s->mode = mode;
    offers[index] = (offer_t){.receiver = receiver, .source = source, .bytes = bytes};
    offered |= UINT64_C(1) << index;
    if (mode == SLOT_MOVABLE)
        movable |= UINT64_C(1) << index;
    return index;
}

uint32_t ol_shm_copy_offer(int receiver, const void *source, size_t bytes)
{
    if (min_bytes == 0 || bytes < min_bytes || receiver == ol_rt.rank ||
        offered == UINT64_MAX || unwritable[receiver] || !ol_ring_reads_peer(receiver))
        return OL_SHM_COPY_NONE;
    return take_slot(receiver, source, bytes, SLOT_SHARED);
}

uint32_t ol_shm_copy_offer_movable(int receiver, const void *source, size_t bytes)
{
    return offered == UINT64_MAX ? OL_SHM_COPY_NONE
                                 : take_slot(receiver, source, bytes, SLOT_MOVABLE);
}

bool ol_shm_copy_move(uint32_t index)
{
    slot_t *s = slot_of(ol_rt.rank, index);
    offer_t *o = &offers[index];
    if (__atomic_load_n(&s->mode, __ATOMIC_RELAXED) != SLOT_MOVABLE)
        return false; /* taken: no copy in vain */
    void *copy = malloc(o->bytes ? o->bytes : 1);
    if (!copy)
        return false;
    memcpy(copy, o->source, o->bytes);
    s->moved_to = (uint64_t)(uintptr_t)copy;
    uint32_t expected = SLOT_MOVABLE;
    if (!__atomic_compare_exchange_n(&s->mode, &expected, SLOT_MOVED, false, __ATOMIC_RELEASE,
                                     __ATOMIC_RELAXED)) {
        free(copy); /* the receiver took it meanwhile */
        return false;
    }
    o->moved = copy;
    moves++;
    return true;
}

void ol_shm_copy_withdraw(uint32_t index)
{
    if (index == OL_SHM_COPY_NONE)
        return;
    free(offers[index].moved);
    offers[index].moved = NULL;
    offered &= ~(UINT64_C(1) << index);
    movable &= ~(UINT64_C(1) << index);
    if (!offered)
        say_helping(false);
}

bool ol_shm_copy_offers_out(void)
{
    return (offered & ~movable) != 0;
}

static size_t chunk_length(const slot_t *s, uint64_t chunk, uint64_t *offset)
{
    *offset = chunk * s->chunk_bytes;
    return s->bytes - *offset < s->chunk_bytes ? s->bytes - *offset : s->chunk_bytes;
}

static uint64_t chunk_count(const slot_t *s)
{
    return (s->bytes + s->chunk_bytes - 1) / s->chunk_bytes;
}

#define BACK_CLAIM (UINT64_C(1) << 32)

/* The next chunk from the front (the receiver), while fewer than
 * front_limit are, or from the back (the sender) into *chunk; false once
 * every chunk is claimed. Chunks are at least a page (match.c), so a
 * message has fewer than 2^32 of them. */
static bool claim(slot_t *s, bool from_back, uint64_t front_limit, uint64_t *chunk)
{
    uint64_t total = chunk_count(s);
    uint64_t claims = __atomic_load_n(&s->claims, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t front = claims & UINT32_MAX, back = claims >> 32;
        if (front + back >= total || (!from_back && front >= front_limit))
            return false;
        uint64_t next = claims + (from_back ? BACK_CLAIM : 1);
        if (__atomic_compare_exchange_n(&s->claims, &claims, next, true, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED)) {
            *chunk = from_back ? total - 1 - back : front;
            return true;
        }
    }
}

/* The receiver copies the whole message again; alone from now on where the
 * kernel refuses writes into its memory (it may allow reads only). */
static void writing_failed(int receiver, slot_t *s)
{
    if ((errno == EPERM || errno == ENOSYS) && !unwritable[receiver]) {
        OL_INFO("pt2pt", "cannot write into the memory of rank %d (%s): it copies the large "
                "messages of this rank alone", receiver, strerror(errno));
        unwritable[receiver] = true;
    }
    __atomic_store_n(&s->sender_failed, 1, __ATOMIC_RELAXED);
}

/* Writes the chunks of a started offer that nobody claimed yet. */
static int help(uint32_t index)
{
    slot_t *s = slot_of(ol_rt.rank, index);
    offer_t *o = &offers[index];
    int chunks = 0;
    uint64_t chunk, offset;
    while (claim(s, true, 0, &chunk)) {
        size_t length = chunk_length(s, chunk, &offset);
        bool written = ol_ring_write_peer(o->receiver, s->target + offset, o->source + offset,
                                          length);
        if (written) {
            chunks_written++;
            bytes_written += length;
        } else {
            writing_failed(o->receiver, s);
        }
        __atomic_fetch_add(&s->copied, 1, __ATOMIC_RELEASE);
        chunks++;
        if (!written)
            break; /* the receiver takes the rest, then copies it all again */
    }
    o->finished = true;
    return chunks;
}

int ol_shm_copy_progress(bool free_to_help)
{
    say_helping(free_to_help);
    if (!free_to_help)
        return 0;
    int chunks = 0;
    for (uint64_t out = offered & ~movable; out; out &= out - 1) { /* shared ones */
        uint32_t index = (uint32_t)__builtin_ctzll(out);
        if (!offers[index].finished &&
            __atomic_load_n(&slot_of(ol_rt.rank, index)->started, __ATOMIC_ACQUIRE))
            chunks += help(index);
    }
    return chunks;
}

/* Halves, up to the largest chunk, when the sender says it may help: it
 * starts a little later, and the chunks of a few hundred KiB copied fastest
 * (osu_bw, 2 ranks: 128 KiB chunks of 256 KiB-16 MiB messages 24.5-13.3
 * GB/s, 256 KiB ones 24.1-13.9, 512 KiB ones 24.4-13.0; 64 KiB ones
 * 21.5-11.3). Else one chunk: each costs a system call, and a busy sender
 * would not take any (osu_bibw 128 KiB-1 MiB lost 5-10 % to chunks). */
static size_t chunk_for(int sender, size_t bytes)
{
    size_t page = 4096;
    if (bytes < 2 * page || !__atomic_load_n(&area_of(sender)->helping, __ATOMIC_RELAXED))
        return bytes ? bytes : 1;
    size_t half = (bytes / 2 + page - 1) / page * page;
    return half < max_chunk_bytes ? half : max_chunk_bytes;
}

/* The receiver copies chunks from the front while fewer than front_limit
 * are claimed. It takes the front half first and leaves the rest to the
 * sender while it starts its next message, if any: taking every chunk the
 * sender had not claimed yet, it often took the sender's half of the
 * buffer (osu_bw, 2 ranks, medians of 5 runs, 512 KiB / 1 MiB: 23.1 / 28.8
 * GB/s -> 40.5 / 36.7; Open MPI 24.2 / 20.1). */
static void copy_front(int sender, slot_t *s, void *dst, uint64_t address, uint64_t front_limit)
{
    uint64_t chunk, offset;
    while (claim(s, false, front_limit, &chunk)) {
        size_t length = chunk_length(s, chunk, &offset);
        if (!ol_ring_read_peer(sender, (char *)dst + offset, address + offset, length))
            s->receiver_error = errno;
        __atomic_fetch_add(&s->copied, 1, __ATOMIC_RELAXED);
    }
}

static ol_shm_copy_state_t alone(int sender, void *dst, uint64_t address, size_t bytes)
{
    return ol_ring_read_peer(sender, dst, address, bytes) ? OL_SHM_COPY_DONE
                                                          : OL_SHM_COPY_FAILED;
}

/* Where the receiver copies the message of a movable slot from: where it
 * was sent, once the receiver has taken it so that its sender no longer
 * moves it, or where its sender moved it. */
static uint64_t take_movable(slot_t *s, uint64_t address)
{
    uint32_t mode = SLOT_MOVABLE;
    if (__atomic_compare_exchange_n(&s->mode, &mode, SLOT_TAKEN, false, __ATOMIC_ACQUIRE,
                                    __ATOMIC_ACQUIRE))
        return address;
    return mode == SLOT_MOVED ? s->moved_to : address;
}

ol_shm_copy_state_t ol_shm_copy_receive(int sender, uint32_t index, void *dst, uint64_t address,
                                        size_t bytes)
{
    if (index >= OL_SHM_COPY_SLOTS)
        return alone(sender, dst, address, bytes);
    slot_t *s = slot_of(sender, index);
    if (__atomic_load_n(&s->mode, __ATOMIC_RELAXED) != SLOT_SHARED)
        return alone(sender, dst, take_movable(s, address), bytes);
    s->target = (uint64_t)(uintptr_t)dst;
    s->bytes = bytes;
    s->chunk_bytes = chunk_for(sender, bytes);
    __atomic_store_n(&s->started, 1, __ATOMIC_RELEASE);
    uint64_t total = chunk_count(s);
    copy_front(sender, s, dst, address, (total + 1) / 2);
    return total == 1 ? ol_shm_copy_check(sender, index, dst, address, bytes)
                      : OL_SHM_COPY_SENDER_BUSY;
}

ol_shm_copy_state_t ol_shm_copy_check(int sender, uint32_t index, void *dst, uint64_t address,
                                      size_t bytes)
{
    if (index >= OL_SHM_COPY_SLOTS)
        return OL_SHM_COPY_DONE; /* copied alone, at once */
    slot_t *s = slot_of(sender, index);
    copy_front(sender, s, dst, address, UINT64_MAX); /* what the sender has not taken */
    if (__atomic_load_n(&s->copied, __ATOMIC_ACQUIRE) < chunk_count(s))
        return OL_SHM_COPY_SENDER_BUSY;
    if (s->receiver_error) {
        errno = s->receiver_error;
        return OL_SHM_COPY_FAILED;
    }
    if (__atomic_load_n(&s->sender_failed, __ATOMIC_RELAXED))
        return alone(sender, dst, address, bytes); /* all of it again */
    return OL_SHM_COPY_DONE;
}
