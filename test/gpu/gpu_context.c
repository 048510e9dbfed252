/* gpu_context: the program's current CUDA context is its own. The library
 * may make its context current only for its own driver calls: after
 * MPI_Init (program had none current) none is current; after MPI calls on
 * device buffers the program's choice is still current, whether it is the
 * primary context of another device than the library's (cudaSetDevice) or
 * a context the program made with cuCtxCreate. Uses the driver directly
 * (dlopen), as a program that manages contexts does. */
#include "gpu_test.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;
typedef void *cu_context;
typedef unsigned long long cu_ptr;

static struct {
    cu_result (*init)(unsigned);
    cu_result (*device_count)(int *);
    cu_result (*primary_retain)(cu_context *, int);
    cu_result (*ctx_get)(cu_context *);
    cu_result (*ctx_set)(cu_context);
    cu_result (*ctx_create)(cu_context *, void *, unsigned, int);
    cu_result (*ctx_destroy)(cu_context);
    cu_result (*alloc)(cu_ptr *, size_t);
    cu_result (*free)(cu_ptr);
    cu_result (*htod)(cu_ptr, const void *, size_t);
    cu_result (*dtoh)(void *, cu_ptr, size_t);
} cu;

/* Before MPI_Init: the driver opened and initialised, no context current. */
static const char *open_driver(void)
{
    const char *path = getenv("OMPI_LITE_CUDA_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        return "no CUDA driver";
    struct { void *slot; const char *name; } fns[] = {
        {&cu.init, "cuInit"}, {&cu.device_count, "cuDeviceGetCount"},
        {&cu.primary_retain, "cuDevicePrimaryCtxRetain"}, {&cu.ctx_get, "cuCtxGetCurrent"},
        {&cu.ctx_set, "cuCtxSetCurrent"}, {&cu.ctx_create, "cuCtxCreate_v4"},
        {&cu.ctx_destroy, "cuCtxDestroy_v2"}, {&cu.alloc, "cuMemAlloc_v2"},
        {&cu.free, "cuMemFree_v2"}, {&cu.htod, "cuMemcpyHtoD_v2"}, {&cu.dtoh, "cuMemcpyDtoH_v2"},
    };
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        if (!(*(void **)fns[i].slot = dlsym(lib, fns[i].name)))
            return "the driver lacks an entry point (too old)";
    return cu.init(0) == 0 ? NULL : "cuInit failed";
}

static cu_context current(void)
{
    cu_context c = NULL;
    if (cu.ctx_get(&c) != 0)
        gt_fail("cuCtxGetCurrent failed");
    return c;
}

static void expect_current(const char *when, cu_context want)
{
    cu_context got = current();
    if (got != want)
        gt_fail("%s: the current context is %p, the program's is %p", when, got, want);
}

enum { COUNT = 1000 };

/* An allreduce and a ring exchange on buffers allocated in the program's
 * current context; results checked, and that context still current. */
static void exercise(const char *name, cu_context mine)
{
    size_t bytes = COUNT * sizeof(int);
    cu_ptr in, out, ring;
    if (cu.alloc(&in, bytes) || cu.alloc(&out, bytes) || cu.alloc(&ring, bytes))
        gt_die("%s: cuMemAlloc failed", name);
    int *host = malloc(bytes), *want = malloc(bytes);
    for (int i = 0; i < COUNT; i++)
        host[i] = i + gt_rank;
    cu.htod(in, host, bytes);
    gt_check_rc("MPI_Allreduce", MPI_Allreduce((void *)(uintptr_t)in, (void *)(uintptr_t)out,
                                               COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    expect_current(name, mine);
    cu.dtoh(host, out, bytes);
    for (int i = 0; i < COUNT; i++)
        want[i] = gt_size * i + gt_size * (gt_size - 1) / 2;
    gt_check_bytes(name, host, want, bytes);
    int right = (gt_rank + 1) % gt_size, left = (gt_rank + gt_size - 1) % gt_size;
    gt_check_rc("MPI_Sendrecv", MPI_Sendrecv((void *)(uintptr_t)in, COUNT, MPI_INT, right, 7,
                                             (void *)(uintptr_t)ring, COUNT, MPI_INT, left, 7,
                                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_current(name, mine);
    cu.dtoh(host, ring, bytes);
    for (int i = 0; i < COUNT; i++)
        want[i] = i + left;
    gt_check_bytes(name, host, want, bytes);
    cu.free(in);
    cu.free(out);
    cu.free(ring);
    free(host);
    free(want);
}

int main(int argc, char **argv)
{
    const char *why = open_driver();
    gt_start("gpu_context", &argc, &argv);
    int ok = why == NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (gt_rank == 0)
            fprintf(stderr, "gpu_context: %s\n", why ? why : "some rank has no driver");
        gt_skip();
    }
    expect_current("after MPI_Init", NULL);

    /* cudaSetDevice: another device than the library chose (local rank
     * modulo the count), where there are two or more. */
    int devices = 0;
    cu.device_count(&devices);
    cu_context primary;
    if (cu.primary_retain(&primary, (gt_rank + 1) % devices) || cu.ctx_set(primary))
        gt_die("cannot make a primary context current");
    exercise("primary context of another device", primary);

    cu_context own;
    if (cu.ctx_create(&own, NULL, 0, gt_rank % devices))
        gt_die("cuCtxCreate failed");
    exercise("the program's own cuCtxCreate context", own);
    cu.ctx_destroy(own);
    expect_current("after cuCtxDestroy", primary);
    return gt_finish();
}
