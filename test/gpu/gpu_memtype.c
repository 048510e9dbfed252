/* gpu_memtype: the library's memory-type answers stay right when addresses
 * change kind, and host buffers outside the heap are cheap.
 *   hostcache  ranks 0 and 1: 200 ping-pongs from a 1 MiB mmap'd host buffer
 *              at an offset (outside the brk heap, where the library cannot
 *              tell host memory without the driver): data right, and against
 *              the fake driver at most 4 cuPointerGetAttributes calls on
 *              rank 0 for all of them (the answer is remembered)
 *   reuse      every rank, to itself: a host mapping carries a message, is
 *              unmapped, and the driver hands out device memory at the same
 *              address (the fake places it there; a real driver may): the
 *              device memory is taken for device memory (a stale "host"
 *              answer would make the CPU read device memory and crash)
 *   threads    the same by 4 threads at once, 20 times each
 *   pool       ranks 0 and 1: stream-ordered pool memory (cuMemAllocAsync)
 *              carries a message, is freed (cuMemFreeAsync), the pool is
 *              trimmed (cuMemPoolTrimTo) and host memory mapped at the same
 *              address: a message from that host memory arrives (a stale
 *              "device" answer makes MPI_Send fail)
 * Without arguments every case; otherwise the cases named. Against a real
 * driver the fake's controls (placement, call counts) are missing: the
 * checks that need them are left out, and a reuse the driver did not make
 * is reported as not provoked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "devmem.h"
#include "gpu_test.h"

#define MIB (1u << 20)
#define THREADS 4
#define THREAD_ROUNDS 20

/* The driver entry points this test calls itself (real signatures, our
 * types), and the fake driver's test controls (NULL with a real driver). */
typedef int cu_result;
typedef unsigned long long cu_ptr;
static struct {
    cu_result (*ctx_get_current)(void **ctx);
    cu_result (*ctx_set_current)(void *ctx);
    cu_result (*alloc_async)(cu_ptr *p, size_t bytes, void *stream);
    cu_result (*free_async)(cu_ptr p, void *stream);
    cu_result (*pool_trim_to)(void *pool, size_t keep);
    cu_result (*pointer_get_attributes)(unsigned n, int *attributes, void **data, cu_ptr p);
    void (*place_next_allocation)(void *address);
    unsigned long (*call_count)(const char *name);
} cu;
#define CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE 17

static void load_driver(void)
{
    const char *path = getenv("OMPI_LITE_CUDA_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
        gt_die("the driver devmem opened is not loaded: %s", dlerror());
    *(void **)&cu.ctx_get_current = dlsym(lib, "cuCtxGetCurrent");
    *(void **)&cu.ctx_set_current = dlsym(lib, "cuCtxSetCurrent");
    *(void **)&cu.alloc_async = dlsym(lib, "cuMemAllocAsync");
    *(void **)&cu.free_async = dlsym(lib, "cuMemFreeAsync");
    *(void **)&cu.pool_trim_to = dlsym(lib, "cuMemPoolTrimTo");
    *(void **)&cu.pointer_get_attributes = dlsym(lib, "cuPointerGetAttributes");
    *(void **)&cu.place_next_allocation = dlsym(lib, "fake_cuda_place_next_allocation");
    *(void **)&cu.call_count = dlsym(lib, "fake_cuda_call_count");
    if (!cu.ctx_get_current || !cu.ctx_set_current)
        gt_die("the driver lacks cuCtxGetCurrent or cuCtxSetCurrent");
}

static void *map_host(void *at, size_t bytes)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0);
    void *p = mmap(at, bytes, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (p != MAP_FAILED && at && p != at) {
        munmap(p, bytes); /* a kernel that took the address as a hint */
        p = MAP_FAILED;
    }
    return p == MAP_FAILED ? NULL : p;
}

