/* Device buffers through the CUDA driver API, opened with dlopen; see
 * devmem.h. The few prototypes are declared here so that no CUDA header is
 * needed to build. */
#include "devmem.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

typedef int cu_result;                /* CUresult: 0 is CUDA_SUCCESS */
typedef unsigned long long cu_ptr;    /* CUdeviceptr */
typedef int cu_device;
typedef void *cu_context;

static struct {
    cu_result (*init)(unsigned);
    cu_result (*device_count)(int *);
    cu_result (*device_get)(cu_device *, int);
    cu_result (*ctx_retain)(cu_context *, cu_device);
    cu_result (*ctx_set)(cu_context);
    cu_result (*alloc)(cu_ptr *, size_t);
    cu_result (*free)(cu_ptr);
    cu_result (*memset8)(cu_ptr, unsigned char, size_t);
    cu_result (*htod)(cu_ptr, const void *, size_t);
    cu_result (*dtoh)(void *, cu_ptr, size_t);
} cu;

static int load(void *lib, void *fn, const char *name)
{
    void *sym = dlsym(lib, name);
    *(void **)fn = sym;
    return sym ? 0 : -1;
}

int devmem_init(int local_rank, char *why, size_t why_len)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    cu_device dev;
    cu_context ctx;
    int n = 0;

    if (!lib) {
        snprintf(why, why_len, "no CUDA driver (%s)", dlerror());
        return -1;
    }
    if (load(lib, &cu.init, "cuInit") || load(lib, &cu.device_count, "cuDeviceGetCount") ||
        load(lib, &cu.device_get, "cuDeviceGet") ||
        load(lib, &cu.ctx_retain, "cuDevicePrimaryCtxRetain") ||
        load(lib, &cu.ctx_set, "cuCtxSetCurrent") || load(lib, &cu.alloc, "cuMemAlloc_v2") ||
        load(lib, &cu.free, "cuMemFree_v2") || load(lib, &cu.memset8, "cuMemsetD8_v2") ||
        load(lib, &cu.htod, "cuMemcpyHtoD_v2") || load(lib, &cu.dtoh, "cuMemcpyDtoH_v2")) {
        snprintf(why, why_len, "libcuda.so.1 lacks a driver API function");
        return -1;
    }
    if (cu.init(0) != 0 || cu.device_count(&n) != 0 || n == 0) {
        snprintf(why, why_len, "no GPU found");
        return -1;
    }
    if (cu.device_get(&dev, local_rank % n) != 0 || cu.ctx_retain(&ctx, dev) != 0 ||
        cu.ctx_set(ctx) != 0) {
        snprintf(why, why_len, "cannot open a context on GPU %d", local_rank % n);
        return -1;
    }
    return 0;
}

void *devmem_alloc(size_t bytes)
{
    cu_ptr p;
    if (cu.alloc(&p, bytes ? bytes : 1) != 0)
        return NULL;
    if (cu.memset8(p, 0, bytes) != 0) {
        cu.free(p);
        return NULL;
    }
    return (void *)(uintptr_t)p;
}

void devmem_free(void *p)
{
    if (p)
        cu.free((cu_ptr)(uintptr_t)p);
}

int devmem_to_device(void *dst, const void *src, size_t bytes)
{
    return cu.htod((cu_ptr)(uintptr_t)dst, src, bytes) ? -1 : 0;
}

int devmem_to_host(void *dst, const void *src, size_t bytes)
{
    return cu.dtoh(dst, (cu_ptr)(uintptr_t)src, bytes) ? -1 : 0;
}
