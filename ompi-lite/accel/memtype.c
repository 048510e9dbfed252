/* What kind of memory a buffer is: the watch for the driver, and the
 * driver's answers behind a cache.
 *
 * The watch. A process that never loads libcuda has no device memory, so
 * until it does, ol_accel_is_device answers "host" after one load: the
 * l_next field of the last entry of the dynamic linker's list of loaded
 * objects (_r_debug.r_map), which becomes non-NULL when anything is loaded.
 * Then the slow path walks the list again; when it holds a libcuda the
 * driver is "loaded" for good, otherwise the watch moves to the new last
 * entry. The entry watched is made RTLD_NODELETE, so that a dlclose cannot
 * free the field we read (the price: a library that was once last stays
 * mapped after its dlclose).
 *
 * The cache, and why its answers stay right when memory is freed and its
 * address reused:
 * - Device allocations are kept as ranges (start, size, buffer id). The
 *   driver allocates device and managed memory (cuMemAlloc, cudaMalloc,
 *   cudaMallocManaged and their pools) in virtual address space it has
 *   reserved for the context and keeps reserved after a free: an address
 *   that was device memory can only become device memory again, so
 *   "device" stays right. What may change is the allocation (its bounds and
 *   buffer id): where that matters (IPC) the driver is asked again
 *   (ol_accel_memory_query). The exception is memory the program maps
 *   itself into address space it reserved (cuMemAddressReserve/cuMemMap)
 *   and later gives back: the five attributes we may ask do not tell it
 *   apart, so such a program must set ACCEL_MEMTYPE_CACHE=0.
 * - Except pool memory (cudaMallocAsync): a pool gives its address space
 *   back when it is trimmed (cuMemPoolTrimTo, or the driver's own release
 *   threshold), after which host memory may be mapped there, and the free
 *   that preceded it is stream-ordered and invisible to us. Its ranges are
 *   not kept: every use costs one driver query.
 * - Host memory that provably cannot change type is recognised without the
 *   driver: the brk heap below the current break (always one mapping), the
 *   live part of the calling thread's stack (from its stack pointer up),
 *   and the segments of the main program (mapped for the life of the
 *   process).
 * - Other host memory (large malloc blocks, thread arenas, mmap) is kept by
 *   page, and a page is forgotten when it is unmapped: a mapped host page
 *   cannot become device memory, but once unmapped its address may be
 *   reserved by the driver for device memory, and a stale "host" would make
 *   the CPU copy device memory (a crash). Unmaps are reported by UCX's
 *   memory hooks (libucm, VM_UNMAPPED: munmap, mremap, mmap over a mapping,
 *   shmdt, brk, also inside libc's free); where they are off
 *   (UCX_MEM_EVENTS=no) such host buffers cost one query each. Only pages
 *   the driver knows nothing of are kept (not pinned memory, which the
 *   driver itself unmaps). */
#define _GNU_SOURCE
#include "accel_internal.h"
#include "ol_log.h"

#include <dlfcn.h>
#include <limits.h>
#include <ucm/api/ucm.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the watch ----------------------------------------------------------- */

bool ol_accel_driver_loaded;
/* Until ol_accel_init, nothing is watched and every buffer is host. */
static void *const volatile nothing_loaded = NULL;
void *const volatile *ol_accel_link_tail_next = &nothing_loaded;

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static char loaded_driver[PATH_MAX];

typedef struct {
    struct link_map *last;
    char last_name[PATH_MAX];
    char driver[PATH_MAX];
} link_scan_t;

/* "libcuda.so", "libcuda.so.1", "/usr/lib64/libcuda.so.580.65": the file
 * name starts with libcuda.so. */
static bool is_driver_path(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *file = slash ? slash + 1 : path;
    return strncmp(file, "libcuda.so", strlen("libcuda.so")) == 0;
}

/* Called by dl_iterate_phdr, which holds the lock that dlopen and dlclose
 * take to change the list: the walk sees a consistent list. */