static void sendrecv_self(const void *from, void *to, size_t bytes, int tag)
{
    gt_check_rc("MPI_Sendrecv to itself",
                MPI_Sendrecv(from, (int)bytes, MPI_BYTE, gt_rank, tag, to, (int)bytes, MPI_BYTE,
                             gt_rank, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

/* ---- hostcache ------------------------------------------------------------- */

static void test_hostcache(void)
{
    const size_t offset = 64, bytes = 1024;
    const int rounds = 200;
    if (gt_rank > 1)
        return;
    unsigned char *mapping = map_host(NULL, MIB), *buf = mapping + offset;
    if (!mapping)
        gt_die("cannot map 1 MiB of host memory");
    int peer = 1 - gt_rank;
    unsigned long before = cu.call_count ? cu.call_count("cuPointerGetAttributes") : 0;
    for (int i = 0; i < rounds; i++) {
        if (gt_rank == 0) {
            gt_fill(buf, bytes, (unsigned)i);
            MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        }
    }
    gt_check_pattern("the last ping-pong message", buf, bytes, (unsigned)rounds - 1);
    if (cu.call_count && gt_rank == 0) {
        unsigned long queries = cu.call_count("cuPointerGetAttributes") - before;
        printf("gpu_memtype: hostcache: %d ping-pongs from a host buffer outside the heap: "
               "%lu cuPointerGetAttributes calls\n", rounds, queries);
        if (queries > 4)
            gt_fail("%d ping-pongs from one host buffer outside the heap cost %lu "
                    "cuPointerGetAttributes calls, expected at most 4", rounds, queries);
    }
    munmap(mapping, MIB);
}

/* ---- reuse, threads ------------------------------------------------------- */

typedef struct {
    int index, rounds;
    void *ctx;
    int provoked;                /* rounds where device memory took the host address */
} reuse_thread_t;

/* The test's own threads map and unmap in turn, so that none takes the
 * address of another's unmapped host memory before the driver can (the
 * library's threads still may: such a round is not provoked). */
static pthread_mutex_t mapping_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned char *map_host_locked(size_t bytes)
{
    pthread_mutex_lock(&mapping_lock);
    unsigned char *p = map_host(NULL, bytes);
    pthread_mutex_unlock(&mapping_lock);
    return p;
}

/* Unmaps host memory at x and allocates device memory, at x where the fake
 * can place it. */
static void *device_where_host_was(void *x, size_t bytes)
{
    pthread_mutex_lock(&mapping_lock);
    munmap(x, bytes);
    if (cu.place_next_allocation)
        cu.place_next_allocation(x);
    void *dev = devmem_alloc(bytes);
    pthread_mutex_unlock(&mapping_lock);
    return dev ? dev : devmem_alloc(bytes); /* x was taken: anywhere */
}

/* One round: host memory at X carries a message to device memory; X is
 * unmapped and device memory placed there carries one back to the host. */
static void reuse_round(reuse_thread_t *t, int round, void *device_to, unsigned char *host_to)
{
    const size_t bytes = MIB;
    int tag = 100 + t->index;
    unsigned seed = (unsigned)(t->index * 1000 + round * 2);
    char what[160];
    unsigned char *x = map_host_locked(bytes);
    if (!x)
        gt_die("cannot map %zu bytes of host memory", bytes);
    gt_fill(x, bytes, seed);
    sendrecv_self(x, device_to, bytes, tag);
    gt_get(GT_DEVICE, host_to, device_to, bytes);
    snprintf(what, sizeof what, "thread %d round %d: host mapping %p to device", t->index, round,
             (void *)x);
    gt_check_pattern(what, host_to, bytes, seed);

    void *dev = device_where_host_was(x, bytes);
    if (!dev)
        gt_die("thread %d: cannot allocate device memory", t->index);
    t->provoked += dev == (void *)x;
    gt_fill(host_to, bytes, seed + 1);
    gt_put(GT_DEVICE, dev, host_to, bytes);
    memset(host_to, 0, bytes);
    sendrecv_self(dev, host_to, bytes, tag);
    snprintf(what, sizeof what, "thread %d round %d: device memory at %p%s to host", t->index,
             round, dev, dev == (void *)x ? " (the unmapped host address)" : "");
    gt_check_pattern(what, host_to, bytes, seed + 1);
    devmem_free(dev);
}

static void *reuse_rounds(void *arg)
{
    reuse_thread_t *t = arg;
    if (cu.ctx_set_current(t->ctx) != 0)
        gt_die("thread %d: cuCtxSetCurrent failed", t->index);
    void *device_to = devmem_alloc(MIB);
    unsigned char *host_to = malloc(MIB);
    if (!device_to || !host_to)
        gt_die("thread %d: cannot allocate its buffers", t->index);
    for (int r = 0; r < t->rounds; r++)
        reuse_round(t, r, device_to, host_to);
    devmem_free(device_to);
    free(host_to);
    return NULL;
}

static void run_reuse(const char *name, int threads, int rounds)
{
    reuse_thread_t t[THREADS];
    pthread_t id[THREADS];
    void *ctx = NULL;
    int provoked = 0;
    if (cu.ctx_get_current(&ctx) != 0 || !ctx)
        gt_die("no current context on the main thread");
    for (int i = 0; i < threads; i++) {
        t[i] = (reuse_thread_t){.index = i, .rounds = rounds, .ctx = ctx};
        if (pthread_create(&id[i], NULL, reuse_rounds, &t[i]) != 0)
            gt_die("pthread_create failed");
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(id[i], NULL);
        provoked += t[i].provoked;
    }
    if (gt_rank == 0)
        printf("gpu_memtype: %s: device memory took an unmapped host address in %d of %d "
               "rounds on rank 0\n", name, provoked, threads * rounds);
    if (cu.place_next_allocation && provoked < threads * rounds / 2)
        gt_fail("%s: the fake placed device memory at the host address in only %d of %d rounds",
                name, provoked, threads * rounds);
}

static void test_reuse(void)
{
    run_reuse("reuse", 1, 5);
}

static void test_threads(void)
{
    run_reuse("threads", THREADS, THREAD_ROUNDS);
}

/* ---- pool ------------------------------------------------------------------ */

/* Rank 0: pool memory, then (after free and trim) host memory at its
 * address, each sends a message; rank 1 checks both. */
static void test_pool(void)
{
    const size_t bytes = MIB;
    int provoked = 0;
    if (gt_rank > 1)
        return;
    if (!cu.alloc_async || !cu.free_async || !cu.pool_trim_to || !cu.pointer_get_attributes) {
        if (gt_rank == 0)
            printf("gpu_memtype: pool: not provoked: the driver has no stream-ordered pool\n");
        return;
    }
    unsigned char *host = malloc(bytes);
    if (gt_rank == 1) {
        MPI_Recv(host, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        gt_check_pattern("message from pool memory", host, bytes, 21);
        MPI_Recv(&provoked, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (provoked) {
            MPI_Recv(host, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            gt_check_pattern("message from host memory where pool memory was", host, bytes, 22);
        }
        free(host);
        return;
    }
    cu_ptr p = 0;
    void *pool = NULL, *data[] = {&pool};
    int attribute[] = {CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE};
    if (cu.alloc_async(&p, bytes, NULL) != 0 || cu.pointer_get_attributes(1, attribute, data, p))
        gt_die("cuMemAllocAsync or cuPointerGetAttributes failed");
    void *pooled = (void *)(uintptr_t)p;
    gt_fill(host, bytes, 21);
    gt_put(GT_DEVICE, pooled, host, bytes);
    MPI_Send(pooled, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
    if (cu.free_async(p, NULL) != 0 || devmem_sync() != 0 || cu.pool_trim_to(pool, 0) != 0)
        gt_die("cuMemFreeAsync, synchronisation or cuMemPoolTrimTo failed");
    unsigned char *again = map_host(pooled, bytes);
    provoked = again != NULL;
    printf("gpu_memtype: pool: host memory %s at %p, where pool memory was\n",
           provoked ? "mapped" : "could not be mapped (not provoked)", pooled);
    MPI_Send(&provoked, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    if (provoked) {
        gt_fill(again, bytes, 22);
        gt_check_rc("MPI_Send from host memory where pool memory was",
                    MPI_Send(again, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD));
        munmap(again, bytes);
    }
    free(host);
}

/* ---- main ------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"hostcache", test_hostcache}, {"reuse", test_reuse}, {"threads", test_threads},
    {"pool", test_pool},
};

int main(int argc, char **argv)
{
    gt_init_threads("gpu_memtype", &argc, &argv);
    load_driver();
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], cases[c].name) == 0;
        if (!wanted)
            continue;
        int before = gt_failures();
        cases[c].run();
        MPI_Barrier(MPI_COMM_WORLD);
        if (gt_rank == 0)
            printf("gpu_memtype: %s: %s on rank 0\n", cases[c].name,
                   gt_failures() == before ? "passed" : "FAILED");
    }
    return gt_finish();
}
