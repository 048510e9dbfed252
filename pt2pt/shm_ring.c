/* Shared-memory rings between the ranks of one host: see shm_ring.h. */
#define _GNU_SOURCE /* process_vm_readv */
#include "shm_ring.h"
#include "ol_log.h"
#include "ol_runtime.h"
#include "ol_shm_file.h"
#include "shm_copy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define LINE 64
#define SEGMENT_MAGIC 0x6f6c2d7032702d31ULL /* "ol-p2p-1" */

/* The first two lines of a segment: what it is and whose (the owner's pid,
 * the address of its cma_probe, whether it registered for membarrier), then
 * how many of its owner's threads sleep (a line of its own: senders read it
 * after every record) and how many wake-ups were sent to it. */
typedef struct {
    uint64_t magic;
    uint64_t ring_bytes;
    uint64_t rings;
    uint64_t probe_address;
    int32_t pid;
    uint32_t membarrier;
    char pad[LINE - 40];
    int32_t sleepers;
    uint32_t unused;
    uint64_t wakes_sent; /* to the owner, by all senders */
    char pad2[LINE - 16];
} segment_header_t;

/* What the consumer of a ring found of reading its producer's memory. */
enum { CMA_UNTRIED, CMA_WORKS, CMA_REFUSED };

/* A ring: the consumer's position and what it found of reading the
 * producer's memory on a line of their own (where the producer also said,
 * at set-up, that it mapped every segment, and where a producer asleep on
 * a full ring says from which position on it wants to be woken: the
 * consumer reads it beside the position it has just written), then the
 * data. */
typedef struct {
    uint64_t tail;
    uint32_t cma;
    uint32_t producer_mapped_all;
    uint64_t wake_at_tail; /* 0: nobody waits for room */
    char pad[LINE - 24];
    char data[];
} ring_t;

typedef struct {
    uint64_t seal; /* position + 1, written last; SEAL_CLEAR set: see publish */
    ol_ring_envelope_t envelope;
} record_t;

/* In a seal: the consumer must clear the record's lines when it is done. */
#define SEAL_CLEAR ((uint64_t)1 << 63)
#define CLEARED_RECORD_BYTES \
    ((sizeof(record_t) + OL_RING_CLEARED_BYTES + LINE - 1) / LINE * LINE)

_Static_assert(sizeof(segment_header_t) == 2 * LINE, "the header is two lines");
_Static_assert(sizeof(ring_t) == LINE, "a ring's data starts on a line");
_Static_assert(sizeof(record_t) == 40, "a record header and 24 bytes fill a line");

typedef struct {
    ring_t *ring;
    uint32_t cma;         /* ring->cma once the consumer has tried */
    uint64_t head;        /* bytes written, over all laps */
    uint64_t known_tail;  /* the consumer's position when last read */
    size_t reserved;      /* the record ol_ring_reserve made room for */
    uint32_t unanswered;  /* records published since one from that peer was consumed */
} producer_t;

typedef struct {
    ring_t *ring;
    uint64_t tail;
    uint64_t scanned;         /* ol_ring_scan has passed the messages before it */
    size_t last_record_bytes; /* the next is taken to be alike */
} consumer_t;

static size_t ring_bytes;
static size_t segment_bytes;
/* Every rank of the job registered for MEMBARRIER_CMD_GLOBAL_EXPEDITED: a
 * sleeper then makes every producer's seal visible (see ol_ring_publish). */
static bool asymmetric_fence;
static char **segments;         /* by world rank */
static producer_t *producers;   /* to each world rank */
static consumer_t *consumers;   /* from each world rank */
/* This rank's segment until set-up unlinks it; "" when it made none. */
static char own_name[OL_SHM_NAME_MAX];

/* Under which each rank tells the others its segment's name ("": none). */
#define NAME_KEY "ol.p2p.shm"

/* A word each peer reads out of this process's memory to find whether the
 * kernel lets it. */
static const uint64_t cma_probe = SEGMENT_MAGIC;

