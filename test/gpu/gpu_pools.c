/* gpu_pools KEEP_MB: the library's device scratch pool keeps at most
 * KEEP_MB MiB (the script sets OMPI_LITE_ACCEL_POOL_KEEP_MB to the same
 * value) and does not round big requests up to a power of two.
 *
 * Allreduces of doubles on device buffers with recursive doubling (the
 * script forces it and turns the CUDA IPC allreduce off), whose device
 * scratch is as big as the vector: 5 MiB + 8 bytes (a power of two would
 * be 8 MiB), 9 MiB + 8 (above KEEP_MB = 8: freed after the call), 3 MiB,
 * 9 MiB + 8 again, 1 MiB + 8. Every result is checked. Against the fake
 * driver, after each call the device memory the rank holds beyond its own
 * buffers (fake_cuda_allocated_bytes) must be at most KEEP_MB MiB, and
 * after the first call at most 1/8 above the vector (size classes). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "gpu_test.h"

#define MIB ((size_t)1 << 20)

static size_t (*allocated_bytes)(void); /* the fake's; NULL with a real driver */

static void find_fake_counter(void)
{
    const char *path = getenv("OMPI_LITE_CUDA_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib)
        *(void **)&allocated_bytes = dlsym(lib, "fake_cuda_allocated_bytes");
}

/* Element i of rank r's input: small integers, so that sums are exact. */
static double input(int r, size_t i)
{
    return (double)(i % 1000) + r;
}

static void check_sum(const char *what, const double *got, size_t n)
{
    double ranks = gt_size, rank_sum = ranks * (ranks - 1) / 2;
    for (size_t i = 0; i < n; i++) {
        double want = ranks * (double)(i % 1000) + rank_sum;
        if (got[i] != want) {
            gt_fail("%s: element %zu is %g, expected %g", what, i, got[i], want);
            return;
        }
    }
}

/* One allreduce of `bytes` (a multiple of 8); returns the device bytes the
 * library holds afterwards (0 with a real driver). */
static size_t allreduce_once(size_t bytes, void *send, void *recv, double *host, size_t own)
{
    size_t n = bytes / sizeof(double);
    char what[96];
    for (size_t i = 0; i < n; i++)
        host[i] = input(gt_rank, i);
    gt_put(GT_DEVICE, send, host, bytes);
    gt_check_rc("MPI_Allreduce", MPI_Allreduce(send, recv, (int)n, MPI_DOUBLE, MPI_SUM,
                                               MPI_COMM_WORLD));
    gt_get(GT_DEVICE, host, recv, bytes);
    snprintf(what, sizeof what, "allreduce of %zu bytes", bytes);
    check_sum(what, host, n);
    return allocated_bytes ? allocated_bytes() - own : 0;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {5 * MIB + 8, 9 * MIB + 8, 3 * MIB, 9 * MIB + 8, MIB + 8};
    const size_t largest = 9 * MIB + 8;
    gt_init("gpu_pools", &argc, &argv);
    if (argc != 2 || atoi(argv[1]) <= 0)
        gt_die("usage: gpu_pools KEEP_MB (as OMPI_LITE_ACCEL_POOL_KEEP_MB)");
    size_t keep = (size_t)atoi(argv[1]) * MIB;
    find_fake_counter();
    void *send = gt_alloc(GT_DEVICE, largest), *recv = gt_alloc(GT_DEVICE, largest);
    double *host = malloc(largest);
    if (!host)
        gt_die("cannot allocate %zu bytes of host memory", largest);
    size_t own = allocated_bytes ? allocated_bytes() : 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t held = allreduce_once(sizes[s], send, recv, host, own);
        unsigned long long most = held;
        if (!allocated_bytes)
            continue;
        MPI_Allreduce(MPI_IN_PLACE, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        if (gt_rank == 0)
            printf("gpu_pools: after an allreduce of %zu bytes the library holds at most %llu "
                   "bytes of device memory on a rank\n", sizes[s], most);
        if (held > keep)
            gt_fail("after an allreduce of %zu bytes the library holds %zu bytes of device "
                    "memory, more than the %zu it may keep", sizes[s], held, keep);
        if (s == 0 && held > sizes[0] + sizes[0] / 8 + 4096)
            gt_fail("a scratch request of %zu bytes holds %zu bytes (more than 1/8 above)",
                    sizes[0], held);
    }
    if (!allocated_bytes && gt_rank == 0)
        printf("gpu_pools: the driver does not count allocations: results checked only\n");
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(host);
    return gt_finish();
}
