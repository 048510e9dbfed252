/* A fake CUDA driver (libcuda.so.1) for tests on machines without a GPU.
 *
 * TEST DOUBLE: built only for `make check`, never installed, never to be
 * used outside the test suite. README.md describes its contract.
 *
 * What it models, and why:
 * - Device memory is a shared-memory file (memfd) mapped twice: PROT_NONE at
 *   the address the program gets (inside one big reserved range, so it
 *   looks like a UVA device address and host malloc never lands there),
 *   and read-write at a private alias that only this file uses. A host
 *   load or store through a device pointer therefore crashes, as on a GPU.
 * - Another process maps the same file for CUDA IPC, so data written by
 *   one process is seen by the other.
 * - Work on streams is deferred (FAKE_CUDA_ASYNC, default 1): copies that a
 *   real GPU runs asynchronously happen only when the program synchronises
 *   (stream or event synchronise, an event query that reports completion,
 *   a synchronous call), and an event query first answers NOT_READY. A
 *   program that reads a result without waiting for it reads stale data.
 * - Kernels are the ol_reduce_* families, run on the host on the aliases
 *   (fake_cuda_kernels.c); a pointer that is not device memory is a device
 *   fault: CUDA_ERROR_ILLEGAL_ADDRESS, sticky on the context.
 *
 * One mutex serialises every entry point: simplicity matters more than
 * speed here. */
#define _GNU_SOURCE
#include <cuda.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_cuda.h"

/* ==== objects ============================================================ */

/* A primary context (one per device, never freed: its handle is stable). */
struct CUctx_st {
    int device;
    int retains;            /* cuDevicePrimaryCtxRetain minus Release; 0: inactive */
    CUresult fault;         /* sticky device fault (e.g. ILLEGAL_ADDRESS), or SUCCESS */
    struct CUstream_st *legacy_stream;  /* NULL stream, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD */
};

/* What an interprocess event shares between the processes that hold it:
 * one page of a memfd, mapped by the owner (cuEventCreate with
 * CU_EVENT_INTERPROCESS) and by every process that opened its handle.
 * Generations count the owner's records; a waiter in another process asks
 * for one by raising `wanted`, and the owner's device thread runs the
 * owner's queued work up to that record (a GPU finishes work nobody waits
 * for too, but later than any test could rely on). */
typedef struct {
    uint64_t recorded;      /* generation of the owner's last cuEventRecord */
    uint64_t completed;     /* the last generation whose work is done */
    uint64_t wanted;        /* the last generation a waiter elsewhere needs */
    int32_t importers;      /* processes that have the event open */
} ipc_event_state_t;

/* Work a stream holds until the program synchronises with it. */
typedef struct pending_op {
    struct pending_op *next;
    uint64_t seq;           /* position in its stream */
    enum { OP_COPY, OP_SET8, OP_SET32, OP_KERNEL, OP_WAIT } kind;
    void *dst;              /* alias or host address; kernels: out */
    const void *src;
    size_t bytes;           /* copies and sets: bytes; kernels: elements */
    uint32_t value;
    fake_kernel_t kernel;
    void *ins[FAKE_KERNEL_MAX_INPUTS];
    int n_ins;
    const ipc_event_state_t *wait_for; /* OP_WAIT: the stream stops here until */
    uint64_t wait_generation;           /* wait_for->completed reaches this */
} pending_op_t;

struct CUstream_st {
    struct CUstream_st *next;   /* all streams */
    struct CUctx_st *ctx;
    bool blocking;          /* synchronises with the legacy stream */
    bool is_legacy;
    bool work_since_record; /* an event recorded now is not complete at once */
    pending_op_t *head, *tail;
    uint64_t enqueued;      /* seq of the last op queued */
    uint64_t done;          /* seq of the last op run */
};

struct CUevent_st {
    struct CUevent_st *next;    /* all events */
    struct CUctx_st *ctx;
    struct CUstream_st *stream; /* where it was last recorded; NULL: complete */
    uint64_t seq;           /* complete once stream->done reaches it */
    int not_ready_left;     /* queries still to answer NOT_READY */
    unsigned flags;         /* of cuEventCreate */
    ipc_event_state_t *shared;  /* interprocess events (own or opened); else NULL */
    int shared_fd;          /* own interprocess events: the memfd of `shared` */
    bool opened;            /* from cuIpcOpenEventHandle: another process records it */
    uint64_t generation;    /* own interprocess events: of the last record */
};

struct CUfunc_st {
    struct CUfunc_st *next;     /* all functions */
    struct CUmod_st *module;
    char name[64];
    fake_kernel_t kernel;
};

struct CUmod_st {
    struct CUmod_st *next;      /* all modules */
    struct CUctx_st *ctx;
};

/* How an allocation was made: it decides what legacy CUDA IPC accepts. */
typedef enum {
    KIND_DEVICE,            /* cuMemAlloc_v2: IPC-capable */
    KIND_POOL,              /* cuMemAllocAsync (the stream-ordered pool): no legacy IPC */
    KIND_MANAGED,           /* cuMemAllocManaged: host-accessible, no IPC */
} memory_kind_t;

/* Device memory: an allocation of this process, or another process's
 * allocation mapped through IPC. */
typedef struct device_range {
    struct device_range *next;  /* sorted by base */
    uintptr_t base;         /* PROT_NONE view the program sees */
    size_t size;            /* bytes asked for */
    size_t mapped;          /* size rounded up to pages */
    char *alias;            /* read-write view, for the fake only */
    int fd;                 /* own allocations: the memfd, kept for IPC export */
    uint64_t buffer_id;
    struct CUctx_st *ctx;
    bool imported;
    pid_t owner_pid;        /* imported: the exporter and its buffer id */
    uint64_t owner_buffer_id;
    int import_refs;
    memory_kind_t kind;
    bool outside;           /* not carved from the reservation: pool memory, placed allocations */
    /* The page after the data in the memfd, shared by the owner and every
     * importer: how many processes have the allocation open through IPC
     * (freeing it before they closed it is undefined on the real driver). */
    int32_t *ipc_importers;
    bool sync_memops;       /* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS (cuPointerSetAttribute) */
} device_range_t;

/* Addresses of freed allocations made outside the reservation, which the
 * fake keeps reserved (PROT_NONE) as a driver keeps address space it
 * reserved: pool memory until cuMemPoolTrimTo gives it back to the system
 * (a later pool allocation may reuse it first), placed allocations for
 * good. */
typedef struct retired_range {
    struct retired_range *next;
    uintptr_t base;
    size_t mapped;
    bool pool;
} retired_range_t;

/* Pinned host memory from cuMemHostAlloc. */
typedef struct host_block {
    struct host_block *next;
    char *base;
    size_t size, mapped;
    uint64_t buffer_id;
    struct CUctx_st *ctx;
} host_block_t;

/* What cuIpcGetMemHandle writes into the 64 opaque bytes. */
typedef struct {
    char magic[8];          /* "FAKECUDA" */
    int32_t owner_pid;
    int32_t fd;             /* the memfd in the owner: /proc/<pid>/fd/<fd> */
    uint64_t buffer_id;
    uint64_t size;
    unsigned char unused[32];
} ipc_handle_t;
_Static_assert(sizeof(ipc_handle_t) == CU_IPC_HANDLE_SIZE, "IPC handle is 64 bytes");

static const char ipc_magic[8] = {'F', 'A', 'K', 'E', 'C', 'U', 'D', 'A'};

/* ==== state ============================================================== */

#define RESERVED_VA_SIZE (64ull << 30)      /* device address space per process */
#define RESERVED_VA_HINT ((void *)0x200000000000ull)
#define MAX_FAIL_RULES 16

static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t config_once = PTHREAD_ONCE_INIT;
/* The calling thread's context stack: current_ctx is its top, below[] the
 * contexts pushed under it (cuCtxPushCurrent_v2, cuCtxCreate_v4). */
static _Thread_local struct CUctx_st *current_ctx;
#define MAX_CONTEXT_STACK 16
static _Thread_local struct {
    struct CUctx_st *below[MAX_CONTEXT_STACK];
    int depth;
} ctx_stack;

static struct {
    /* configuration (environment, read once) */
    bool trace;
    bool poison;
    int async_polls;        /* NOT_READY answers per event; 0: no deferral */
    int device_count;
    int driver_version;     /* what cuDriverGetVersion says, 13000 for 13.0 */
    int cc_major, cc_minor; /* every device's compute capability */
    struct { char name[64]; CUresult code; } fail[MAX_FAIL_RULES];
    int fail_rules;
    long fail_after;        /* matching calls that still succeed */
    bool ipc_strict;        /* FAKE_CUDA_IPC_STRICT: IPC misuse aborts */
    int ipc_max_open;       /* FAKE_CUDA_IPC_MAX_OPEN: more mappings open at once abort */

    /* state */
    bool initialized;
    bool forked;            /* a fork() child of an initialized process */
    size_t page;
    char *va_base;
    struct CUctx_st *contexts;
    uint64_t last_buffer_id;
    device_range_t *ranges;
    retired_range_t *retired;
    host_block_t *host_blocks;
    struct CUstream_st *streams;
    struct CUevent_st *events;
    struct CUmod_st *modules;
    struct CUfunc_st *functions;
    char pool;              /* its address is the device's default memory pool handle */
    struct { const char *name; unsigned long calls; } counts[96]; /* fake_cuda_call_count */
    int ipc_open;           /* other processes' allocations mapped here now */
    uint64_t ipc_events_made;   /* names the memfds of interprocess events */
} fake;

/* fake_cuda_place_next_allocation: where this thread's next device
 * allocation goes (0: the fake chooses). */
static _Thread_local uintptr_t place_next;

/* ==== configuration, tracing, failure injection ========================== */

static long env_long(const char *name, long fallback)
{
    const char *value = getenv(name);
    if (value == NULL || *value == '\0')
        return fallback;
    char *end;
    long n = strtol(value, &end, 10);
    return *end == '\0' ? n : fallback;
}

/* FAKE_CUDA_FAIL_RANKS=r[,r...]: FAKE_CUDA_FAIL applies only in the
 * processes of those ranks (OMPI_LITE_RANK, which the launcher sets), so a
 * test can make one rank's driver refuse what the others' accept. */
static bool failures_apply_here(void)
{
    const char *ranks = getenv("FAKE_CUDA_FAIL_RANKS");
    const char *mine = getenv("OMPI_LITE_RANK");
    if (ranks == NULL || *ranks == '\0')
        return true;
    if (mine == NULL || *mine == '\0')
        return false;
    for (const char *r = ranks; *r != '\0'; r += strcspn(r, ",") + (r[strcspn(r, ",")] == ',')) {
        size_t len = strcspn(r, ",");
        if (len == strlen(mine) && strncmp(r, mine, len) == 0)
            return true;
    }
    return false;
}

/* FAKE_CUDA_FAIL=name[:code][,name[:code]...] */
static void read_fail_rules(void)
{
    const char *spec = failures_apply_here() ? getenv("FAKE_CUDA_FAIL") : NULL;
    while (spec != NULL && *spec != '\0' && fake.fail_rules < MAX_FAIL_RULES) {
        size_t len = strcspn(spec, ",");
        char rule[sizeof fake.fail[0].name] = "";
        if (len < sizeof rule)
            memcpy(rule, spec, len);
        rule[len < sizeof rule ? len : 0] = '\0';
        char *colon = strchr(rule, ':');
        CUresult code = CUDA_ERROR_UNKNOWN;
        if (colon != NULL) {
            *colon = '\0';
            code = (CUresult)strtol(colon + 1, NULL, 10);
        }
        if (rule[0] != '\0') {
            strcpy(fake.fail[fake.fail_rules].name, rule);
            fake.fail[fake.fail_rules++].code = code;
        }
        spec += len + (spec[len] == ',');
    }
    fake.fail_after = env_long("FAKE_CUDA_FAIL_AFTER", 0);
}

static void at_fork_prepare(void) { pthread_mutex_lock(&fake_lock); }
static void at_fork_parent(void) { pthread_mutex_unlock(&fake_lock); }

/* CUDA cannot be used in a child forked after cuInit: the child's calls
 * fail, as with the real driver. (The mappings stay; a child may still
 * crash on a device pointer, which the self-test relies on.) */
static void at_fork_child(void)
{
    pthread_mutex_unlock(&fake_lock);
    fake.forked = fake.initialized;
    current_ctx = NULL;
}

/* FAKE_CUDA_CC=major.minor, e.g. 7.0 for a V100; 9.0 (an H100) otherwise. */
static void read_compute_capability(void)
{
    const char *cc = getenv("FAKE_CUDA_CC");
    fake.cc_major = 9;
    fake.cc_minor = 0;
    if (cc != NULL && sscanf(cc, "%d.%d", &fake.cc_major, &fake.cc_minor) != 2) {
        fprintf(stderr, "fake_cuda: FAKE_CUDA_CC=%s is not major.minor (e.g. 7.0)\n", cc);
        abort();
    }
}