static size_t round_to_line(size_t bytes)
{
    return (bytes + LINE - 1) & ~(size_t)(LINE - 1);
}

/* A segment: its header, the slots of its owner's shared copies
 * (shm_copy.h), then the rings. */
static ring_t *ring_in(char *segment, int from)
{
    return (ring_t *)(segment + sizeof(segment_header_t) + OL_SHM_COPY_AREA_BYTES +
                      (size_t)from * (LINE + ring_bytes));
}

void *ol_ring_copy_area(int rank)
{
    return segments[rank] + sizeof(segment_header_t);
}

static segment_header_t *header_of(int rank)
{
    return (segment_header_t *)segments[rank];
}

/* ---- set-up ------------------------------------------------------------- */

/* Takes the page faults of [start, start + bytes) now, each page written
 * with what it holds. A shared mapping takes one at the first write to
 * each page, MAP_POPULATE or not (that maps them for reading), and each
 * costs this virtual machine 6-15 us: a consumer's first lap through its
 * 256 KiB rings, clearing the records it read, ran at 0.13-0.15 us a
 * message where the later laps run at 0.04 (2 ranks, back-to-back 8 B
 * broadcasts), and every benchmark's first size paid for it. Linux's
 * MADV_POPULATE_WRITE, ten times cheaper, left the faults to come (the
 * first calls of 2-rank reduce_scatters of 32 KiB, through the rings, took
 * 53-70 us against 3.5-4.4 after these writes). */
static void fault_in_for_writing(char *start, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < bytes; off += page) {
        volatile char *byte = start + off;
        *byte = *byte;
    }
}

/* Maps the segment open on fd as world rank's; false (errno set) if mmap
 * fails. */
