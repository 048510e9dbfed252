/* memtype_cost: what ol_accel_is_device costs once a CUDA driver is loaded
 * and a context is current, on a host buffer outside the brk heap (4 MiB
 * from malloc, at an offset), on one in the heap and on device memory: the
 * measurement behind ompi-lite/accel/README.md. Not a test (make check
 * builds it, does not run it); run:
 *   OMPI_LITE_CUDA_LIBRARY=test/gpu/fake_cuda/libcuda.so.1 test/gpu/memtype_cost
 * with OMPI_LITE_ACCEL_MEMTYPE_HOST_CACHE=0 (a driver query per call) and 1. */
#include "ol_config.h"
#include "mpi.h"
#include "ol_accel.h"
#include "devmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Nanoseconds per call, the best of 5 runs of `calls`. */
static double cost(const void *buf, int calls, bool expect_device)
{
    double best = 1e30;
    for (int run = 0; run < 5; run++) {
        int wrong = 0;
        double start = now();
        for (int i = 0; i < calls; i++)
            wrong += ol_accel_is_device(buf) != expect_device;
        double ns = (now() - start) * 1e9 / calls;
        if (wrong) {
            fprintf(stderr, "memtype_cost: %d wrong answers for %p\n", wrong, buf);
            exit(1);
        }
        best = ns < best ? ns : best;
    }
    return best;
}

int main(void)
{
    char why[256];
    if (devmem_init(0, why, sizeof why) != 0) {
        fprintf(stderr, "memtype_cost: %s\n", why);
        return 77;
    }
    /* This program's own copy of the accel layer (libol_core), not MPI's. */
    if (ol_accel_init(0, 1) != MPI_SUCCESS) {
        fprintf(stderr, "memtype_cost: ol_accel_init failed\n");
        return 1;
    }
    const int calls = 200000;
    char *big = malloc(4 << 20), *small = malloc(64);
    void *device = devmem_alloc(1 << 20);
    if (!big || !small || !device) {
        fprintf(stderr, "memtype_cost: cannot allocate the buffers\n");
        return 1;
    }
    printf("ol_accel_is_device, ns per call (best of 5 x %d):\n", calls);
    printf("  host, 4 MiB malloc block + 4096:  %8.1f\n", cost(big + 4096, calls, false));
    printf("  host, malloc(64) in the heap:     %8.1f\n", cost(small, calls, false));
    printf("  device, cuMemAlloc + 4096:        %8.1f\n", cost((char *)device + 4096, calls, true));
    devmem_free(device);
    free(big);
    free(small);
    ol_accel_finalize();
    return 0;
}