static int scan_link_map(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info;
    (void)size;
    link_scan_t *scan = arg;
    for (struct link_map *entry = _r_debug.r_map; entry; entry = entry->l_next) {
        if (!scan->driver[0] && entry->l_name && is_driver_path(entry->l_name))
            snprintf(scan->driver, sizeof(scan->driver), "%s", entry->l_name);
        scan->last = entry;
    }
    const char *name = scan->last && scan->last->l_name ? scan->last->l_name : "";
    snprintf(scan->last_name, sizeof(scan->last_name), "%s", name);
    return 1; /* one walk is enough */
}

static void scan_loaded(link_scan_t *scan)
{
    memset(scan, 0, sizeof(*scan));
    dl_iterate_phdr(scan_link_map, scan);
}

/* Keeps the last entry from being unloaded. The main program (empty name)
 * and the vDSO are never unloaded and cannot be reopened by name. */
static void keep_loaded(const char *name)
{
    if (!*name)
        return;
    void *handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
    if (handle)
        dlclose(handle); /* NODELETE stays; the reference we took goes */
}

/* Looks for the driver among the loaded objects, or watches the new last
 * one. Loops when the last entry was unloaded before it could be kept. */
static void update_watch(void)
{
    link_scan_t scan, again;
    for (;;) {
        scan_loaded(&scan);
        if (scan.driver[0]) {
            snprintf(loaded_driver, sizeof(loaded_driver), "%s", scan.driver);
            __atomic_store_n(&ol_accel_driver_loaded, true, __ATOMIC_RELEASE);
            OL_INFO("accel", "the program loaded the CUDA driver %s", loaded_driver);
            return;
        }
        keep_loaded(scan.last_name);
        scan_loaded(&again);
        if (again.last == scan.last && !again.driver[0])
            break;
    }
    __atomic_store_n(&ol_accel_link_tail_next, (void *const volatile *)&scan.last->l_next,
                     __ATOMIC_RELEASE);
}

static void check_for_driver(void)
{
    pthread_mutex_lock(&watch_lock);
    if (!ol_accel_driver_loaded && *ol_accel_link_tail_next != NULL)
        update_watch();
    pthread_mutex_unlock(&watch_lock);
}

const char *ol_accel_loaded_driver(void)
{
    return __atomic_load_n(&ol_accel_driver_loaded, __ATOMIC_ACQUIRE) ? loaded_driver : NULL;
}

/* ---- host memory that cannot become device memory ------------------------ */

static bool host_cache_on; /* the unmap hook is installed (below) */

enum { MAX_PROGRAM_SEGMENTS = 16 };
static struct {
    uintptr_t heap_start;     /* start of the brk heap, 0: unknown */
    int segments;
    uintptr_t segment_start[MAX_PROGRAM_SEGMENTS], segment_end[MAX_PROGRAM_SEGMENTS];
} stable;

/* Field 47 of /proc/self/stat: where the brk heap begins. */
static uintptr_t read_heap_start(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return 0;
    char line[2048];
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = '\0';
    char *p = strrchr(line, ')'); /* the command name may hold spaces */
    unsigned long long value = 0;
    for (int field = 2; p && field < 47; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &value) != 1)
        return 0;
    return (uintptr_t)value;
}

/* The first object dl_iterate_phdr reports is the main program. */
static int note_program_segments(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum && stable.segments < MAX_PROGRAM_SEGMENTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        stable.segment_start[stable.segments] = info->dlpi_addr + ph->p_vaddr;
        stable.segment_end[stable.segments] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        stable.segments++;
    }
    return 1;
}

static void note_stable_host_memory(void)
{
    stable.heap_start = read_heap_start();
    stable.segments = 0;
    dl_iterate_phdr(note_program_segments, NULL);
}

static __thread uintptr_t stack_low, stack_high; /* this thread's stack; 0: not known yet */

static void find_own_stack(void)
{
    pthread_attr_t attr;
    void *low;
    size_t size;
    stack_high = 1; /* tried: an unknown stack stays unknown */
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &low, &size) == 0) {
        stack_low = (uintptr_t)low;
        stack_high = (uintptr_t)low + size;
    }
    pthread_attr_destroy(&attr);
}

/* The stack between this frame and the stack's top is in use by live
 * frames, so it is mapped. Checked only when this frame is on the thread's
 * own stack (not on a signal or coroutine stack). */
static bool on_live_stack(uintptr_t address)
{
    if (!stack_high)
        find_own_stack();
    uintptr_t frame = (uintptr_t)__builtin_frame_address(0);
    return frame >= stack_low && frame < stack_high && address >= frame && address < stack_high;
}