static bool map_fd(int rank, int fd)
{
    void *p = mmap(NULL, segment_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return false;
    segments[rank] = p;
    if (rank == ol_rt.rank) /* no peer writes here before the fence */
        fault_in_for_writing(p, segment_bytes);
    return true;
}

/* Creates and maps this rank's segment under a new, secret name; false
 * (said why, no file left) when it cannot. */
static bool create_own(void)
{
    char why[OL_SHM_NAME_MAX + 128];
    if (!ol_shm_new_p2p_name(own_name, sizeof(own_name))) {
        OL_WARN("pt2pt", "no random bytes for the name of a /dev/shm file: %s; ranks keep "
                "UCX's shared memory", strerror(errno));
        return false;
    }
    int fd = ol_shm_create(own_name, segment_bytes, why, sizeof(why));
    bool mapped = fd >= 0 && map_fd(ol_rt.rank, fd);
    if (fd >= 0 && !mapped) {
        snprintf(why, sizeof(why), "cannot map /dev/shm%s: %s", own_name, strerror(errno));
        shm_unlink(own_name);
    }
    if (fd >= 0)
        close(fd);
    if (!mapped) {
        OL_WARN("pt2pt", "%s; ranks keep UCX's shared memory", why);
        own_name[0] = '\0';
    }
    return mapped;
}

/* World rank's segment name as it shared it; false when it made none. */
static bool name_of(int rank, char *name, size_t size)
{
    void *data = NULL;
    size_t length = 0;
    if (ol_rt_lookup(rank, NAME_KEY, &data, &length) != OL_OK)
        return false;
    const char *text = data;
    bool named = length > 1 && length <= size && text[0] == '/' && text[length - 1] == '\0';
    if (named)
        memcpy(name, text, length);
    free(data);
    return named;
}

/* Maps world rank's segment; false (said why) when it made none or its
 * file is not fit to map (ol_shm_file.h). */
static bool map_peer(int rank)
{
    char name[OL_SHM_NAME_MAX], why[OL_SHM_NAME_MAX + 128];
    if (!name_of(rank, name, sizeof(name))) {
        OL_INFO("pt2pt", "rank %d made no shared-memory rings; ranks keep UCX's shared memory",
                rank);
        return false;
    }
    int fd = ol_shm_open_made(name, segment_bytes, why, sizeof(why));
    bool mapped = fd >= 0 && map_fd(rank, fd);
    if (fd >= 0 && !mapped)
        snprintf(why, sizeof(why), "cannot map /dev/shm%s: %s", name, strerror(errno));
    if (fd >= 0)
        close(fd);
    if (!mapped)
        OL_WARN("pt2pt", "%s: not mapped (the rings of rank %d); ranks keep UCX's shared memory",
                why, rank);
    return mapped;
}

static void unmap_all(void)
{
    for (int r = 0; segments && r < ol_rt.size; r++)
        if (segments[r])
            munmap(segments[r], segment_bytes);
    free(segments);
    free(producers);
    free(consumers);
    segments = NULL;
    producers = NULL;
    consumers = NULL;
}

/* Maps every peer's segment; false at the first that cannot be. */
static bool map_peers(void)
{
    for (int r = 0; r < ol_rt.size; r++)
        if (r != ol_rt.rank && !map_peer(r))
            return false;
    return true;
}

/* Tells every rank, in the ring from this one in its segment, that this
 * rank mapped every segment: before the fence after which they look. */
static void vouch_for_rings(void)
{
    for (int r = 0; r < ol_rt.size; r++)
        __atomic_store_n(&ring_in(segments[r], ol_rt.rank)->producer_mapped_all, 1,
                         __ATOMIC_RELEASE);
}

/* After that fence: whether every rank mapped every segment. A rank that
 * could not map one (none made, or unfit) vouched nowhere, so every rank
 * with a segment misses its word there: all ranks answer alike, whichever
 * of them found the fault, and use the rings together or not at all. */
static bool every_rank_vouched(void)
{
    for (int r = 0; r < ol_rt.size; r++)
        if (!__atomic_load_n(&ring_in(segments[ol_rt.rank], r)->producer_mapped_all,
                             __ATOMIC_ACQUIRE))
            return false;
    return true;
}

static long membarrier(int command)
{
    return syscall(__NR_membarrier, command, 0, 0);
}

/* Before the fence after which peers read it. */
static void introduce_self(void)
{
    segment_header_t *own = header_of(ol_rt.rank);
    own->pid = (int32_t)getpid();
    own->probe_address = (uint64_t)(uintptr_t)&cma_probe;
    own->membarrier = membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
}

/* After that fence; every rank finds the same. */
static bool every_rank_registered(void)
{
    for (int r = 0; r < ol_rt.size; r++)
        if (!header_of(r)->membarrier)
            return false;
    return true;
}

/* Moves `bytes` between here and `address` in world rank peer's memory,
 * in calls of at most what Linux moves in one (2 GiB - 4 KiB). A rank's
 * own memory is copied, not read through the kernel: a 16 MiB
 * MPI_Sendrecv to self took 1455-1894 us through process_vm_readv (Open
 * MPI 580-649). */
static bool move_with_peer(int peer, char *here, uint64_t address, size_t bytes, bool to_peer)
{
    if (peer == ol_rt.rank) {
        void *there = (void *)(uintptr_t)address;
        if (to_peer)
            ol_copy_bytes(there, here, bytes);
        else
            ol_copy_bytes(here, there, bytes);
        return true;
    }
    pid_t pid = header_of(peer)->pid;
    while (bytes > 0) {
        struct iovec local = {here, bytes}, remote = {(void *)(uintptr_t)address, bytes};
        ssize_t n = to_peer ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
                            : process_vm_readv(pid, &local, 1, &remote, 1, 0);
        if (n <= 0) {
            if (n == 0)
                errno = EFAULT;
            return false;
        }
        here += n;
        address += (uint64_t)n;
        bytes -= (size_t)n;
    }
    return true;
}

bool ol_ring_read_peer(int peer, void *dst, uint64_t address, size_t bytes)
{
    return move_with_peer(peer, dst, address, bytes, false);
}

bool ol_ring_read_peer_pieces(int peer, const struct iovec *local, const struct iovec *remote,
                              int count)
{
    size_t total = 0;
    for (int i = 0; i < count; i++)
        total += local[i].iov_len;
    if (peer == ol_rt.rank) {
        for (int i = 0; i < count; i++)
            ol_copy_bytes(local[i].iov_base, remote[i].iov_base, local[i].iov_len);
        return true;
    }
    pid_t pid = header_of(peer)->pid;
    ssize_t n = process_vm_readv(pid, local, (unsigned long)count, remote, (unsigned long)count, 0);
    return n >= 0 && (size_t)n == total;
}

bool ol_ring_write_peer(int peer, uint64_t address, const void *src, size_t bytes)
{
    return move_with_peer(peer, (char *)src, address, bytes, true);
}

double ol_ring_kernel_read_seconds(size_t bytes)
{
    char *from = aligned_alloc(4096, bytes), *to = aligned_alloc(4096, bytes);
    double fastest = 1.0;
    if (from && to) {
        memset(from, 1, bytes);
        memset(to, 0, bytes);
        struct iovec local = {to, bytes}, remote = {from, bytes};
        for (int i = 0; i < 32; i++) {
            double start = ol_rt_wtime();
            if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)bytes)
                break;
            double took = ol_rt_wtime() - start;
            fastest = took < fastest ? took : fastest;
        }
    }
    free(from);
    free(to);
    return fastest;
}