static void read_config(void)
{
    fake.trace = env_long("FAKE_CUDA_TRACE", 0) != 0;
    fake.poison = env_long("FAKE_CUDA_POISON", 1) != 0;
    fake.async_polls = (int)env_long("FAKE_CUDA_ASYNC", 1);
    if (fake.async_polls < 0)
        fake.async_polls = 0;
    fake.device_count = (int)env_long("FAKE_CUDA_DEVICES", 1);
    if (fake.device_count < 0)
        fake.device_count = 0;
    fake.driver_version = (int)env_long("FAKE_CUDA_DRIVER_VERSION", CUDA_VERSION);
    read_compute_capability();
    fake.page = (size_t)sysconf(_SC_PAGESIZE);
    fake.ipc_strict = env_long("FAKE_CUDA_IPC_STRICT", 0) != 0;
    fake.ipc_max_open = (int)env_long("FAKE_CUDA_IPC_MAX_OPEN", 0);
    read_fail_rules();
    pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
}

/* A rule names an entry point exactly or without its _v2 suffix. */
static bool rule_matches(const char *rule, const char *fn)
{
    if (strcmp(rule, fn) == 0)
        return true;
    size_t len = strlen(rule);
    return strncmp(rule, fn, len) == 0 && strcmp(fn + len, "_v2") == 0;
}

static bool injected_failure(const char *fn, CUresult *code)
{
    for (int i = 0; i < fake.fail_rules; i++) {
        if (!rule_matches(fake.fail[i].name, fn))
            continue;
        if (fake.fail_after > 0) {
            fake.fail_after--;
            return false;
        }
        *code = fake.fail[i].code;
        return true;
    }
    return false;
}

static const char *error_name(CUresult rc);

static void trace(const char *fn, CUresult rc, const char *fmt, va_list args)
{
    char detail[256] = "";
    if (fmt != NULL)
        vsnprintf(detail, sizeof detail, fmt, args);
    const char *name = error_name(rc);
    fprintf(stderr, "fake_cuda[%d] %s(%s) = %s\n", (int)getpid(), fn, detail,
            name != NULL ? name : "?");
}

/* Every entry point runs between api_enter and api_leave: the lock, the
 * checks every call shares, failure injection and the trace. */
enum { NEED_NOTHING = 0, NEED_INIT = 1, NEED_CONTEXT = 2 };

static CUresult check_context(struct CUctx_st *ctx)
{
    if (ctx == NULL)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (ctx->retains == 0)
        return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    return ctx->fault;
}

/* Entry point names are string literals: one slot per distinct pointer. */
static void count_call(const char *fn)
{
    for (size_t i = 0; i < sizeof fake.counts / sizeof fake.counts[0]; i++) {
        if (fake.counts[i].name == NULL)
            fake.counts[i].name = fn;
        if (fake.counts[i].name == fn) {
            fake.counts[i].calls++;
            return;
        }
    }
}

static CUresult api_enter(const char *fn, unsigned needs)
{
    pthread_once(&config_once, read_config);
    pthread_mutex_lock(&fake_lock);
    count_call(fn);
    CUresult code;
    /* A forked child of an initialized process cannot use the driver: the
     * real one reports code 3 ("initialization error") there too. */
    if ((needs & (NEED_INIT | NEED_CONTEXT)) && (fake.forked || !fake.initialized))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (injected_failure(fn, &code))
        return code;
    if (needs & NEED_CONTEXT)
        return check_context(current_ctx);
    return CUDA_SUCCESS;
}

__attribute__((format(printf, 3, 4)))
static CUresult api_leave(const char *fn, CUresult rc, const char *fmt, ...)
{
    pthread_mutex_unlock(&fake_lock);
    if (fake.trace) {
        va_list args;
        va_start(args, fmt);
        trace(fn, rc, fmt, args);
        va_end(args);
    }
    return rc;
}

/* Also traced: why a call failed, when the code alone would not say. */
__attribute__((format(printf, 1, 2)))
static void trace_note(const char *fmt, ...)
{
    if (!fake.trace)
        return;
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "fake_cuda[%d]   note: ", (int)getpid());
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}

/* What the real driver documents as undefined for CUDA IPC (freeing memory
 * or an event that another process still has open): always said on
 * stderr, whatever FAKE_CUDA_TRACE is, and fatal with FAKE_CUDA_IPC_STRICT=1
 * so that a test fails where a GPU might corrupt data silently. */
__attribute__((format(printf, 1, 2)))
static void ipc_misuse(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, "fake_cuda[%d] IPC MISUSE: ", (int)getpid());
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    if (fake.ipc_strict) {
        fprintf(stderr, "fake_cuda[%d] aborting (FAKE_CUDA_IPC_STRICT=1)\n", (int)getpid());
        abort();
    }
}

/* ==== error names ======================================================== */

#define ERRORS(X)                                                               \
    X(CUDA_SUCCESS, "no error")                                                 \
    X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                             \
    X(CUDA_ERROR_OUT_OF_MEMORY, "out of device memory")                         \
    X(CUDA_ERROR_NOT_INITIALIZED, "driver not initialised (call cuInit first)") \
    X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                         \
    X(CUDA_ERROR_NO_DEVICE, "no CUDA device")                                   \
    X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                      \
    X(CUDA_ERROR_INVALID_IMAGE, "invalid kernel image")                         \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image for this device")          \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "PTX of an unsupported toolchain")    \
    X(CUDA_ERROR_INVALID_CONTEXT, "invalid or missing current context")         \
    X(CUDA_ERROR_MAP_FAILED, "mapping failed")                                  \
    X(CUDA_ERROR_ALREADY_MAPPED, "already mapped")                              \
    X(CUDA_ERROR_NOT_MAPPED, "not mapped")                                      \
    X(CUDA_ERROR_OPERATING_SYSTEM, "operating system call failed")              \
    X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                     \
    X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                           \
    X(CUDA_ERROR_NOT_READY, "work not finished yet")                            \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, "kernel accessed an illegal address")         \
    X(CUDA_ERROR_LAUNCH_FAILED, "kernel launch failed")                         \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context destroyed")                     \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, "kernel accessed a misaligned address")    \
    X(CUDA_ERROR_NOT_PERMITTED, "operation not permitted")                      \
    X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                      \
    X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "display and CUDA driver differ")      \
    X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "no forward compatibility here") \
    X(CUDA_ERROR_UNKNOWN, "unknown error")

static const struct { CUresult code; const char *name, *text; } error_table[] = {
#define ERROR_ENTRY(code, text) {code, #code, text},
    ERRORS(ERROR_ENTRY)
#undef ERROR_ENTRY
};

static const char *error_name(CUresult rc)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == rc)
            return error_table[i].name;
    return NULL;
}

static const char *error_text(CUresult rc)
{
    for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
        if (error_table[i].code == rc)
            return error_table[i].text;
    return NULL;
}

/* ==== device address space and memory ==================================== */

static size_t round_to_pages(size_t bytes)
{
    return (bytes + fake.page - 1) / fake.page * fake.page;
}

static bool in_reserved_range(uintptr_t addr)
{
    uintptr_t base = (uintptr_t)fake.va_base;
    return fake.va_base != NULL && addr >= base && addr - base < RESERVED_VA_SIZE;
}

/* One PROT_NONE reservation that device addresses are carved from: host
 * allocations never land there, and a freed device address stays
 * inaccessible until a later device allocation reuses it. */
static bool reserve_device_addresses(void)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    void *va = mmap(RESERVED_VA_HINT, RESERVED_VA_SIZE, PROT_NONE, flags, -1, 0);
    if (va == MAP_FAILED)
        return false;
    fake.va_base = va;
    return true;
}

/* First fit in address order: freed addresses are reused, as the real
 * driver does (a cache keyed by address must cope with that). */
static uintptr_t find_free_addresses(size_t len, device_range_t **prev_out)
{
    uintptr_t candidate = (uintptr_t)fake.va_base;
    uintptr_t end = candidate + RESERVED_VA_SIZE;
    device_range_t *prev = NULL;
    for (device_range_t *r = fake.ranges; r != NULL; prev = r, r = r->next) {
        if (r->base + r->mapped <= candidate)
            continue;   /* outside, below the reservation */
        if (r->base - candidate >= len)
            break;
        candidate = r->base + r->mapped;
    }
    *prev_out = prev;
    return end - candidate >= len ? candidate : 0;
}

/* The range that a new range at base follows in the sorted list. */
static device_range_t *range_before(uintptr_t base)
{
    device_range_t *prev = NULL;
    for (device_range_t *r = fake.ranges; r != NULL && r->base < base; r = r->next)
        prev = r;
    return prev;
}

static void insert_range(device_range_t *range, device_range_t *prev)
{
    device_range_t **link = prev != NULL ? &prev->next : &fake.ranges;
    range->next = *link;
    *link = range;
}

/* Maps the shared file twice: PROT_NONE at the device address, read-write
 * at the alias; and its header page (after the data) read-write. */