/* The break last read, kept while the unmap hook runs (which lowers it when
 * the heap shrinks): sbrk(0) is a system call in every process that loads
 * libucm (UCX's memory hooks replace sbrk), ~0.2-0.5 us. */
static uintptr_t heap_break_seen;
/* An address further above the break seen is not taken for heap memory
 * without asking the driver (it is mmap's area, or the heap grew more). */
#define HEAP_GROWTH_SLACK ((uintptr_t)1 << 30)

static bool in_heap(uintptr_t address)
{
    if (!stable.heap_start || address < stable.heap_start)
        return false;
    if (!__atomic_load_n(&host_cache_on, __ATOMIC_ACQUIRE))
        return address < (uintptr_t)sbrk(0);
    uintptr_t seen = __atomic_load_n(&heap_break_seen, __ATOMIC_ACQUIRE);
    if (address < seen)
        return true;
    if (address - seen >= HEAP_GROWTH_SLACK)
        return false;
    uintptr_t now = (uintptr_t)sbrk(0);
    /* Fails when the hook lowered it meanwhile: then it stays lowered. */
    if (now > seen)
        __atomic_compare_exchange_n(&heap_break_seen, &seen, now, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
    return address < now;
}

static bool is_stable_host(uintptr_t address)
{
    if (in_heap(address))
        return true;
    for (int i = 0; i < stable.segments; i++)
        if (address >= stable.segment_start[i] && address < stable.segment_end[i])
            return true;
    return on_live_stack(address);
}

/* ---- host pages, forgotten when unmapped ---------------------------------- */

/* Direct-mapped by page number (consecutive pages, different slots); a slot
 * holds page number + 1, 0 when empty. Read and written without a lock: a
 * page is only unmapped while no buffer in it is in use, so an answer for
 * it cannot race with its unmap in a correct program. */
enum { HOST_PAGE_SLOTS = 1024 };
static uintptr_t host_pages[HOST_PAGE_SLOTS];
static unsigned page_shift;
static pthread_once_t host_cache_once = PTHREAD_ONCE_INIT;

static bool in_host_cache(uintptr_t address)
{
    uintptr_t page = address >> page_shift;
    return __atomic_load_n(&host_pages[page % HOST_PAGE_SLOTS], __ATOMIC_ACQUIRE) == page + 1;
}

static void remember_host(uintptr_t address)
{
    uintptr_t page = address >> page_shift;
    __atomic_store_n(&host_pages[page % HOST_PAGE_SLOTS], page + 1, __ATOMIC_RELEASE);
}

static void forget_page_in_slot(size_t slot, uintptr_t first, uintptr_t last)
{
    uintptr_t held = __atomic_load_n(&host_pages[slot], __ATOMIC_ACQUIRE);
    if (held && held - 1 >= first && held - 1 <= last)
        __atomic_compare_exchange_n(&host_pages[slot], &held, 0, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
}

/* The heap shrinks (brk) from start on: the break seen comes down to it. */
static void lower_heap_break(uintptr_t start)
{
    uintptr_t seen = __atomic_load_n(&heap_break_seen, __ATOMIC_ACQUIRE);
    if (start < stable.heap_start)
        start = stable.heap_start;
    while (start < seen && !__atomic_compare_exchange_n(&heap_break_seen, &seen, start, false,
                                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        ;
}

/* UCM calls this before memory is unmapped, on the unmapping thread. It
 * must not allocate (UCM's rule): it only clears slots. */
static void host_pages_unmapped(ucm_event_type_t type, ucm_event_t *event, void *arg)
{
    (void)type;
    (void)arg;
    uintptr_t start = (uintptr_t)event->vm_unmapped.address;
    if (event->vm_unmapped.size == 0)
        return;
    lower_heap_break(start);
    uintptr_t first = start >> page_shift;
    uintptr_t last = (start + event->vm_unmapped.size - 1) >> page_shift;
    if (last - first < HOST_PAGE_SLOTS)
        for (uintptr_t page = first; page <= last; page++)
            forget_page_in_slot(page % HOST_PAGE_SLOTS, first, last);
    else
        for (size_t slot = 0; slot < HOST_PAGE_SLOTS; slot++)
            forget_page_in_slot(slot, first, last);
}

static void install_unmap_hook(void)
{
    page_shift = (unsigned)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
    ucs_status_t rc = ucm_set_event_handler(UCM_EVENT_VM_UNMAPPED, 0, host_pages_unmapped, NULL);
    __atomic_store_n(&heap_break_seen, (uintptr_t)sbrk(0), __ATOMIC_RELEASE);
    __atomic_store_n(&host_cache_on, rc == UCS_OK, __ATOMIC_RELEASE);
    if (rc != UCS_OK)
        OL_INFO("accel", "UCX's memory hooks are off (%s): every host buffer outside the heap, "
                "stack and program costs a CUDA driver query", ucs_status_string(rc));
}

/* Whether host answers may be kept: installs the hook the first time. */
static bool host_cache_ready(void)
{
    if (!ol_accel_param.memtype_host_cache)
        return false;
    pthread_once(&host_cache_once, install_unmap_hook);
    return __atomic_load_n(&host_cache_on, __ATOMIC_ACQUIRE);
}

/* ---- device allocations ---------------------------------------------------- */

enum { DEVICE_RANGES = 64 };
static struct device_range {
    uintptr_t start, end; /* end 0: unused */
    uint64_t buffer_id;
} device_ranges[DEVICE_RANGES];
static unsigned next_replaced;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool in_device_cache(uintptr_t address)
{
    bool found = false;
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < DEVICE_RANGES && !found; i++)
        found = address >= device_ranges[i].start && address < device_ranges[i].end;
    pthread_mutex_unlock(&cache_lock);
    return found;
}

/* Replaces the entries the allocation overlaps (older allocations at the
 * same addresses), else the oldest. */
static void remember_device(const ol_accel_memory_t *memory)
{
    uintptr_t end = memory->start + memory->size;
    pthread_mutex_lock(&cache_lock);
    struct device_range *slot = NULL;
    for (int i = 0; i < DEVICE_RANGES; i++) {
        struct device_range *r = &device_ranges[i];
        if (r->end && r->start < end && memory->start < r->end) {
            r->end = 0;
            slot = r;
        }
    }
    if (!slot)
        slot = &device_ranges[next_replaced++ % DEVICE_RANGES];
    *slot = (struct device_range){memory->start, end, memory->buffer_id};
    pthread_mutex_unlock(&cache_lock);
}

/* ---- the driver's answer ---------------------------------------------------- */

/* Whether the driver the program loaded is open for our questions. One
 * that ompi-lite cannot use (too old, cuInit failed) is still asked what a
 * buffer is, so that device buffers get MPI_ERR_BUFFER rather than being
 * read by the CPU. */
static bool driver_open(void)
{
    static bool warned;
    if (ol_cu_open(ol_accel_loaded_driver()))
        return true;
    bool can_query = ol_cu_can_query();
    if (!__atomic_exchange_n(&warned, true, __ATOMIC_RELAXED))
        OL_WARN("accel", "the program loaded %s, but ompi-lite cannot use a CUDA driver (%s): %s",
                loaded_driver, ol_cu_problem(),
                can_query ? "device buffers are refused (MPI_ERR_BUFFER)"
                          : "every buffer is taken for host memory");
    return can_query;
}

/* A driver older than stream-ordered pools (CUDA 11.2) refuses the whole
 * query when it names MEMPOOL_HANDLE; it has no pool memory either. */
static bool no_pool_attribute;

ol_status_t ol_accel_memory_query(const void *buf, ol_accel_memory_t *memory)
{
    unsigned int type = 0;
    /* IS_MANAGED is a bool in the driver's documentation, 4 bytes in some
     * versions: a zeroed uint32_t reads right either way. */
    uint32_t managed = 0;
    unsigned long long buffer_id = 0;
    ol_cu_deviceptr_t start = 0;
    size_t size = 0;
    void *pool = NULL;
    int attributes[] = {OL_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, OL_CU_POINTER_ATTRIBUTE_IS_MANAGED,
                        OL_CU_POINTER_ATTRIBUTE_BUFFER_ID, OL_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                        OL_CU_POINTER_ATTRIBUTE_RANGE_SIZE, OL_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
    void *data[] = {&type, &managed, &buffer_id, &start, &size, &pool};
    unsigned asked = OL_ARRAY_SIZE(attributes) - __atomic_load_n(&no_pool_attribute, __ATOMIC_RELAXED);
    memset(memory, 0, sizeof(*memory));
    ol_cu_result_t rc = ol_cu.cuPointerGetAttributes(asked, attributes, data,
                                                     (ol_cu_deviceptr_t)(uintptr_t)buf);
    if (rc == OL_CUDA_ERROR_INVALID_VALUE && asked == OL_ARRAY_SIZE(attributes)) {
        __atomic_store_n(&no_pool_attribute, true, __ATOMIC_RELAXED);
        rc = ol_cu.cuPointerGetAttributes(asked - 1, attributes, data,
                                          (ol_cu_deviceptr_t)(uintptr_t)buf);
    }
    /* Without a context (none made yet, or none current on this thread)
     * the driver knows no device memory of this process. */
    if (rc == OL_CUDA_ERROR_NOT_INITIALIZED || rc == OL_CUDA_ERROR_INVALID_CONTEXT ||
        rc == OL_CUDA_ERROR_DEINITIALIZED)
        return OL_OK;
    if (rc != OL_CUDA_SUCCESS)
        return ol_accel_cuda_failed("cuPointerGetAttributes", rc);
    memory->managed = managed != 0;
    memory->device = memory->managed || type == OL_CU_MEMORYTYPE_DEVICE ||
                     type == OL_CU_MEMORYTYPE_UNIFIED;
    memory->known = type != 0 || memory->managed;
    if (!memory->device)
        return OL_OK;
    memory->pooled = pool != NULL;
    memory->buffer_id = buffer_id;
    memory->start = (uintptr_t)start;
    memory->size = size;
    if (ol_accel_param.memtype_cache && size > 0 && !memory->pooled)
        remember_device(memory);
    return OL_OK;
}

bool ol_accel_is_device_slow(const void *buf)
{
    if (!__atomic_load_n(&ol_accel_driver_loaded, __ATOMIC_ACQUIRE)) {
        check_for_driver();
        if (!ol_accel_driver_loaded)
            return false;
    }
    uintptr_t address = (uintptr_t)buf;
    if (!buf || !driver_open())
        return false;
    if (ol_accel_param.memtype_cache) {
        host_cache_ready(); /* so that the heap check needs no system call */
        if (is_stable_host(address) || in_host_cache(address))
            return false;
        if (in_device_cache(address))
            return true;
    }
    ol_accel_memory_t memory;
    if (ol_accel_memory_query(buf, &memory) != OL_OK) {
        /* A driver that cannot answer cannot have made device memory we
         * could use; the sentence is logged, not left for an unrelated
         * error report. */
        OL_WARN("accel", "%s", ol_error_detail_take());
        return false;
    }
    if (!memory.known && ol_accel_param.memtype_cache && host_cache_ready())
        remember_host(address);
    return memory.device;
}

void ol_accel_watch_start(void)
{
    pthread_mutex_lock(&watch_lock);
    note_stable_host_memory();
    if (!ol_accel_driver_loaded)
        update_watch();
    pthread_mutex_unlock(&watch_lock);
}

ol_status_t ol_accel_check_device(const void *buf, size_t bytes)
{
    if (!ol_accel_usable())
        return ol_accel_unsupported("the buffer", buf);
    ol_accel_memory_t memory;
    ol_status_t rc = ol_accel_enter(buf);
    if (rc == OL_OK) {
        rc = ol_accel_memory_query(buf, &memory);
        ol_accel_leave();
    }
    if (rc != OL_OK)
        return rc;
    uintptr_t at = (uintptr_t)buf;
    if (!memory.device) {
        ol_error_detail("buffer %p lies in device memory that was freed (the CUDA driver knows "
                        "no allocation there)", buf);
        return MPI_ERR_BUFFER;
    }
    if (at + bytes > memory.start + memory.size) {
        ol_error_detail("buffer %p of %zu bytes runs past the end of its device allocation "
                        "(%zu bytes at %p)", buf, bytes, memory.size, (void *)memory.start);
        return MPI_ERR_BUFFER;
    }
    return OL_OK;
}