/* Each rank tells the producer of each of its rings whether it can read the
 * producer's memory: a kernel or container may forbid process_vm_readv. */
static void try_reading_peers(void)
{
    for (int r = 0; r < ol_rt.size; r++) {
        uint64_t word = 0;
        bool works = ol_ring_read_peer(r, &word, header_of(r)->probe_address, sizeof(word)) &&
                     word == SEGMENT_MAGIC;
        if (!works && r != ol_rt.rank)
            OL_INFO("pt2pt", "cannot read the memory of rank %d (%s): large messages from it "
                    "go over UCX", r, strerror(errno));
        __atomic_store_n(&consumers[r].ring->cma, works ? CMA_WORKS : CMA_REFUSED,
                         __ATOMIC_RELEASE);
    }
}

bool ol_ring_reads_peer(int peer)
{
    return __atomic_load_n(&consumers[peer].ring->cma, __ATOMIC_RELAXED) == CMA_WORKS;
}

bool ol_ring_peer_reads_here(int peer)
{
    producer_t *p = &producers[peer];
    if (OL_UNLIKELY(p->cma == CMA_UNTRIED))
        p->cma = __atomic_load_n(&p->ring->cma, __ATOMIC_ACQUIRE);
    return p->cma == CMA_WORKS;
}

static void attach_rings(void)
{
    segment_header_t *own = header_of(ol_rt.rank);
    own->magic = SEGMENT_MAGIC;
    own->ring_bytes = ring_bytes;
    own->rings = (uint64_t)ol_rt.size;
    for (int r = 0; r < ol_rt.size; r++) {
        producers[r].ring = ring_in(segments[r], ol_rt.rank);
        consumers[r].ring = ring_in(segments[ol_rt.rank], r);
    }
}

/* This process's mapping of a peer's segment takes a page fault per page
 * of the ring it writes there, on its first lap: 2-rank 4 KiB allreduces
 * in batches of 20 calls took 2.4 instead of 0.6 us a call through 256 KiB
 * rings. Taken here, before this rank's first record. */
static void prefault_producer_rings(void)
{
    for (int r = 0; r < ol_rt.size; r++)
        if (r != ol_rt.rank) /* in this process's own segment */
            fault_in_for_writing(producers[r].ring->data, ring_bytes);
}