static CUresult map_views(device_range_t *range, int fd)
{
    range->alias = mmap(NULL, range->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (range->alias == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    range->ipc_importers = mmap(NULL, fake.page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                                (off_t)range->mapped);
    void *view = range->ipc_importers == MAP_FAILED
                     ? MAP_FAILED
                     : mmap((void *)range->base, range->mapped, PROT_NONE,
                            MAP_SHARED | MAP_FIXED, fd, 0);
    if (view == MAP_FAILED) {
        if (range->ipc_importers != MAP_FAILED)
            munmap(range->ipc_importers, fake.page);
        munmap(range->alias, range->mapped);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return CUDA_SUCCESS;
}

/* Puts the addresses back into the plain reservation. */
static void unmap_views(device_range_t *range)
{
    mmap((void *)range->base, range->mapped, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    munmap(range->alias, range->mapped);
    munmap(range->ipc_importers, fake.page);
}

static device_range_t *new_range(struct CUctx_st *ctx, size_t bytes)
{
    device_range_t *range = calloc(1, sizeof *range);
    if (range == NULL)
        return NULL;
    range->size = bytes;
    range->mapped = round_to_pages(bytes);
    range->ctx = ctx;
    range->fd = -1;
    range->buffer_id = ++fake.last_buffer_id;
    return range;
}

/* Device memory has no defined content on allocation: fill it with a
 * pattern so that code expecting zeros fails visibly. */
static void poison(void *memory, size_t bytes)
{
    if (fake.poison)
        memset(memory, 0xcb, bytes);
}

static retired_range_t *take_retired_pool_range(size_t len)
{
    for (retired_range_t **link = &fake.retired; *link != NULL; link = &(*link)->next) {
        retired_range_t *r = *link;
        if (r->pool && r->mapped >= len) {
            *link = r->next;
            return r;
        }
    }
    return NULL;
}

/* Address space outside the reservation, as a driver gets it from the
 * system: where the thread asked (only if nothing is mapped there), or, for
 * pool memory, what the pool kept of a freed allocation, else where the
 * system puts it. Sets range->base (0: none) and may grow range->mapped. */
static void reserve_outside(device_range_t *range)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
    retired_range_t *kept = place_next == 0 && range->kind == KIND_POOL
                                ? take_retired_pool_range(range->mapped) : NULL;
    range->outside = true;
    range->base = 0;
    if (kept != NULL) {
        range->base = kept->base;
        range->mapped = kept->mapped;
        free(kept);
        return;
    }
    void *want = (void *)place_next;
    void *va = mmap(want, range->mapped, PROT_NONE,
                    flags | (want != NULL ? MAP_FIXED_NOREPLACE : 0), -1, 0);
    if (va != MAP_FAILED && want != NULL && va != want) {
        munmap(va, range->mapped);      /* a kernel that took the address as a hint */
        va = MAP_FAILED;
    }
    if (va == MAP_FAILED)
        trace_note("cannot reserve %zu bytes at %p: %s", range->mapped, want, strerror(errno));
    else
        range->base = (uintptr_t)va;
}

static CUresult allocate_device(struct CUctx_st *ctx, size_t bytes, memory_kind_t kind,
                                device_range_t **out)
{
    device_range_t *prev, *range = new_range(ctx, bytes);
    if (range == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    range->kind = kind;
    if (place_next != 0 || kind == KIND_POOL) {
        reserve_outside(range);
        place_next = 0;
        prev = range_before(range->base);
    } else {
        range->base = find_free_addresses(range->mapped, &prev);
    }
    char name[64];
    snprintf(name, sizeof name, "fake_cuda.%d.%" PRIu64, (int)getpid(), range->buffer_id);
    range->fd = range->base != 0 ? memfd_create(name, MFD_CLOEXEC) : -1;
    if (range->fd < 0 || ftruncate(range->fd, (off_t)(range->mapped + fake.page)) != 0 ||
        map_views(range, range->fd) != CUDA_SUCCESS) {
        if (range->fd >= 0)
            close(range->fd);
        if (range->outside && range->base != 0)
            munmap((void *)range->base, range->mapped);
        free(range);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    poison(range->alias, bytes);
    insert_range(range, prev);
    *out = range;
    return CUDA_SUCCESS;
}

static void release_range(device_range_t *range)
{
    if (range->imported) {
        __atomic_sub_fetch(range->ipc_importers, 1, __ATOMIC_ACQ_REL);
        fake.ipc_open--;
    }
    device_range_t **link = &fake.ranges;
    while (*link != range)
        link = &(*link)->next;
    *link = range->next;
    unmap_views(range);
    if (range->fd >= 0)
        close(range->fd);
    retired_range_t *retired = range->outside ? malloc(sizeof *retired) : NULL;
    if (retired != NULL) {
        *retired = (retired_range_t){fake.retired, range->base, range->mapped,
                                     range->kind == KIND_POOL};
        fake.retired = retired;
    }
    free(range);
}

static retired_range_t *find_retired(uintptr_t addr)
{
    for (retired_range_t *r = fake.retired; r != NULL; r = r->next)
        if (addr >= r->base && addr - r->base < r->mapped)
            return r;
    return NULL;
}

/* The live device range holding addr (within the bytes asked for). */
static device_range_t *find_range(uintptr_t addr)
{
    for (device_range_t *r = fake.ranges; r != NULL; r = r->next)
        if (addr >= r->base && addr - r->base < r->size)
            return r;
    return NULL;
}

static host_block_t *find_host_block(uintptr_t addr)
{
    for (host_block_t *h = fake.host_blocks; h != NULL; h = h->next)
        if (addr >= (uintptr_t)h->base && addr - (uintptr_t)h->base < h->size)
            return h;
    return NULL;
}

/* Where a copy's end lies and how the fake reaches it. */
typedef enum { MEM_PAGEABLE, MEM_PINNED, MEM_DEVICE } mem_kind_t;
typedef struct {
    mem_kind_t kind;
    char *access;           /* alias for device memory, the address itself for host */
    device_range_t *range;  /* device memory: its allocation */
} located_t;

/* Device memory must hold all `bytes`; an address in the device range that
 * is not live memory (freed, or past an allocation's end) is an error, as
 * it is for the real driver. */
static CUresult locate(CUdeviceptr ptr, size_t bytes, located_t *loc)
{
    uintptr_t addr = (uintptr_t)ptr;
    device_range_t *range = find_range(addr);
    if (range != NULL) {
        if (bytes > range->base + range->size - addr) {
            trace_note("%zu bytes at %#" PRIxPTR " overrun the allocation [%#" PRIxPTR
                       ", +%zu)", bytes, addr, range->base, range->size);
            return CUDA_ERROR_INVALID_VALUE;
        }
        loc->kind = MEM_DEVICE;
        loc->access = range->alias + (addr - range->base);
        loc->range = range;
        return CUDA_SUCCESS;
    }
    if (in_reserved_range(addr) || find_retired(addr) != NULL) {
        trace_note("%#" PRIxPTR " is not live device memory (freed?)", addr);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (addr == 0)
        return CUDA_ERROR_INVALID_VALUE;
    host_block_t *block = find_host_block(addr);
    bool pinned = block != NULL && bytes <= (uintptr_t)block->base + block->size - addr;
    loc->kind = pinned ? MEM_PINNED : MEM_PAGEABLE;
    loc->access = (char *)addr;
    loc->range = NULL;
    return CUDA_SUCCESS;
}

/* ==== streams and deferred work ========================================== */

static void run_op(const pending_op_t *op)
{
    switch (op->kind) {
    case OP_COPY:
        memmove(op->dst, op->src, op->bytes);
        break;
    case OP_SET8:
        memset(op->dst, (int)op->value, op->bytes);
        break;
    case OP_SET32:
        for (size_t i = 0; i < op->bytes / 4; i++)
            memcpy((char *)op->dst + 4 * i, &op->value, 4);
        break;
    case OP_KERNEL:
        op->kernel.loop(op->kernel.op, op->dst, op->ins, op->n_ins, op->bytes);
        break;
    case OP_WAIT:   /* nothing to run once the other process's work is done */
        break;
    }
}

static bool generation_done(const ipc_event_state_t *state, uint64_t generation)
{
    return __atomic_load_n(&state->completed, __ATOMIC_ACQUIRE) >= generation;
}

/* Waits until another process finished the work of an event's record,
 * with the lock released meanwhile: this process's device thread may have
 * to serve that process in turn. Callers must look again at whatever they
 * found under the lock. */
static void wait_for_generation(const ipc_event_state_t *state, uint64_t generation)
{
    while (!generation_done(state, generation)) {
        pthread_mutex_unlock(&fake_lock);
        usleep(100);
        pthread_mutex_lock(&fake_lock);
    }
}

/* The stream's own interprocess events that its work has caught up with
 * are complete in every process that opened them. */
static void publish_completions(const struct CUstream_st *s)
{
    for (struct CUevent_st *e = fake.events; e != NULL; e = e->next) {
        if (e->stream != s || e->seq > s->done)
            continue;
        e->not_ready_left = 0;
        if (e->shared != NULL && !e->opened &&
            __atomic_load_n(&e->shared->completed, __ATOMIC_ACQUIRE) < e->generation)
            __atomic_store_n(&e->shared->completed, e->generation, __ATOMIC_RELEASE);
    }
}

/* Runs the stream's work up to seq; events it completes stop answering
 * NOT_READY (the GPU has caught up with them). A wait for another
 * process's event (OP_WAIT) holds the stream there: with `block`, until
 * that process's work is done (the lock released meanwhile), else this
 * returns with the stream stopped. Returns true when the lock was
 * released, so that callers walking a list start again. */
static bool run_stream(struct CUstream_st *s, uint64_t up_to, bool block)
{
    bool released = false;
    while (s->head != NULL && s->head->seq <= up_to) {
        pending_op_t *op = s->head;
        if (op->kind == OP_WAIT && !generation_done(op->wait_for, op->wait_generation)) {
            if (!block)
                break;
            wait_for_generation(op->wait_for, op->wait_generation);
            released = true;
            continue;   /* another thread may have run it meanwhile */
        }
        run_op(op);
        s->done = op->seq;
        s->head = op->next;
        free(op);
    }
    if (s->head == NULL) {
        s->tail = NULL;
        s->done = s->enqueued;
    }
    publish_completions(s);
    return released;
}

static bool drain_stream(struct CUstream_st *s, uint64_t up_to)
{
    return run_stream(s, up_to, true);
}

static bool drain_all(struct CUstream_st *s) { return drain_stream(s, s->enqueued); }

static void drain_context(struct CUctx_st *ctx)
{
    struct CUstream_st *s = fake.streams;
    while (s != NULL) {
        bool released = s->ctx == ctx && drain_all(s);
        s = released ? fake.streams : s->next;  /* the list may have changed */
    }
}

/* The legacy stream waits for all blocking streams and they wait for it:
 * before work joins one side, the other side's earlier work is done. */
static void order_against_legacy(struct CUstream_st *s)
{
    if (!s->is_legacy) {
        if (s->blocking)
            drain_all(s->ctx->legacy_stream);
        return;
    }
    struct CUstream_st *other = fake.streams;
    while (other != NULL) {
        bool released = other->ctx == s->ctx && other->blocking && !other->is_legacy &&
                        drain_all(other);
        other = released ? fake.streams : other->next;
    }
}

/* Queues op, or runs it now when deferral is off; takes ownership. */
static void submit(struct CUstream_st *s, pending_op_t *op)
{
    order_against_legacy(s);
    s->work_since_record = true;
    if (fake.async_polls == 0) {
        drain_all(s);
        if (op->kind == OP_WAIT)
            wait_for_generation(op->wait_for, op->wait_generation);
        run_op(op);
        free(op);
        return;
    }
    op->seq = ++s->enqueued;
    op->next = NULL;
    if (s->tail != NULL)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
}

/* Runs op now, after everything before it on s (pageable host memory and
 * synchronous calls work that way on the real driver). */
static void run_now(struct CUstream_st *s, const pending_op_t *op)
{
    order_against_legacy(s);
    s->work_since_record = true;
    drain_all(s);
    run_op(op);
}

static struct CUstream_st *new_stream(struct CUctx_st *ctx, bool blocking, bool is_legacy)
{
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    s->ctx = ctx;
    s->blocking = blocking;
    s->is_legacy = is_legacy;
    s->next = fake.streams;
    fake.streams = s;
    return s;
}

static void forget_stream(struct CUstream_st *s)
{
    drain_all(s);
    for (struct CUevent_st *e = fake.events; e != NULL; e = e->next)
        if (e->stream == s)
            e->stream = NULL;
    struct CUstream_st **link = &fake.streams;
    while (*link != s)
        link = &(*link)->next;
    *link = s->next;
    free(s);
}

static bool is_default_stream(CUstream h)
{
    return h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD;
}

/* A stream handle of the current context (the default handles name its
 * legacy stream); NULL when the handle is not a live stream of it. */
static struct CUstream_st *resolve_stream(CUstream h)
{
    if (is_default_stream(h))
        return current_ctx != NULL ? current_ctx->legacy_stream : NULL;
    for (struct CUstream_st *s = fake.streams; s != NULL; s = s->next)
        if (s == h && !s->is_legacy)
            return s->ctx == current_ctx ? s : NULL;
    return NULL;
}

static struct CUevent_st *find_event(CUevent h)
{
    for (struct CUevent_st *e = fake.events; e != NULL; e = e->next)
        if (e == h)
            return e;
    return NULL;
}

static bool event_complete(const struct CUevent_st *e)
{
    return e->stream == NULL || e->stream->done >= e->seq;
}

/* ==== contexts =========================================================== */

static struct CUctx_st *find_created_context(CUcontext h);
static void set_current(struct CUctx_st *ctx);
static void forget_event(struct CUevent_st *e);

static struct CUctx_st *find_context(CUcontext h)
{
    for (int d = 0; d < fake.device_count; d++)
        if (&fake.contexts[d] == h)
            return h;
    return find_created_context(h);
}

/* Releasing the last reference resets a primary context: its memory,
 * streams, events and modules are gone, as with the real driver. */
static void reset_context(struct CUctx_st *ctx)
{
    drain_context(ctx);
    for (device_range_t *r = fake.ranges, *next; r != NULL; r = next) {
        next = r->next;
        if (r->ctx == ctx)
            release_range(r);
    }
    for (host_block_t **link = &fake.host_blocks; *link != NULL;) {
        host_block_t *h = *link;
        if (h->ctx != ctx) {
            link = &h->next;
            continue;
        }
        *link = h->next;
        munmap(h->base, h->mapped);
        free(h);
    }
    for (struct CUevent_st **link = &fake.events; *link != NULL;) {
        struct CUevent_st *e = *link;
        if (e->ctx != ctx) {
            link = &e->next;
            continue;
        }
        *link = e->next;
        forget_event(e);    /* the context is drained: this does not wait */
        free(e);
    }
    for (struct CUstream_st *s = fake.streams, *next; s != NULL; s = next) {
        next = s->next;
        if (s->ctx == ctx && !s->is_legacy)
            forget_stream(s);
    }
    for (struct CUfunc_st **link = &fake.functions; *link != NULL;) {
        struct CUfunc_st *f = *link;
        if (f->module->ctx != ctx) {
            link = &f->next;
            continue;
        }
        *link = f->next;
        free(f);
    }
    for (struct CUmod_st **link = &fake.modules; *link != NULL;) {
        struct CUmod_st *m = *link;
        if (m->ctx != ctx) {
            link = &m->next;
            continue;
        }
        *link = m->next;
        free(m);
    }
    ctx->fault = CUDA_SUCCESS;
}

/* ==== entry points: driver, devices, contexts ============================ */

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    CUresult rc = api_enter("cuInit", NEED_NOTHING);
    if (rc != CUDA_SUCCESS)
        return api_leave("cuInit", rc, "%u", Flags);
    if (fake.forked)
        rc = CUDA_ERROR_NOT_INITIALIZED;
    else if (Flags != 0)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (fake.device_count == 0)
        rc = CUDA_ERROR_NO_DEVICE;
    else if (!fake.initialized) {
        fake.contexts = calloc((size_t)fake.device_count, sizeof *fake.contexts);
        if (fake.contexts == NULL || !reserve_device_addresses())
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        for (int d = 0; rc == CUDA_SUCCESS && d < fake.device_count; d++) {
            fake.contexts[d].device = d;
            fake.contexts[d].legacy_stream = new_stream(&fake.contexts[d], true, true);
            if (fake.contexts[d].legacy_stream == NULL)
                rc = CUDA_ERROR_OUT_OF_MEMORY;
        }
        fake.initialized = rc == CUDA_SUCCESS;
    }
    return api_leave("cuInit", rc, "%u", Flags);
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    CUresult rc = api_enter("cuDriverGetVersion", NEED_NOTHING);
    if (rc == CUDA_SUCCESS && driverVersion == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *driverVersion = fake.driver_version;
    return api_leave("cuDriverGetVersion", rc, NULL);
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    CUresult rc = api_enter("cuGetErrorString", NEED_NOTHING);
    if (rc == CUDA_SUCCESS && pStr == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        *pStr = error_text(error);
        if (*pStr == NULL)
            rc = CUDA_ERROR_INVALID_VALUE;
    }
    return api_leave("cuGetErrorString", rc, "%d", (int)error);
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    CUresult rc = api_enter("cuGetErrorName", NEED_NOTHING);
    if (rc == CUDA_SUCCESS && pStr == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        *pStr = error_name(error);
        if (*pStr == NULL)
            rc = CUDA_ERROR_INVALID_VALUE;
    }
    return api_leave("cuGetErrorName", rc, "%d", (int)error);
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    CUresult rc = api_enter("cuDeviceGetCount", NEED_INIT);
    if (rc == CUDA_SUCCESS && count == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *count = fake.device_count;
    return api_leave("cuDeviceGetCount", rc, NULL);
}

static bool valid_device(CUdevice dev) { return dev >= 0 && dev < fake.device_count; }

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult rc = api_enter("cuDeviceGet", NEED_INIT);
    if (rc == CUDA_SUCCESS && device == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && !valid_device(ordinal))
        rc = CUDA_ERROR_INVALID_DEVICE;
    if (rc == CUDA_SUCCESS)
        *device = ordinal;
    return api_leave("cuDeviceGet", rc, "ordinal=%d", ordinal);
}

/* Device d sits on PCI bus 0x41 + d: a made-up but well-formed address. */
static int pci_bus_of(CUdevice dev) { return 0x41 + dev; }

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult rc = api_enter("cuDeviceGetPCIBusId", NEED_INIT);
    if (rc == CUDA_SUCCESS && (pciBusId == NULL || len <= 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && !valid_device(dev))
        rc = CUDA_ERROR_INVALID_DEVICE;
    if (rc == CUDA_SUCCESS)
        snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", pci_bus_of(dev));
    return api_leave("cuDeviceGetPCIBusId", rc, "dev=%d -> %s", dev,
                     rc == CUDA_SUCCESS ? pciBusId : "");
}

/* A plausible recent GPU of compute capability FAKE_CUDA_CC; attributes
 * not listed read 0 (the fake has no managed memory, memory pools or VMM,
 * so those say "unsupported"). */
static int device_attribute(CUdevice_attribute attrib, CUdevice dev)
{
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return INT_MAX;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 8;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return fake.cc_major;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return fake.cc_minor;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: return 1;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: return 2;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: return pci_bus_of(dev);
    default: return 0;
    }
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult rc = api_enter("cuDeviceGetAttribute", NEED_INIT);
    if (rc == CUDA_SUCCESS && (pi == NULL || attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX))
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && !valid_device(dev))
        rc = CUDA_ERROR_INVALID_DEVICE;
    if (rc == CUDA_SUCCESS)
        *pi = device_attribute(attrib, dev);
    return api_leave("cuDeviceGetAttribute", rc, "attrib=%d dev=%d -> %d", (int)attrib, dev,
                     rc == CUDA_SUCCESS ? *pi : 0);
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult rc = api_enter("cuDevicePrimaryCtxRetain", NEED_INIT);
    if (rc == CUDA_SUCCESS && pctx == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && !valid_device(dev))
        rc = CUDA_ERROR_INVALID_DEVICE;
    if (rc == CUDA_SUCCESS) {
        fake.contexts[dev].retains++;
        *pctx = &fake.contexts[dev];
    }
    return api_leave("cuDevicePrimaryCtxRetain", rc, "dev=%d -> %p retains=%d", dev,
                     rc == CUDA_SUCCESS ? (void *)*pctx : NULL,
                     rc == CUDA_SUCCESS ? fake.contexts[dev].retains : 0);
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult rc = api_enter("cuDevicePrimaryCtxRelease_v2", NEED_INIT);
    if (rc == CUDA_SUCCESS && !valid_device(dev))
        rc = CUDA_ERROR_INVALID_DEVICE;
    else if (rc == CUDA_SUCCESS && fake.contexts[dev].retains == 0)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS && --fake.contexts[dev].retains == 0)
        reset_context(&fake.contexts[dev]);
    return api_leave("cuDevicePrimaryCtxRelease_v2", rc, "dev=%d", dev);
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx)
{
    CUresult rc = api_enter("cuCtxGetCurrent", NEED_INIT);
    if (rc == CUDA_SUCCESS && pctx == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *pctx = current_ctx;
    return api_leave("cuCtxGetCurrent", rc, "-> %p", (void *)current_ctx);
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    CUresult rc = api_enter("cuCtxSetCurrent", NEED_INIT);
    if (rc == CUDA_SUCCESS && ctx != NULL && find_context(ctx) == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS)
        set_current(ctx);
    return api_leave("cuCtxSetCurrent", rc, "%p", (void *)ctx);
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
    CUresult rc = api_enter("cuCtxGetDevice", NEED_CONTEXT);
    if (rc == CUDA_SUCCESS && device == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        *device = current_ctx->device;
    return api_leave("cuCtxGetDevice", rc, NULL);
}

/* ==== entry points: the context stack and the program's own contexts ====== */

/* cuCtxSetCurrent replaces the top of the stack; NULL pops it, as the
 * real driver documents. */
static void set_current(struct CUctx_st *ctx)
{
    if (ctx == NULL && ctx_stack.depth > 0)
        current_ctx = ctx_stack.below[--ctx_stack.depth];
    else
        current_ctx = ctx;
}

static CUresult push_current(struct CUctx_st *ctx)
{
    if (current_ctx != NULL) {
        if (ctx_stack.depth == MAX_CONTEXT_STACK) {
            trace_note("the context stack is full (%d)", MAX_CONTEXT_STACK);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        ctx_stack.below[ctx_stack.depth++] = current_ctx;
    }
    current_ctx = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx)
{
    CUresult rc = api_enter("cuCtxPushCurrent_v2", NEED_INIT);
    if (rc == CUDA_SUCCESS && find_context(ctx) == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS)
        rc = push_current(ctx);
    return api_leave("cuCtxPushCurrent_v2", rc, "%p depth=%d", (void *)ctx, ctx_stack.depth);
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext *pctx)
{
    CUresult rc = api_enter("cuCtxPopCurrent_v2", NEED_INIT);
    struct CUctx_st *popped = current_ctx;
    if (rc == CUDA_SUCCESS && popped == NULL)
        rc = CUDA_ERROR_INVALID_CONTEXT;
    if (rc == CUDA_SUCCESS) {
        current_ctx = ctx_stack.depth > 0 ? ctx_stack.below[--ctx_stack.depth] : NULL;
        if (pctx != NULL)
            *pctx = popped;
    }
    return api_leave("cuCtxPopCurrent_v2", rc, "-> %p, now %p", (void *)popped,
                     (void *)current_ctx);
}

/* Contexts of cuCtxCreate_v4: what a program that manages its own
 * contexts uses instead of the primary ones; their memory is theirs. */
#define MAX_CREATED_CONTEXTS 64
static struct CUctx_st *created_contexts[MAX_CREATED_CONTEXTS];

static struct CUctx_st *find_created_context(CUcontext h)
{
    for (int i = 0; h != NULL && i < MAX_CREATED_CONTEXTS; i++)
        if (created_contexts[i] == h)
            return h;
    return NULL;
}

static CUresult create_context(CUdevice dev, struct CUctx_st **out)
{
    int slot = 0;
    while (slot < MAX_CREATED_CONTEXTS && created_contexts[slot] != NULL)
        slot++;
    struct CUctx_st *ctx = slot < MAX_CREATED_CONTEXTS ? calloc(1, sizeof *ctx) : NULL;
    if (ctx == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    ctx->device = dev;
    ctx->retains = 1; /* alive until cuCtxDestroy_v2 */
    ctx->legacy_stream = new_stream(ctx, true, true);
    if (ctx->legacy_stream == NULL) {
        free(ctx);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    created_contexts[slot] = ctx;
    *out = ctx;
    return CUDA_SUCCESS;
}

/* The CUDA 13 form (cuda.h maps cuCtxCreate to it); params may be NULL. */
CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
                                unsigned int flags, CUdevice dev)
{
    CUresult rc = api_enter("cuCtxCreate_v4", NEED_INIT);
    struct CUctx_st *ctx = NULL;
    (void)ctxCreateParams;
    if (rc == CUDA_SUCCESS && pctx == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && !valid_device(dev))
        rc = CUDA_ERROR_INVALID_DEVICE;
    if (rc == CUDA_SUCCESS)
        rc = create_context(dev, &ctx);
    if (rc == CUDA_SUCCESS)
        rc = push_current(ctx); /* a new context is pushed, as the real one is */
    if (rc == CUDA_SUCCESS)
        *pctx = ctx;
    return api_leave("cuCtxCreate_v4", rc, "flags=%u dev=%d -> %p", flags, dev, (void *)ctx);
}

/* Frees the context's memory and objects; it is popped if current here.
 * Its struct is kept (retains 0: CONTEXT_IS_DESTROYED for stale users). */
CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx)
{
    CUresult rc = api_enter("cuCtxDestroy_v2", NEED_INIT);
    struct CUctx_st *created = find_created_context(ctx);
    if (rc == CUDA_SUCCESS && created == NULL) {
        trace_note("%p is not a context of cuCtxCreate", (void *)ctx);
        rc = CUDA_ERROR_INVALID_CONTEXT;
    }
    if (rc == CUDA_SUCCESS) {
        reset_context(created);
        created->retains = 0;
        for (int i = 0; i < MAX_CREATED_CONTEXTS; i++)
            if (created_contexts[i] == created)
                created_contexts[i] = NULL;
        if (current_ctx == created)
            set_current(NULL);
    }
    return api_leave("cuCtxDestroy_v2", rc, "%p", (void *)ctx);
}

/* ==== entry points: memory =============================================== */

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUresult rc = api_enter("cuMemAlloc_v2", NEED_CONTEXT);
    device_range_t *range = NULL;
    if (rc == CUDA_SUCCESS && (dptr == NULL || bytesize == 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = allocate_device(current_ctx, bytesize, KIND_DEVICE, &range);
    if (rc == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)range->base;
    return api_leave("cuMemAlloc_v2", rc, "%zu -> %#" PRIxPTR " id=%" PRIu64, bytesize,
                     range != NULL ? range->base : 0, range != NULL ? range->buffer_id : 0);
}

/* Pool memory (cuMemAllocAsync) and managed memory (cuMemAllocManaged):
 * device memory like cuMemAlloc's, of another kind (the allocation is
 * usable at once, not ordered on the stream). Managed memory is also
 * readable and writable by the host at its address. */
static CUresult allocate_kind(CUdeviceptr *dptr, size_t bytes, memory_kind_t kind,
                              device_range_t **range)
{
    if (dptr == NULL || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = allocate_device(current_ctx, bytes, kind, range);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (kind == KIND_MANAGED)
        mprotect((void *)(*range)->base, (*range)->mapped, PROT_READ | PROT_WRITE);
    *dptr = (CUdeviceptr)(*range)->base;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    CUresult rc = api_enter("cuMemAllocAsync", NEED_CONTEXT);
    device_range_t *range = NULL;
    if (rc == CUDA_SUCCESS && resolve_stream(hStream) == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = allocate_kind(dptr, bytesize, KIND_POOL, &range);
    return api_leave("cuMemAllocAsync", rc, "%zu stream=%p -> %#" PRIxPTR " id=%" PRIu64,
                     bytesize, (void *)hStream, range != NULL ? range->base : 0,
                     range != NULL ? range->buffer_id : 0);
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    CUresult rc = api_enter("cuMemAllocManaged", NEED_CONTEXT);
    device_range_t *range = NULL;
    if (rc == CUDA_SUCCESS && flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = allocate_kind(dptr, bytesize, KIND_MANAGED, &range);
    return api_leave("cuMemAllocManaged", rc, "%zu flags=%#x -> %#" PRIxPTR " id=%" PRIu64,
                     bytesize, flags, range != NULL ? range->base : 0,
                     range != NULL ? range->buffer_id : 0);
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    CUresult rc = api_enter("cuMemFree_v2", NEED_INIT);
    device_range_t *range = find_range((uintptr_t)dptr);
    if (rc == CUDA_SUCCESS && (range == NULL || range->base != dptr || range->imported)) {
        trace_note("%#llx is not the base of a cuMemAlloc allocation", (unsigned long long)dptr);
        rc = CUDA_ERROR_INVALID_VALUE;
    }
    if (rc == CUDA_SUCCESS)
        rc = range->ctx->fault;
    if (rc == CUDA_SUCCESS) {
        /* The real cuMemFree waits for work that may still use the memory. */
        drain_context(range->ctx);
        int importers = __atomic_load_n(range->ipc_importers, __ATOMIC_ACQUIRE);
        if (importers > 0)
            ipc_misuse("cuMemFree_v2(%#llx): %d other process(es) still have this "
                       "allocation open through CUDA IPC (undefined behaviour on a real "
                       "GPU)", (unsigned long long)dptr, importers);
        release_range(range);
    }
    return api_leave("cuMemFree_v2", rc, "%#llx", (unsigned long long)dptr);
}

/* Stream-ordered free: the fake runs the stream's work first and frees at
 * once. Pool memory goes back to the pool, which keeps its addresses until
 * cuMemPoolTrimTo. */
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    CUresult rc = api_enter("cuMemFreeAsync", NEED_CONTEXT);
    device_range_t *range = find_range((uintptr_t)dptr);
    if (rc == CUDA_SUCCESS && resolve_stream(hStream) == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS && (range == NULL || range->base != dptr || range->imported)) {
        trace_note("%#llx is not the base of an allocation", (unsigned long long)dptr);
        rc = CUDA_ERROR_INVALID_VALUE;
    }
    if (rc == CUDA_SUCCESS) {
        drain_context(range->ctx);
        release_range(range);
    }
    return api_leave("cuMemFreeAsync", rc, "%#llx stream=%p", (unsigned long long)dptr,
                     (void *)hStream);
}

static size_t pool_reserved_bytes(void)
{
    size_t bytes = 0;
    for (device_range_t *r = fake.ranges; r != NULL; r = r->next)
        bytes += r->kind == KIND_POOL && !r->imported ? r->mapped : 0;
    for (retired_range_t *r = fake.retired; r != NULL; r = r->next)
        bytes += r->pool ? r->mapped : 0;
    return bytes;
}

/* Gives freed pool addresses back to the system (munmap) while the pool
 * keeps at least minBytesToKeep: a later host mmap may land there, as it
 * may after a real trim. */
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    CUresult rc = api_enter("cuMemPoolTrimTo", NEED_INIT);
    size_t released = 0, reserved = pool_reserved_bytes();
    if (rc == CUDA_SUCCESS && pool != (CUmemoryPool)&fake.pool)
        rc = CUDA_ERROR_INVALID_VALUE;
    for (retired_range_t **link = &fake.retired; rc == CUDA_SUCCESS && *link != NULL;) {
        retired_range_t *r = *link;
        if (!r->pool || reserved - r->mapped < minBytesToKeep) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        munmap((void *)r->base, r->mapped);
        reserved -= r->mapped;
        released += r->mapped;
        free(r);
    }
    return api_leave("cuMemPoolTrimTo", rc, "%p keep=%zu: released %zu", (void *)pool,
                     minBytesToKeep, released);
}

/* ==== test controls (no real driver has these) =========================== */

/* The calling thread's next device allocation is placed at address, as a
 * driver may reserve address space the program freed; it fails with
 * CUDA_ERROR_OUT_OF_MEMORY when anything is mapped there. */
void fake_cuda_place_next_allocation(void *address);
/* Calls of the entry point `name` so far in this process. */
unsigned long fake_cuda_call_count(const char *name);
/* Bytes of device memory this process allocated and has not freed (pages;
 * imported IPC mappings not counted). */
size_t fake_cuda_allocated_bytes(void);

void fake_cuda_place_next_allocation(void *address)
{
    place_next = (uintptr_t)address;
}

unsigned long fake_cuda_call_count(const char *name)
{
    unsigned long calls = 0;
    pthread_mutex_lock(&fake_lock);
    for (size_t i = 0; i < sizeof fake.counts / sizeof fake.counts[0]; i++)
        if (fake.counts[i].name != NULL && strcmp(fake.counts[i].name, name) == 0)
            calls += fake.counts[i].calls;
    pthread_mutex_unlock(&fake_lock);
    return calls;
}

size_t fake_cuda_allocated_bytes(void)
{
    size_t bytes = 0;
    pthread_mutex_lock(&fake_lock);
    for (device_range_t *r = fake.ranges; r != NULL; r = r->next)
        bytes += r->imported ? 0 : r->mapped;
    pthread_mutex_unlock(&fake_lock);
    return bytes;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    CUresult rc = api_enter("cuMemHostAlloc", NEED_CONTEXT);
    const unsigned known = CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                           CU_MEMHOSTALLOC_WRITECOMBINED;
    host_block_t *block = NULL;
    if (rc == CUDA_SUCCESS && (pp == NULL || bytesize == 0 || (Flags & ~known) != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        block = calloc(1, sizeof *block);
        size_t mapped = round_to_pages(bytesize);
        void *base = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
        if (block == NULL || base == MAP_FAILED) {
            free(block);
            block = NULL;
            if (base != MAP_FAILED)
                munmap(base, mapped);
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        } else {
            *block = (host_block_t){.next = fake.host_blocks, .base = base, .size = bytesize,
                                    .mapped = mapped, .buffer_id = ++fake.last_buffer_id,
                                    .ctx = current_ctx};
            fake.host_blocks = block;
            poison(base, bytesize);
            *pp = base;
        }
    }
    return api_leave("cuMemHostAlloc", rc, "%zu flags=%#x -> %p", bytesize, Flags,
                     block != NULL ? (void *)block->base : NULL);
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
    CUresult rc = api_enter("cuMemFreeHost", NEED_INIT);
    host_block_t **link = &fake.host_blocks;
    while (*link != NULL && (*link)->base != p)
        link = &(*link)->next;
    if (rc == CUDA_SUCCESS && *link == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        host_block_t *block = *link;
        drain_context(block->ctx);
        *link = block->next;
        /* Unmapped, not recycled: a later use of the buffer crashes. */
        munmap(block->base, block->mapped);
        free(block);
    }
    return api_leave("cuMemFreeHost", rc, "%p", p);
}

CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    CUresult rc = api_enter("cuMemGetAddressRange_v2", NEED_INIT);
    device_range_t *range = find_range((uintptr_t)dptr);
    if (rc == CUDA_SUCCESS && range == NULL)
        rc = CUDA_ERROR_NOT_FOUND;
    if (rc == CUDA_SUCCESS && pbase != NULL)
        *pbase = (CUdeviceptr)range->base;
    if (rc == CUDA_SUCCESS && psize != NULL)
        *psize = range->size;
    return api_leave("cuMemGetAddressRange_v2", rc, "%#llx", (unsigned long long)dptr);
}

/* The attributes the fake answers; the value types are those the real
 * driver writes (4-byte int for booleans). Memory the driver does not know
 * gets zeros everywhere, as cuPointerGetAttributes documents. */
static CUresult write_attribute(CUpointer_attribute attr, void *data, uintptr_t ptr,
                                const device_range_t *range, const host_block_t *block)
{
    bool known = range != NULL || block != NULL;
    struct CUctx_st *ctx = range != NULL ? range->ctx : block != NULL ? block->ctx : NULL;
    uintptr_t start = range != NULL ? range->base : block != NULL ? (uintptr_t)block->base : 0;
    size_t size = range != NULL ? range->size : block != NULL ? block->size : 0;
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = ctx;
        break;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = range != NULL   ? CU_MEMORYTYPE_DEVICE
                                : block != NULL ? CU_MEMORYTYPE_HOST
                                                : 0;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = known ? (CUdeviceptr)ptr : 0;
        break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        *(void **)data = block != NULL ? (void *)ptr : NULL;
        break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = range != NULL   ? range->buffer_id
                                      : block != NULL ? block->buffer_id
                                                      : 0;
        break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = ctx != NULL ? ctx->device : 0;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = (CUdeviceptr)start;
        break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = size;
        break;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = known;
        break;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
        *(int *)data = range != NULL && !range->imported && range->kind == KIND_DEVICE;
        break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = range != NULL && range->kind == KIND_MANAGED;
        break;
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
        *(int *)data = range != NULL && range->sync_memops;
        break;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
        *(int *)data = 0;
        break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(void **)data = range != NULL && range->kind == KIND_POOL ? (void *)&fake.pool : NULL;
        break;
    default:
        trace_note("pointer attribute %d is not modelled by the fake", (int)attr);
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes,
                                        CUpointer_attribute *attributes, void **data,
                                        CUdeviceptr ptr)
{
    CUresult rc = api_enter("cuPointerGetAttributes", NEED_INIT);
    if (rc == CUDA_SUCCESS && (numAttributes == 0 || attributes == NULL || data == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    const device_range_t *range = find_range((uintptr_t)ptr);
    const host_block_t *block = range == NULL ? find_host_block((uintptr_t)ptr) : NULL;
    for (unsigned i = 0; rc == CUDA_SUCCESS && i < numAttributes; i++)
        rc = data[i] == NULL ? CUDA_ERROR_INVALID_VALUE
                             : write_attribute(attributes[i], data[i], (uintptr_t)ptr, range,
                                               block);
    return api_leave("cuPointerGetAttributes", rc, "%#llx -> %s", (unsigned long long)ptr,
                     range != NULL ? "device" : block != NULL ? "pinned host" : "unknown");
}

/* Only SYNC_MEMOPS, on own device memory: synchronous copies and memsets
 * on it then finish before they return (below); the value is an int. */
CUresult CUDAAPI cuPointerSetAttribute(const void *value, CUpointer_attribute attribute,
                                       CUdeviceptr ptr)
{
    CUresult rc = api_enter("cuPointerSetAttribute", NEED_INIT);
    device_range_t *range = find_range((uintptr_t)ptr);
    if (rc == CUDA_SUCCESS && attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) {
        trace_note("setting pointer attribute %d is not modelled by the fake", (int)attribute);
        rc = CUDA_ERROR_INVALID_VALUE;
    } else if (rc == CUDA_SUCCESS && (value == NULL || range == NULL || range->imported)) {
        trace_note("%#llx is not device memory of this process", (unsigned long long)ptr);
        rc = CUDA_ERROR_INVALID_VALUE;
    }
    if (rc == CUDA_SUCCESS)
        range->sync_memops = *(const int *)value != 0;
    return api_leave("cuPointerSetAttribute", rc, "%#llx attribute=%d", (unsigned long long)ptr,
                     (int)attribute);
}

/* ==== entry points: copies and memset ==================================== */

/* Which direction a copy must have: the _v2 forms name one, the UVA forms
 * (cuMemcpy, cuMemcpyAsync) take any. */
typedef enum { ANY_DIRECTION, HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE } direction_t;

static bool direction_matches(direction_t want, const located_t *dst, const located_t *src)
{
    bool dst_dev = dst->kind == MEM_DEVICE, src_dev = src->kind == MEM_DEVICE;
    switch (want) {
    case HOST_TO_DEVICE: return dst_dev && !src_dev;
    case DEVICE_TO_HOST: return !dst_dev && src_dev;
    case DEVICE_TO_DEVICE: return dst_dev && src_dev;
    default: return true;
    }
}

/* A copy on stream s. The real driver finishes a copy that touches
 * pageable host memory before returning, and so does a synchronous call
 * (cuMemcpy*) that touches host memory; device-to-device copies and
 * copies with pinned memory on a stream run later. */
static CUresult copy(struct CUstream_st *s, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                     direction_t want, bool synchronous_call)
{
    if (bytes == 0)
        return CUDA_SUCCESS;
    located_t to, from;
    CUresult rc = locate(dst, bytes, &to);
    if (rc == CUDA_SUCCESS)
        rc = locate(src, bytes, &from);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!direction_matches(want, &to, &from))
        return CUDA_ERROR_INVALID_VALUE;
    pending_op_t op = {.kind = OP_COPY, .dst = to.access, .src = from.access, .bytes = bytes};
    bool touches_host = to.kind != MEM_DEVICE || from.kind != MEM_DEVICE;
    bool sync_memops = (to.range != NULL && to.range->sync_memops) ||
                       (from.range != NULL && from.range->sync_memops);
    if (to.kind == MEM_PAGEABLE || from.kind == MEM_PAGEABLE ||
        (synchronous_call && (touches_host || sync_memops))) {
        run_now(s, &op);
        return CUDA_SUCCESS;
    }
    pending_op_t *queued = malloc(sizeof *queued);
    if (queued == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *queued = op;
    submit(s, queued);
    return CUDA_SUCCESS;
}

#define COPY_ENTRY(fn, dst_type, src_type, want)                                \
    CUresult CUDAAPI fn(dst_type dst, src_type src, size_t ByteCount)           \
    {                                                                           \
        CUresult rc = api_enter(#fn, NEED_CONTEXT);                             \
        if (rc == CUDA_SUCCESS)                                                 \
            rc = copy(current_ctx->legacy_stream, (CUdeviceptr)(uintptr_t)dst,  \
                      (CUdeviceptr)(uintptr_t)src, ByteCount, want, true);      \
        return api_leave(#fn, rc, "dst=%#llx src=%#llx bytes=%zu",              \
                         (unsigned long long)(uintptr_t)dst,                    \
                         (unsigned long long)(uintptr_t)src, ByteCount);        \
    }

COPY_ENTRY(cuMemcpy, CUdeviceptr, CUdeviceptr, ANY_DIRECTION)
COPY_ENTRY(cuMemcpyHtoD_v2, CUdeviceptr, const void *, HOST_TO_DEVICE)
COPY_ENTRY(cuMemcpyDtoH_v2, void *, CUdeviceptr, DEVICE_TO_HOST)
COPY_ENTRY(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr, DEVICE_TO_DEVICE)

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                               CUstream hStream)
{
    CUresult rc = api_enter("cuMemcpyAsync", NEED_CONTEXT);
    struct CUstream_st *s = rc == CUDA_SUCCESS ? resolve_stream(hStream) : NULL;
    if (rc == CUDA_SUCCESS && s == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = copy(s, dst, src, ByteCount, ANY_DIRECTION, false);
    return api_leave("cuMemcpyAsync", rc, "dst=%#llx src=%#llx bytes=%zu stream=%p",
                     (unsigned long long)dst, (unsigned long long)src, ByteCount,
                     (void *)hStream);
}

/* Memsets are asynchronous with the host (on stream s; the synchronous
 * forms use the legacy stream and finish before returning only on memory
 * with SYNC_MEMOPS set) and, in the fake, only for device memory. */
static CUresult memset_device(struct CUstream_st *s, CUdeviceptr dst, uint32_t value,
                              size_t elements, size_t elem_size, bool synchronous_call)
{
    located_t to;
    if (elements == 0)
        return CUDA_SUCCESS;
    if (elements > SIZE_MAX / elem_size || dst % elem_size != 0)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = locate(dst, elements * elem_size, &to);
    if (rc == CUDA_SUCCESS && to.kind != MEM_DEVICE)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc != CUDA_SUCCESS)
        return rc;
    pending_op_t *op = malloc(sizeof *op);
    if (op == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (pending_op_t){.kind = elem_size == 1 ? OP_SET8 : OP_SET32, .dst = to.access,
                         .bytes = elements * elem_size, .value = value};
    submit(s, op);
    if (synchronous_call && to.range->sync_memops)
        drain_all(s);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    CUresult rc = api_enter("cuMemsetD8_v2", NEED_CONTEXT);
    if (rc == CUDA_SUCCESS)
        rc = memset_device(current_ctx->legacy_stream, dstDevice, uc, N, 1, true);
    return api_leave("cuMemsetD8_v2", rc, "%#llx value=%#x n=%zu",
                     (unsigned long long)dstDevice, uc, N);
}

CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    CUresult rc = api_enter("cuMemsetD32_v2", NEED_CONTEXT);
    if (rc == CUDA_SUCCESS)
        rc = memset_device(current_ctx->legacy_stream, dstDevice, ui, N, 4, true);
    return api_leave("cuMemsetD32_v2", rc, "%#llx value=%#x n=%zu",
                     (unsigned long long)dstDevice, ui, N);
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N,
                                 CUstream hStream)
{
    CUresult rc = api_enter("cuMemsetD8Async", NEED_CONTEXT);
    struct CUstream_st *s = rc == CUDA_SUCCESS ? resolve_stream(hStream) : NULL;
    if (rc == CUDA_SUCCESS && s == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = memset_device(s, dstDevice, uc, N, 1, false);
    return api_leave("cuMemsetD8Async", rc, "%#llx value=%#x n=%zu stream=%p",
                     (unsigned long long)dstDevice, uc, N, (void *)hStream);
}

/* From pinned memory: queued on the stream; from pageable memory: done on
 * return (copy() says why). */
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost,
                                      size_t ByteCount, CUstream hStream)
{
    CUresult rc = api_enter("cuMemcpyHtoDAsync_v2", NEED_CONTEXT);
    struct CUstream_st *s = rc == CUDA_SUCCESS ? resolve_stream(hStream) : NULL;
    if (rc == CUDA_SUCCESS && s == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = copy(s, dstDevice, (CUdeviceptr)(uintptr_t)srcHost, ByteCount, HOST_TO_DEVICE,
                  false);
    return api_leave("cuMemcpyHtoDAsync_v2", rc, "dst=%#llx src=%p bytes=%zu stream=%p",
                     (unsigned long long)dstDevice, srcHost, ByteCount, (void *)hStream);
}

/* ==== entry points: streams and events =================================== */

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    CUresult rc = api_enter("cuStreamCreate", NEED_CONTEXT);
    struct CUstream_st *s = NULL;
    if (rc == CUDA_SUCCESS && (phStream == NULL || (Flags & ~CU_STREAM_NON_BLOCKING) != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        s = new_stream(current_ctx, !(Flags & CU_STREAM_NON_BLOCKING), false);
        rc = s != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUDA_SUCCESS)
        *phStream = s;
    return api_leave("cuStreamCreate", rc, "flags=%#x -> %p", Flags, (void *)s);
}

/* A live stream created by cuStreamCreate (any context). */
static struct CUstream_st *find_created_stream(CUstream h)
{
    for (struct CUstream_st *s = fake.streams; s != NULL; s = s->next)
        if (s == h && !s->is_legacy)
            return s;
    return NULL;
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream)
{
    CUresult rc = api_enter("cuStreamDestroy_v2", NEED_INIT);
    struct CUstream_st *s = find_created_stream(hStream);
    if (rc == CUDA_SUCCESS && s == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    /* Work already queued still runs, as on the real driver. */
    if (rc == CUDA_SUCCESS)
        forget_stream(s);
    return api_leave("cuStreamDestroy_v2", rc, "%p", (void *)hStream);
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
    CUresult rc = api_enter("cuStreamSynchronize", NEED_INIT);
    struct CUstream_st *s = is_default_stream(hStream) ? resolve_stream(hStream)
                                                       : find_created_stream(hStream);
    if (rc == CUDA_SUCCESS && s == NULL)
        rc = is_default_stream(hStream) ? CUDA_ERROR_INVALID_CONTEXT : CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = s->ctx->fault;
    if (rc == CUDA_SUCCESS)
        drain_all(s);
    return api_leave("cuStreamSynchronize", rc, "%p", (void *)hStream);
}

/* ---- interprocess events: the shared page and the device thread ---------- */

/* The owner's side of interprocess events: a thread that plays the GPU for
 * other processes. When one of them waits for a record of ours (raises
 * `wanted`), it runs our queued work up to that record, as the GPU would
 * have by then; nothing else of ours runs earlier than it did before. */
static void *device_thread(void *unused)
{
    (void)unused;
    for (;;) {
        usleep(100);
        pthread_mutex_lock(&fake_lock);
        for (struct CUevent_st *e = fake.events; e != NULL; e = e->next) {
            if (e->shared == NULL || e->opened || e->stream == NULL)
                continue;
            uint64_t wanted = __atomic_load_n(&e->shared->wanted, __ATOMIC_ACQUIRE);
            if (wanted > __atomic_load_n(&e->shared->completed, __ATOMIC_ACQUIRE))
                run_stream(e->stream, e->seq, false); /* never releases the lock */
        }
        pthread_mutex_unlock(&fake_lock);
    }
    return NULL;
}

static pthread_once_t device_thread_once = PTHREAD_ONCE_INIT;

static void start_device_thread(void)
{
    pthread_t thread;
    if (pthread_create(&thread, NULL, device_thread, NULL) == 0)
        pthread_detach(thread);
}

/* The shared page of a new interprocess event, in a memfd that other
 * processes open through /proc/<pid>/fd (as IPC memory is). */
static CUresult create_event_page(struct CUevent_st *e)
{
    char name[64];
    snprintf(name, sizeof name, "fake_cuda_event.%d.%" PRIu64, (int)getpid(),
             ++fake.ipc_events_made);
    e->shared_fd = memfd_create(name, MFD_CLOEXEC);
    if (e->shared_fd < 0 || ftruncate(e->shared_fd, (off_t)fake.page) != 0) {
        if (e->shared_fd >= 0)
            close(e->shared_fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    e->shared = mmap(NULL, fake.page, PROT_READ | PROT_WRITE, MAP_SHARED, e->shared_fd, 0);
    if (e->shared == MAP_FAILED) {
        e->shared = NULL;
        close(e->shared_fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_once(&device_thread_once, start_device_thread);
    return CUDA_SUCCESS;
}

/* The generation a wait on e must see finished: an opened event's last
 * record by its owner, an own interprocess event's last record. */
static uint64_t awaited_generation(const struct CUevent_st *e)
{
    return e->opened ? __atomic_load_n(&e->shared->recorded, __ATOMIC_ACQUIRE) : e->generation;
}

/* A waiter here needs generation g of another process's work. */
static void ask_for_generation(ipc_event_state_t *state, uint64_t generation)
{
    uint64_t wanted = __atomic_load_n(&state->wanted, __ATOMIC_ACQUIRE);
    while (wanted < generation &&
           !__atomic_compare_exchange_n(&state->wanted, &wanted, generation, false,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
}

/* ---- events ------------------------------------------------------------- */

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    CUresult rc = api_enter("cuEventCreate", NEED_CONTEXT);
    const unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING |
                           CU_EVENT_INTERPROCESS;
    struct CUevent_st *e = NULL;
    if (rc == CUDA_SUCCESS && (phEvent == NULL || (Flags & ~known) != 0))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && (Flags & CU_EVENT_INTERPROCESS) &&
        !(Flags & CU_EVENT_DISABLE_TIMING))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        e = calloc(1, sizeof *e);
        rc = e != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUDA_SUCCESS && (Flags & CU_EVENT_INTERPROCESS)) {
        rc = create_event_page(e);
        if (rc != CUDA_SUCCESS) {
            free(e);
            e = NULL;
        }
    }
    if (rc == CUDA_SUCCESS) {
        e->ctx = current_ctx;
        e->flags = Flags;
        e->next = fake.events;
        fake.events = e;
        *phEvent = e;
    }
    return api_leave("cuEventCreate", rc, "flags=%#x -> %p", Flags, (void *)e);
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
    CUresult rc = api_enter("cuEventRecord", NEED_CONTEXT);
    struct CUevent_st *e = find_event(hEvent);
    struct CUstream_st *s = rc == CUDA_SUCCESS ? resolve_stream(hStream) : NULL;
    if (rc == CUDA_SUCCESS && (e == NULL || s == NULL || e->ctx != s->ctx))
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS && e->opened) {
        trace_note("recording an opened interprocess event is not modelled by the fake");
        rc = CUDA_ERROR_NOT_SUPPORTED;
    }
    if (rc == CUDA_SUCCESS) {
        /* Recording on the legacy stream also waits for blocking streams. */
        order_against_legacy(s);
        e->stream = s;
        e->seq = s->enqueued;
        bool busy = s->work_since_record || s->done < s->enqueued;
        e->not_ready_left = busy ? fake.async_polls : 0;
        s->work_since_record = false;
        if (e->shared != NULL) {
            e->generation = __atomic_add_fetch(&e->shared->recorded, 1, __ATOMIC_ACQ_REL);
            if (s->done >= e->seq) /* nothing queued before it: complete at once */
                __atomic_store_n(&e->shared->completed, e->generation, __ATOMIC_RELEASE);
        }
    }
    return api_leave("cuEventRecord", rc, "%p stream=%p gen=%" PRIu64, (void *)hEvent,
                     (void *)hStream, e != NULL ? e->generation : 0);
}

/* An opened event: complete once its owner finished the work of its last
 * record; asking makes the owner's device thread run it. */
static CUresult query_opened(struct CUevent_st *e)
{
    uint64_t generation = awaited_generation(e);
    if (generation_done(e->shared, generation))
        return CUDA_SUCCESS;
    ask_for_generation(e->shared, generation);
    return CUDA_ERROR_NOT_READY;
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
    CUresult rc = api_enter("cuEventQuery", NEED_INIT);
    struct CUevent_st *e = find_event(hEvent);
    if (rc == CUDA_SUCCESS && e == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = e->ctx->fault;
    if (rc == CUDA_SUCCESS && e->opened) {
        rc = query_opened(e);
    } else if (rc == CUDA_SUCCESS && e->not_ready_left > 0) {
        e->not_ready_left--;
        rc = CUDA_ERROR_NOT_READY;
    } else if (rc == CUDA_SUCCESS && !event_complete(e)) {
        /* Work behind a wait for another process may still not be done. */
        run_stream(e->stream, e->seq, false);
        if (!event_complete(e))
            rc = CUDA_ERROR_NOT_READY;
    }
    return api_leave("cuEventQuery", rc, "%p", (void *)hEvent);
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
    CUresult rc = api_enter("cuEventSynchronize", NEED_INIT);
    struct CUevent_st *e = find_event(hEvent);
    if (rc == CUDA_SUCCESS && e == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS)
        rc = e->ctx->fault;
    if (rc == CUDA_SUCCESS && e->opened) {
        uint64_t generation = awaited_generation(e);
        ask_for_generation(e->shared, generation);
        wait_for_generation(e->shared, generation);
    } else if (rc == CUDA_SUCCESS && e->stream != NULL) {
        drain_stream(e->stream, e->seq);
    }
    if (rc == CUDA_SUCCESS)
        e->not_ready_left = 0;
    return api_leave("cuEventSynchronize", rc, "%p", (void *)hEvent);
}

/* Destroying an own interprocess event that another process still has
 * open is undefined on the real driver; an opened one is waited for by
 * its context's streams first (its page must outlive their waits). */
static void forget_event(struct CUevent_st *e)
{
    if (e->shared == NULL)
        return;
    if (e->opened) {
        drain_context(e->ctx);
        __atomic_sub_fetch(&e->shared->importers, 1, __ATOMIC_ACQ_REL);
    } else {
        int importers = __atomic_load_n(&e->shared->importers, __ATOMIC_ACQUIRE);
        if (importers > 0)
            ipc_misuse("cuEventDestroy_v2(%p): %d other process(es) still have this "
                       "interprocess event open (undefined behaviour on a real GPU)",
                       (void *)e, importers);
        close(e->shared_fd);
    }
    munmap(e->shared, fake.page);
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent)
{
    CUresult rc = api_enter("cuEventDestroy_v2", NEED_INIT);
    struct CUevent_st *e = find_event(hEvent);
    if (rc == CUDA_SUCCESS && e == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS) {
        forget_event(e);    /* may wait, the lock released: unlink after */
        struct CUevent_st **link = &fake.events;
        while (*link != e)
            link = &(*link)->next;
        *link = e->next;
        free(e);
    }
    return api_leave("cuEventDestroy_v2", rc, "%p", (void *)hEvent);
}

/* A later wait on another process's work: the stream's next work runs
 * after the owner finished the record this wait sees. */
static CUresult queue_wait(struct CUstream_st *s, struct CUevent_st *e)
{
    uint64_t generation = awaited_generation(e);
    if (generation_done(e->shared, generation))
        return CUDA_SUCCESS;
    pending_op_t *op = malloc(sizeof *op);
    if (op == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *op = (pending_op_t){.kind = OP_WAIT, .wait_for = e->shared, .wait_generation = generation};
    if (e->opened)
        ask_for_generation(e->shared, generation);
    submit(s, op);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    CUresult rc = api_enter("cuStreamWaitEvent", NEED_CONTEXT);
    struct CUstream_st *s = rc == CUDA_SUCCESS ? resolve_stream(hStream) : NULL;
    struct CUevent_st *e = find_event(hEvent);
    if (rc == CUDA_SUCCESS && (s == NULL || e == NULL))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (rc == CUDA_SUCCESS && Flags != CU_EVENT_WAIT_DEFAULT)
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = e->ctx->fault;
    if (rc == CUDA_SUCCESS && e->shared != NULL)
        rc = queue_wait(s, e);
    else if (rc == CUDA_SUCCESS && e->stream != NULL)
        drain_stream(e->stream, e->seq);    /* one process: its work simply runs first */
    return api_leave("cuStreamWaitEvent", rc, "stream=%p event=%p", (void *)hStream,
                     (void *)hEvent);
}

/* ==== entry points: CUDA IPC ============================================= */

/* Legacy IPC shares cuMemAlloc memory only: the real driver refuses pool
 * (cuMemAllocAsync) and managed memory, and a library must cope. */
static CUresult ipc_export_refusal(const device_range_t *range)
{
    if (range->kind == KIND_DEVICE)
        return CUDA_SUCCESS;
    trace_note("%#" PRIxPTR " is %s memory: no legacy IPC", range->base,
               range->kind == KIND_POOL ? "pool (cuMemAllocAsync)" : "managed");
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    CUresult rc = api_enter("cuIpcGetMemHandle", NEED_CONTEXT);
    device_range_t *range = find_range((uintptr_t)dptr);
    if (rc == CUDA_SUCCESS && (pHandle == NULL || range == NULL || range->imported))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = ipc_export_refusal(range);
    if (rc == CUDA_SUCCESS) {
        ipc_handle_t handle = {.owner_pid = (int32_t)getpid(), .fd = range->fd,
                               .buffer_id = range->buffer_id, .size = range->size};
        memcpy(handle.magic, ipc_magic, sizeof ipc_magic);
        memcpy(pHandle->reserved, &handle, sizeof handle);
    }
    return api_leave("cuIpcGetMemHandle", rc, "%#llx -> pid=%d id=%" PRIu64,
                     (unsigned long long)dptr, (int)getpid(),
                     range != NULL ? range->buffer_id : 0);
}

/* Opens the exporter's memfd through /proc, checking by its name that it is
 * still the allocation the handle names (the exporter may have freed it
 * and reused the descriptor number). */
static int open_exported_file(const ipc_handle_t *handle)
{
    char path[64], link[256], expected[96];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)handle->owner_pid, (int)handle->fd);
    snprintf(expected, sizeof expected, "/memfd:fake_cuda.%d.%" PRIu64,
             (int)handle->owner_pid, handle->buffer_id);
    ssize_t len = readlink(path, link, sizeof link - 1);
    if (len < 0) {
        trace_note("cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    link[len] = '\0';
    size_t expected_len = strlen(expected);
    if (strncmp(link, expected, expected_len) != 0 ||
        (link[expected_len] != '\0' && link[expected_len] != ' ')) {
        trace_note("%s is %s, not %s: allocation freed?", path, link, expected);
        return -1;
    }
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        trace_note("cannot open %s: %s", path, strerror(errno));
    return fd;
}

static device_range_t *find_import(pid_t owner, uint64_t buffer_id, struct CUctx_st *ctx)
{
    for (device_range_t *r = fake.ranges; r != NULL; r = r->next)
        if (r->imported && r->owner_pid == owner && r->owner_buffer_id == buffer_id &&
            r->ctx == ctx)
            return r;
    return NULL;
}

static CUresult import_range(const ipc_handle_t *handle, device_range_t **out)
{
    device_range_t *prev, *range = new_range(current_ctx, (size_t)handle->size);
    if (range == NULL)
        return CUDA_ERROR_OUT_OF_MEMORY;
    range->imported = true;
    range->owner_pid = handle->owner_pid;
    range->owner_buffer_id = handle->buffer_id;
    range->import_refs = 1;
    range->base = find_free_addresses(range->mapped, &prev);
    int fd = range->base != 0 ? open_exported_file(handle) : -1;
    struct stat st;
    CUresult rc = CUDA_ERROR_INVALID_HANDLE;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size >= range->mapped + fake.page)
        rc = map_views(range, fd);
    if (fd >= 0)
        close(fd);      /* the mappings keep the file alive */
    if (rc != CUDA_SUCCESS) {
        free(range);
        return rc;
    }
    insert_range(range, prev);
    __atomic_add_fetch(range->ipc_importers, 1, __ATOMIC_ACQ_REL);
    if (++fake.ipc_open > fake.ipc_max_open && fake.ipc_max_open > 0) {
        fprintf(stderr, "fake_cuda[%d] IPC MISUSE: %d other processes' allocations mapped "
                "at once, more than FAKE_CUDA_IPC_MAX_OPEN=%d: aborting\n", (int)getpid(),
                fake.ipc_open, fake.ipc_max_open);
        abort();
    }
    *out = range;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                       unsigned int Flags)
{
    CUresult rc = api_enter("cuIpcOpenMemHandle_v2", NEED_CONTEXT);
    ipc_handle_t h;
    memcpy(&h, handle.reserved, sizeof h);
    device_range_t *range = NULL;
    if (rc == CUDA_SUCCESS && (pdptr == NULL || Flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS))
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && memcmp(h.magic, ipc_magic, sizeof ipc_magic) != 0)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (rc == CUDA_SUCCESS && h.owner_pid == (int32_t)getpid())
        rc = CUDA_ERROR_INVALID_CONTEXT;    /* the real driver refuses its own handles */
    if (rc == CUDA_SUCCESS) {
        range = find_import(h.owner_pid, h.buffer_id, current_ctx);
        if (range != NULL)
            range->import_refs++;
        else
            rc = import_range(&h, &range);
    }
    if (rc == CUDA_SUCCESS)
        *pdptr = (CUdeviceptr)range->base;
    return api_leave("cuIpcOpenMemHandle_v2", rc, "pid=%d id=%" PRIu64 " -> %#" PRIxPTR,
                     (int)h.owner_pid, h.buffer_id, range != NULL ? range->base : 0);
}

CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    CUresult rc = api_enter("cuIpcCloseMemHandle", NEED_CONTEXT);
    device_range_t *range = find_range((uintptr_t)dptr);
    if (rc == CUDA_SUCCESS && (range == NULL || !range->imported || range->base != dptr))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS && --range->import_refs == 0) {
        drain_context(range->ctx);
        release_range(range);
    }
    return api_leave("cuIpcCloseMemHandle", rc, "%#llx", (unsigned long long)dptr);
}

/* What cuIpcGetEventHandle writes into the 64 opaque bytes. */
typedef struct {
    char magic[8];          /* "FAKEEVNT" */
    int32_t owner_pid;
    int32_t fd;             /* the event page's memfd in the owner */
    unsigned char unused[48];
} ipc_event_handle_t;
_Static_assert(sizeof(ipc_event_handle_t) == CU_IPC_HANDLE_SIZE, "IPC handle is 64 bytes");

static const char ipc_event_magic[8] = {'F', 'A', 'K', 'E', 'E', 'V', 'N', 'T'};

CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    CUresult rc = api_enter("cuIpcGetEventHandle", NEED_CONTEXT);
    struct CUevent_st *e = find_event(event);
    if (rc == CUDA_SUCCESS && e == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (rc == CUDA_SUCCESS && (pHandle == NULL || e->shared == NULL || e->opened)) {
        trace_note("%p is not an own event of CU_EVENT_INTERPROCESS|CU_EVENT_DISABLE_TIMING",
                   (void *)event);
        rc = CUDA_ERROR_INVALID_VALUE;
    }
    if (rc == CUDA_SUCCESS) {
        ipc_event_handle_t handle = {.owner_pid = (int32_t)getpid(), .fd = e->shared_fd};
        memcpy(handle.magic, ipc_event_magic, sizeof ipc_event_magic);
        memcpy(pHandle->reserved, &handle, sizeof handle);
    }
    return api_leave("cuIpcGetEventHandle", rc, "%p", (void *)event);
}

/* Maps the owner's event page, checked by its memfd name as memory is. */
static ipc_event_state_t *open_event_page(const ipc_event_handle_t *h)
{
    char path[64], link[256], expected[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)h->owner_pid, (int)h->fd);
    snprintf(expected, sizeof expected, "/memfd:fake_cuda_event.%d.", (int)h->owner_pid);
    ssize_t len = readlink(path, link, sizeof link - 1);
    if (len < 0 || (link[len] = '\0', strncmp(link, expected, strlen(expected)) != 0)) {
        trace_note("%s is not an interprocess event of process %d", path, (int)h->owner_pid);
        return NULL;
    }
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        trace_note("cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    void *page = mmap(NULL, fake.page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return page == MAP_FAILED ? NULL : page;
}

CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    CUresult rc = api_enter("cuIpcOpenEventHandle", NEED_CONTEXT);
    ipc_event_handle_t h;
    memcpy(&h, handle.reserved, sizeof h);
    struct CUevent_st *e = NULL;
    if (rc == CUDA_SUCCESS && phEvent == NULL)
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && memcmp(h.magic, ipc_event_magic, sizeof ipc_event_magic) != 0)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (rc == CUDA_SUCCESS && h.owner_pid == (int32_t)getpid())
        rc = CUDA_ERROR_INVALID_CONTEXT;    /* as for memory handles */
    if (rc == CUDA_SUCCESS) {
        e = calloc(1, sizeof *e);
        if (e != NULL && (e->shared = open_event_page(&h)) == NULL) {
            free(e);
            e = NULL;
            rc = CUDA_ERROR_INVALID_HANDLE;
        } else if (e == NULL) {
            rc = CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    if (rc == CUDA_SUCCESS) {
        __atomic_add_fetch(&e->shared->importers, 1, __ATOMIC_ACQ_REL);
        e->opened = true;
        e->shared_fd = -1;
        e->flags = CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
        e->ctx = current_ctx;
        e->next = fake.events;
        fake.events = e;
        *phEvent = e;
    }
    return api_leave("cuIpcOpenEventHandle", rc, "pid=%d -> %p", (int)h.owner_pid, (void *)e);
}

/* ==== kernel images ====================================================== */

/* cuModuleLoadData reads an nvcc fatbin as a driver does to choose the code
 * for the device (the code itself is never run: kernels come from the
 * fake's own table, by name). The container: a 16-byte header, then
 * entries, each a header and its payload, an ELF cubin for one sm_XY or
 * PTX for one compute_XY, possibly compressed. */
enum {
    FATBIN_MAGIC = 0xBA55ED50,
    FATBIN_KIND_PTX = 1,
    FATBIN_KIND_ELF = 2,
};
#define FATBIN_COMPRESSED_LZ4 0x2000ull     /* nvcc's default compression */
#define FATBIN_COMPRESSED_ZSTD 0x8000ull    /* -compress-mode=size and others */

typedef struct {
    uint32_t magic;
    uint16_t version;       /* 1 */
    uint16_t header_size;   /* 16: the first entry follows */
    uint64_t entries_size;  /* all entries and payloads */
} fatbin_header_t;

typedef struct {
    uint16_t kind;          /* FATBIN_KIND_* */
    uint16_t format;
    uint32_t header_size;   /* 64 or more: the payload follows */
    uint64_t padded_size;   /* payload and padding: the next entry follows */
    uint32_t payload_size;
    uint32_t unknown0;
    uint16_t code_minor;    /* PTX: the ISA version, 9.0 from CUDA 13.0 */
    uint16_t code_major;
    uint32_t arch;          /* 10 * major + minor: 90 for sm_90 / compute_90 */
    uint64_t unknown1;
    uint64_t flags;         /* FATBIN_COMPRESSED_* */
    uint64_t unknown2;
    uint64_t uncompressed_size;
} fatbin_entry_t;
_Static_assert(sizeof(fatbin_header_t) == 16 && sizeof(fatbin_entry_t) == 64,
               "the fatbin's header layouts");

/* The oldest driver that decompresses an entry: zstd arrived with the
 * CUDA 12.4 driver (R550), LZ4 is older than any driver modelled here. */
static int driver_to_decompress(uint64_t flags)
{
    return flags & FATBIN_COMPRESSED_ZSTD ? 12040 : 0;
}

/* The oldest driver whose JIT compiler reads PTX of ISA major.minor: each
 * toolkit release brings an ISA version (CUDA 12.0: 8.0 ... 13.0: 9.0); an
 * ISA between two listed takes the later one's driver, one newer than the
 * list needs a driver newer than any modelled. */
static int driver_for_ptx(int major, int minor)
{
    static const struct { int major, minor, driver; } isa[] = {
        {7, 0, 11000}, {7, 8, 11080}, {8, 0, 12000}, {8, 1, 12010}, {8, 2, 12020},
        {8, 3, 12030}, {8, 4, 12040}, {8, 5, 12050}, {8, 7, 12080}, {8, 8, 12090},
        {9, 0, 13000}, {9, 1, 13010},
    };
    for (size_t i = 0; i < sizeof isa / sizeof isa[0]; i++)
        if (isa[i].major > major || (isa[i].major == major && isa[i].minor >= minor))
            return isa[i].driver;
    return INT_MAX;
}

/* What the driver does with one entry on this device. */
typedef enum { ENTRY_UNFIT, ENTRY_RUNS, ENTRY_PTX_TOO_NEW } entry_fit_t;

static entry_fit_t entry_fit(const fatbin_entry_t *e)
{
    int device_arch = fake.cc_major * 10 + fake.cc_minor;
    if (fake.driver_version < driver_to_decompress(e->flags))
        return ENTRY_UNFIT;
    if (e->kind == FATBIN_KIND_ELF)     /* sm_XY code runs on X.Y and later X.Z */
        return (int)e->arch / 10 == fake.cc_major && (int)e->arch <= device_arch ? ENTRY_RUNS
                                                                                : ENTRY_UNFIT;
    if (e->kind != FATBIN_KIND_PTX || (int)e->arch > device_arch)
        return ENTRY_UNFIT;             /* compute_XY PTX compiles for X.Y and later */
    return fake.driver_version >= driver_for_ptx(e->code_major, e->code_minor)
               ? ENTRY_RUNS
               : ENTRY_PTX_TOO_NEW;
}

/* CUDA_SUCCESS when the image has code the device runs: a cubin of its
 * major version, or PTX the driver compiles for it. Else, as the real
 * driver answers, CUDA_ERROR_UNSUPPORTED_PTX_VERSION when the only fitting
 * code is PTX too new for this driver, CUDA_ERROR_NO_BINARY_FOR_GPU when
 * nothing fits, CUDA_ERROR_INVALID_IMAGE for what is not a fatbin (cubins
 * and PTX text, which a real driver also loads, are refused: the library
 * loads fatbins only). */
static CUresult check_image(const void *image)
{
    fatbin_header_t h;
    memcpy(&h, image, sizeof h);
    if (h.magic != FATBIN_MAGIC || h.version != 1 || h.header_size < sizeof h) {
        trace_note("the image is not an nvcc fatbin (magic %#x)", (unsigned)h.magic);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    const char *at = (const char *)image + h.header_size, *end = at + h.entries_size;
    bool ptx_too_new = false;
    char seen[256] = "";
    while (at < end) {
        fatbin_entry_t e;
        memcpy(&e, at, sizeof e);
        if (e.header_size < sizeof e || e.padded_size > (uint64_t)(end - at) - e.header_size) {
            trace_note("fatbin entry at offset %td runs past the image", at - (const char *)image);
            return CUDA_ERROR_INVALID_IMAGE;
        }
        entry_fit_t fit = entry_fit(&e);
        if (fit == ENTRY_RUNS)
            return CUDA_SUCCESS;
        ptx_too_new |= fit == ENTRY_PTX_TOO_NEW;
        size_t used = strlen(seen);
        snprintf(seen + used, sizeof seen - used, " %s_%u%s",
                 e.kind == FATBIN_KIND_PTX ? "compute" : "sm", (unsigned)e.arch,
                 e.flags & FATBIN_COMPRESSED_ZSTD ? "(zstd)" : "");
        at += e.header_size + e.padded_size;
    }
    trace_note("nothing in the image (%s ) runs on compute capability %d.%d with driver %d",
               seen, fake.cc_major, fake.cc_minor, fake.driver_version);
    return ptx_too_new ? CUDA_ERROR_UNSUPPORTED_PTX_VERSION : CUDA_ERROR_NO_BINARY_FOR_GPU;
}

/* ==== entry points: modules and kernels ================================== */

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    CUresult rc = api_enter("cuModuleLoadData", NEED_CONTEXT);
    struct CUmod_st *m = NULL;
    if (rc == CUDA_SUCCESS && (module == NULL || image == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS)
        rc = check_image(image);
    if (rc == CUDA_SUCCESS) {
        m = calloc(1, sizeof *m);
        rc = m != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (rc == CUDA_SUCCESS) {
        m->ctx = current_ctx;
        m->next = fake.modules;
        fake.modules = m;
        *module = m;
    }
    return api_leave("cuModuleLoadData", rc, "-> %p", (void *)m);
}

static struct CUmod_st *find_module(CUmodule h)
{
    for (struct CUmod_st *m = fake.modules; m != NULL; m = m->next)
        if (m == h)
            return m;
    return NULL;
}

static struct CUfunc_st *find_function(CUfunction h)
{
    for (struct CUfunc_st *f = fake.functions; f != NULL; f = f->next)
        if (f == h)
            return f;
    return NULL;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    CUresult rc = api_enter("cuModuleGetFunction", NEED_CONTEXT);
    struct CUmod_st *m = find_module(hmod);
    struct CUfunc_st *f = NULL;
    fake_kernel_t kernel;
    if (rc == CUDA_SUCCESS && (hfunc == NULL || name == NULL))
        rc = CUDA_ERROR_INVALID_VALUE;
    else if (rc == CUDA_SUCCESS && m == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (rc == CUDA_SUCCESS && (strlen(name) >= sizeof f->name ||
                                    !fake_kernel_lookup(name, &kernel)))
        rc = CUDA_ERROR_NOT_FOUND;
    for (f = fake.functions; rc == CUDA_SUCCESS && f != NULL; f = f->next)
        if (f->module == m && strcmp(f->name, name) == 0)
            break;
    if (rc == CUDA_SUCCESS && f == NULL) {
        f = calloc(1, sizeof *f);
        rc = f != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        if (f != NULL) {
            f->module = m;
            f->kernel = kernel;
            snprintf(f->name, sizeof f->name, "%s", name);
            f->next = fake.functions;
            fake.functions = f;
        }
    }
    if (rc == CUDA_SUCCESS)
        *hfunc = f;
    return api_leave("cuModuleGetFunction", rc, "%s -> %p", name != NULL ? name : "(null)",
                     rc == CUDA_SUCCESS ? (void *)f : NULL);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    CUresult rc = api_enter("cuModuleUnload", NEED_INIT);
    struct CUmod_st *m = find_module(hmod);
    if (rc == CUDA_SUCCESS && m == NULL)
        rc = CUDA_ERROR_INVALID_HANDLE;
    if (rc == CUDA_SUCCESS) {
        drain_context(m->ctx);  /* queued launches of its kernels finish first */
        for (struct CUfunc_st **link = &fake.functions; *link != NULL;) {
            struct CUfunc_st *f = *link;
            if (f->module == m) {
                *link = f->next;
                free(f);
            } else {
                link = &f->next;
            }
        }
        struct CUmod_st **link = &fake.modules;
        while (*link != m)
            link = &(*link)->next;
        *link = m->next;
        free(m);
    }
    return api_leave("cuModuleUnload", rc, "%p", (void *)hmod);
}

/* A kernel's view of one array argument: device memory (own or imported)
 * holding all `bytes`, aligned for the element type. Anything else is what
 * the GPU would fault on. */
static CUresult translate_kernel_pointer(const void *ptr, size_t bytes, size_t align,
                                         void **alias)
{
    uintptr_t addr = (uintptr_t)ptr;
    device_range_t *range = find_range(addr);
    if (range == NULL || bytes > range->base + range->size - addr) {
        trace_note("kernel argument %p (%zu bytes) is not device memory", ptr, bytes);
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    if (addr % align != 0) {
        trace_note("kernel argument %p is not aligned to %zu", ptr, align);
        return CUDA_ERROR_MISALIGNED_ADDRESS;
    }
    *alias = range->alias + (addr - range->base);
    return CUDA_SUCCESS;
}

/* Reads kernelParams by the kernel family's signature:
 *   ol_reduce_<op>_<type>(T *inout, const T *in, unsigned long long count)
 *   ol_reduce_many_<op>_<type>(T *out, struct { const T *p[8]; } ins, int n,
 *                              unsigned long long count)
 * and fills op with host-accessible pointers; a device fault otherwise. */
static CUresult prepare_kernel(const struct CUfunc_st *f, void **params, pending_op_t *op)
{
    const void *out, *ins[FAKE_KERNEL_MAX_INPUTS];
    unsigned long long count;
    int n;
    if (f->kernel.many) {
        out = *(void *const *)params[0];
        memcpy(ins, params[1], sizeof ins);
        n = *(const int *)params[2];
        count = *(const unsigned long long *)params[3];
    } else {
        out = *(void *const *)params[0];
        ins[0] = *(void *const *)params[1];     /* inout = in op inout */
        ins[1] = out;
        n = 2;
        count = *(const unsigned long long *)params[2];
    }
    if (n < 1 || n > FAKE_KERNEL_MAX_INPUTS) {
        trace_note("%s: n = %d inputs, the struct holds 1 to %d", f->name, n,
                   FAKE_KERNEL_MAX_INPUTS);
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    *op = (pending_op_t){.kind = OP_KERNEL, .kernel = f->kernel, .bytes = (size_t)count,
                         .n_ins = n};
    if (count == 0)
        return CUDA_SUCCESS;    /* the kernel touches no memory */
    if (count > SIZE_MAX / f->kernel.elem_size)
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    size_t bytes = (size_t)count * f->kernel.elem_size;
    CUresult rc = translate_kernel_pointer(out, bytes, f->kernel.elem_align, &op->dst);
    for (int i = 0; rc == CUDA_SUCCESS && i < n; i++)
        rc = translate_kernel_pointer(ins[i], bytes, f->kernel.elem_align, &op->ins[i]);
    return rc;
}

static bool valid_launch_shape(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                               unsigned bz)
{
    return gx > 0 && gy > 0 && gz > 0 && bx > 0 && by > 0 && bz > 0 && bx <= 1024 &&
           by <= 1024 && bz <= 64 && (unsigned long long)bx * by * bz <= 1024;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    CUresult rc = api_enter("cuLaunchKernel", NEED_CONTEXT);
    struct CUfunc_st *func = find_function(f);
    struct CUstream_st *s = rc == CUDA_SUCCESS ? resolve_stream(hStream) : NULL;
    pending_op_t op;
    (void)sharedMemBytes;
    if (rc == CUDA_SUCCESS && (func == NULL || func->module->ctx != current_ctx || s == NULL))
        rc = CUDA_ERROR_INVALID_HANDLE;
    else if (rc == CUDA_SUCCESS && (kernelParams == NULL || extra != NULL ||
                                    !valid_launch_shape(gridDimX, gridDimY, gridDimZ,
                                                        blockDimX, blockDimY, blockDimZ)))
        rc = CUDA_ERROR_INVALID_VALUE;
    if (rc == CUDA_SUCCESS) {
        rc = prepare_kernel(func, kernelParams, &op);
        if (rc != CUDA_SUCCESS)
            current_ctx->fault = rc;    /* a device fault poisons the context */
    }
    if (rc == CUDA_SUCCESS) {
        pending_op_t *queued = malloc(sizeof *queued);
        rc = queued != NULL ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
        if (queued != NULL) {
            *queued = op;
            submit(s, queued);
        }
    }
    return api_leave("cuLaunchKernel", rc, "%s grid=%u block=%u stream=%p",
                     func != NULL ? func->name : "?", gridDimX, blockDimX, (void *)hStream);
}