ol_status_t ol_ring_init(size_t bytes_per_ring, bool offer, bool *usable)
{
    *usable = false;
    ring_bytes = bytes_per_ring;
    segment_bytes = sizeof(segment_header_t) + OL_SHM_COPY_AREA_BYTES +
                    (size_t)ol_rt.size * (LINE + ring_bytes);
    segments = calloc((size_t)ol_rt.size, sizeof(*segments));
    producers = calloc((size_t)ol_rt.size, sizeof(*producers));
    consumers = calloc((size_t)ol_rt.size, sizeof(*consumers));
    if (!segments || !producers || !consumers) {
        unmap_all();
        return MPI_ERR_NO_MEM;
    }
    bool created = offer && create_own();
    ol_status_t rc = ol_rt_share(NAME_KEY, own_name, strlen(own_name) + 1);
    ol_status_t fenced = ol_rt_fence(); /* every rank has made its segment, or given up */
    if (rc == OL_OK)
        rc = fenced;
    bool mapped = rc == OL_OK && created && map_peers();
    if (mapped) {
        introduce_self();
        vouch_for_rings();
    }
    fenced = ol_rt_fence(); /* every rank has mapped every segment, or given up */
    if (created)
        shm_unlink(own_name);
    if (rc == OL_OK)
        rc = fenced;
    if (rc != OL_OK || !mapped || !every_rank_vouched()) {
        unmap_all();
        return rc;
    }
    attach_rings();
    asymmetric_fence = every_rank_registered();
    prefault_producer_rings();
    try_reading_peers();
    *usable = true;
    return OL_OK;
}

void ol_ring_finalize(void)
{
    unmap_all();
}

size_t ol_ring_max_payload(void)
{
    return ring_bytes / 4;
}

/* ---- producer ----------------------------------------------------------- */

/* Marks the rest of the lap empty: the consumer skips to the next lap. */
static void write_wrap(producer_t *p, size_t to_end)
{
    record_t *r = (record_t *)(p->ring->data + (p->head & (ring_bytes - 1)));
    r->envelope.kind = OL_RING_WRAP;
    r->envelope.bytes = to_end - sizeof(record_t);
    __atomic_store_n(&r->seal, p->head + 1, __ATOMIC_RELEASE);
    p->head += to_end;
}

/* Where a record of `bytes` of payload ends when written at the
 * producer's head, after a wrap where the lap's end comes first. */
static uint64_t record_end(const producer_t *p, size_t bytes)
{
    size_t need = round_to_line(sizeof(record_t) + bytes);
    size_t to_end = ring_bytes - (p->head & (ring_bytes - 1));
    return p->head + (need <= to_end ? need : to_end + need);
}

/* Whether the ring holds everything up to end: the consumer's position is
 * read again only when the last one read says no. */
static bool room_until(producer_t *p, uint64_t end)
{
    if (end - p->known_tail <= ring_bytes)
        return true;
    p->known_tail = __atomic_load_n(&p->ring->tail, __ATOMIC_ACQUIRE);
    return end - p->known_tail <= ring_bytes;
}

bool ol_ring_has_room(int peer, size_t bytes)
{
    producer_t *p = &producers[peer];
    return room_until(p, record_end(p, bytes));
}

void *ol_ring_reserve(int peer, size_t bytes)
{
    producer_t *p = &producers[peer];
    size_t need = round_to_line(sizeof(record_t) + bytes);
    size_t to_end = ring_bytes - (p->head & (ring_bytes - 1));
    if (!room_until(p, p->head + (need <= to_end ? need : to_end + need)))
        return NULL;
    if (need > to_end)
        write_wrap(p, to_end);
    p->reserved = need;
    return p->ring->data + (p->head & (ring_bytes - 1)) + sizeof(record_t);
}

/* Whether the consumer must clear the lines of the record at head when it
 * is done with it, so that no old payload word there passes for a seal on
 * a later lap: when one of its lines, after the header, begins with a word
 * equal to that line's position + 1 + k * ring_bytes, k >= 1 (old seals
 * are smaller than any seal to come, and the ring starts zeroed). Records
 * of up to 8 KiB are cleared anyway. Each cleared line comes back to the
 * producer from the consumer's cache on the next lap, and the consumer,
 * slowed by its writes, falls behind a producer that streams one way; yet
 * a small record left uncleared costs the producer more on the next lap.
 * On the 2-core machine, 2 ranks, medians of 7 alternating runs, clearing
 * only the marked records against clearing all: osu_bcast 8/16/32/64 KiB
 * 0.23/0.10/0.2/0.6 of the time, osu_reduce 8/16 KiB 0.38/0.22, a one-way
 * stream of 32 KiB messages 2.2 against 5.6 us a message; but osu_bw 1-8
 * KiB 0.50-0.75 of the bandwidth, osu_reduce 1-4 KiB 1.2-1.9 times the
 * time. At 8 KiB, clearing against not: osu_latency 0.75 of the time and
 * osu_bw 1.98 times the bandwidth (the latency goal covers 8 KiB), for
 * osu_bcast 4.4 and osu_reduce 1.35 times the time. */
static bool needs_clearing(const producer_t *p)
{
    if (p->reserved <= CLEARED_RECORD_BYTES)
        return true;
    const char *record = p->ring->data + (p->head & (ring_bytes - 1));
    for (size_t off = LINE; off < p->reserved; off += LINE) {
        uint64_t word = *(const uint64_t *)(record + off) & ~SEAL_CLEAR;
        uint64_t position = p->head + off;
        if (word > position + 1 && ((word - position - 1) & (ring_bytes - 1)) == 0)
            return true;
    }
    return false;
}

/* Asks for a line ahead of its use. An asm statement on x86-64, as GCC 12
 * at -O2 dropped the __builtin_prefetch loop of prefetch_awaited_record. */
static inline void prefetch_for_write(const void *line)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetchw (%0)" : : "r"(line)); /* a no-op where unsupported */
#else
    __builtin_prefetch(line, 1, 3);
#endif
}

static inline void prefetch_for_read(const void *line)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetcht0 (%0)" : : "r"(line));
#else
    __builtin_prefetch(line, 0, 3);
#endif
}

/* A producer that streams (its second record or more since it last
 * consumed one from that peer) asks now for the lines of the record after
 * the next, taken to be of the same size. Each store into the ring would
 * otherwise wait for its line to come back from the consumer, whose reads
 * or clears of the last lap left it there, and the stores of the next
 * messages queue behind it: with the receiver polling, 64 Isends of 8 B
 * took 210 ns a message against 130 with the receiver asleep outside MPI,
 * and 100-125 prefetched. The next record's first line is left alone: a
 * consumer that has caught up polls it, and would take it back at once.
 * Not in a ping-pong, where the consumer polls each line before it is
 * written and a prefetched line travels twice more (osu_latency 1-16 B
 * took 1.3 times the time), nor for records of more than 4 lines (osu_bw
 * 256 B 0.7-0.9 of the bandwidth). 2 ranks, medians of 5 alternating runs:
 * osu_bw 1-64 B 1.7-1.9 times the bandwidth, osu_bibw 1.55-1.85, osu_bcast
 * 8-128 B 0.33-0.67 of the time, osu_reduce 0.37-0.56. */
enum { PREFETCH_LINES_MAX = 4 };
static void prefetch_next_record(const producer_t *p)
{
    if (p->reserved > PREFETCH_LINES_MAX * LINE)
        return;
    for (size_t off = p->reserved; off < 2 * p->reserved; off += LINE)
        prefetch_for_write(p->ring->data + ((p->head + off) & (ring_bytes - 1)));
}

/* The seal must be visible before the look at the sleepers, as the
 * sleeper's count is before its last look at the rings, or a sleeper
 * misses the record. A full barrier here costs each record the wait for
 * every store before it (lines the consumer owns): half a sender's time in
 * a stream of 8-byte messages. Where every rank registered for membarrier,
 * the sleeper pays instead, when it goes to sleep: its membarrier makes
 * every producer's earlier stores visible, or their later looks see it. */
bool ol_ring_publish(int peer, const ol_ring_envelope_t *envelope)
{
    producer_t *p = &producers[peer];
    record_t *r = (record_t *)(p->ring->data + (p->head & (ring_bytes - 1)));
    r->envelope = *envelope;
    int32_t *sleepers = &header_of(peer)->sleepers;
    uint64_t seal = (p->head + 1) | (needs_clearing(p) ? SEAL_CLEAR : 0);
    p->head += p->reserved;
    if (++p->unanswered >= 2)
        prefetch_next_record(p);
    if (asymmetric_fence) {
        __atomic_store_n(&r->seal, seal, __ATOMIC_RELEASE);
        return __atomic_load_n(sleepers, __ATOMIC_RELAXED) > 0;
    }
    __atomic_exchange_n(&r->seal, seal, __ATOMIC_SEQ_CST);
    return __atomic_load_n(sleepers, __ATOMIC_SEQ_CST) > 0;
}

/* ---- consumer ----------------------------------------------------------- */

static record_t *record_at(const consumer_t *c)
{
    return (record_t *)(c->ring->data + (c->tail & (ring_bytes - 1)));
}

/* Whether the record at position is whole (its seal written last). */
static bool sealed_at(const consumer_t *c, uint64_t position)
{
    const record_t *r = (const record_t *)(c->ring->data + (position & (ring_bytes - 1)));
    return (__atomic_load_n(&r->seal, __ATOMIC_ACQUIRE) & ~SEAL_CLEAR) == position + 1;
}

/* Where the records not yet looked at begin: past the messages that
 * ol_ring_scan passed. */
static uint64_t unscanned(const consumer_t *c)
{
    return c->scanned > c->tail ? c->scanned : c->tail;
}

/* Hands a record's lines back, cleared first where its producer said so.
 * Returns whether the producer sleeps until the room this made: the
 * caller wakes it. The new position must be visible before the look at
 * the producer's wish, as the wish is before the producer's last look at
 * the position (ol_ring_want_room): where every rank registered for
 * membarrier, the sleeper's fence orders both, as in ol_ring_publish. */
static bool release_record(consumer_t *c, size_t bytes)
{
    char *start = c->ring->data + (c->tail & (ring_bytes - 1));
    if (((record_t *)start)->seal & SEAL_CLEAR)
        for (size_t off = 0; off < bytes; off += LINE)
            *(uint64_t *)(start + off) = 0;
    c->tail += bytes;
    uint64_t wake_at;
    if (asymmetric_fence) {
        __atomic_store_n(&c->ring->tail, c->tail, __ATOMIC_RELEASE);
        wake_at = __atomic_load_n(&c->ring->wake_at_tail, __ATOMIC_RELAXED);
    } else {
        __atomic_exchange_n(&c->ring->tail, c->tail, __ATOMIC_SEQ_CST);
        wake_at = __atomic_load_n(&c->ring->wake_at_tail, __ATOMIC_SEQ_CST);
    }
    return wake_at != 0 && c->tail >= wake_at &&
           __atomic_compare_exchange_n(&c->ring->wake_at_tail, &wake_at, 0, false,
                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* A consumer that waits for a record of several lines, as the last one
 * from that peer was, reads the lines after the first while it polls the
 * first for the seal: they come as the producer writes them, not one after
 * the other once the seal is seen. 2 ranks, medians of 5 alternating runs:
 * osu_latency 32-512 B 0.80-0.87 of the time. Not for records of more than
 * 9 lines (1-2 KiB took 1.35-1.5 times the time: the reads take lines from
 * a producer still copying into them), nor while this rank streams to that
 * peer itself (osu_bibw 32-256 B 0.79-0.89 of the bandwidth). */
enum { AWAITED_LINES_MAX = 9 };
static void prefetch_awaited_record(int peer, const consumer_t *c)
{
    size_t lines = c->last_record_bytes / LINE;
    if (lines > AWAITED_LINES_MAX || producers[peer].unanswered > 1)
        return;
    for (size_t k = 1; k < lines; k++)
        prefetch_for_read(c->ring->data + ((c->tail + k * LINE) & (ring_bytes - 1)));
}

const ol_ring_envelope_t *ol_ring_peek(int peer, const void **payload)
{
    consumer_t *c = &consumers[peer];
    record_t *r = record_at(c);
    if (!sealed_at(c, c->tail)) {
        prefetch_awaited_record(peer, c);
        return NULL;
    }
    if (r->envelope.kind == OL_RING_WRAP) {
        /* no wake: the record after a wrap is published with it */
        release_record(c, sizeof(record_t) + r->envelope.bytes);
        r = record_at(c);
        if (!sealed_at(c, c->tail))
            return NULL;
    }
    *payload = r + 1;
    return &r->envelope;
}

bool ol_ring_consume(int peer)
{
    producers[peer].unanswered = 0;
    consumer_t *c = &consumers[peer];
    const record_t *r = record_at(c);
    c->last_record_bytes = round_to_line(sizeof(record_t) + ol_ring_payload_bytes(&r->envelope));
    return release_record(c, c->last_record_bytes);
}

bool ol_ring_any_pending(bool past_scanned)
{
    for (int r = 0; r < ol_rt.size; r++) {
        const consumer_t *c = &consumers[r];
        if (sealed_at(c, past_scanned ? unscanned(c) : c->tail))
            return true;
    }
    return false;
}

/* Walks the records the producer has published as the consumer will: a
 * record ahead of the oldest is read only once its seal says it is whole,
 * and no old word passes for a seal there either (see needs_clearing: such
 * a word would pass on a later lap of its line, and every unwritten line
 * ahead holds words of earlier laps). */
bool ol_ring_scan(int peer, unsigned *messages)
{
    consumer_t *c = &consumers[peer];
    uint64_t at = unscanned(c);
    *messages = 0;
    while (sealed_at(c, at)) {
        const record_t *r = (const record_t *)(c->ring->data + (at & (ring_bytes - 1)));
        if (r->envelope.kind == OL_RING_WRAP) {
            at += sizeof(record_t) + r->envelope.bytes;
            continue;
        }
        if (!ol_ring_is_message(&r->envelope)) {
            c->scanned = at;
            return true;
        }
        (*messages)++;
        at += round_to_line(sizeof(record_t) + ol_ring_payload_bytes(&r->envelope));
    }
    c->scanned = at;
    return false;
}

bool ol_ring_oldest_scanned(int peer)
{
    const consumer_t *c = &consumers[peer];
    return c->scanned > c->tail;
}

void ol_ring_count_wake(int peer)
{
    __atomic_add_fetch(&header_of(peer)->wakes_sent, 1, __ATOMIC_RELAXED);
}

uint64_t ol_ring_wakes_sent_here(void)
{
    return __atomic_load_n(&header_of(ol_rt.rank)->wakes_sent, __ATOMIC_RELAXED);
}

bool ol_ring_sleep_begin(void)
{
    __atomic_add_fetch(&header_of(ol_rt.rank)->sleepers, 1, __ATOMIC_SEQ_CST);
    return !asymmetric_fence || membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0;
}

/* A wish stays until its consumer answers it, also when the producer
 * woke for something else: taking it back would race with a second
 * sleeping thread's, and answering a stale one costs one wake-up. */
void ol_ring_want_room(int peer, size_t bytes)
{
    uint64_t end = record_end(&producers[peer], bytes);
    /* 0 (no wish) for a record that fits whatever the position */
    __atomic_store_n(&producers[peer].ring->wake_at_tail, end > ring_bytes ? end - ring_bytes : 0,
                     __ATOMIC_RELAXED);
}

void ol_ring_sleep_end(void)
{
    __atomic_sub_fetch(&header_of(ol_rt.rank)->sleepers, 1, __ATOMIC_SEQ_CST);
}
