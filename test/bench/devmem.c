/* Device memory through the CUDA driver API, opened with dlopen; see
 * devmem.h. The few prototypes are declared here so that no CUDA header is
 * needed to build. */
#include "devmem.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;                /* CUresult: 0 is CUDA_SUCCESS */
typedef unsigned long long cu_ptr;    /* CUdeviceptr */
typedef int cu_device;
typedef void *cu_context;

static struct {
    cu_result (*init)(unsigned);
    cu_result (*device_count)(int *);
    cu_result (*device_get)(cu_device *, int);
    cu_result (*device_name)(char *, int, cu_device);  /* optional */
    cu_result (*ctx_retain)(cu_context *, cu_device);
    cu_result (*ctx_set)(cu_context);
    cu_result (*stream_sync)(void *);
    cu_result (*stream_create)(void **, unsigned);
    cu_result (*alloc)(cu_ptr *, size_t);
    cu_result (*alloc_async)(cu_ptr *, size_t, void *);   /* optional */
    cu_result (*alloc_managed)(cu_ptr *, size_t, unsigned); /* optional */
    cu_result (*free)(cu_ptr);
    cu_result (*memset8)(cu_ptr, unsigned char, size_t);
    cu_result (*htod)(cu_ptr, const void *, size_t);
    cu_result (*dtoh)(void *, cu_ptr, size_t);
    cu_result (*dtod)(cu_ptr, cu_ptr, size_t);
} cu;

static int devices;
static cu_device current;

static int load(void *lib, void *fn, const char *name)
{
    void *sym = dlsym(lib, name);
    *(void **)fn = sym;
    return sym ? 0 : -1;
}

static int load_all(void *lib)
{
    load(lib, &cu.device_name, "cuDeviceGetName");
    load(lib, &cu.alloc_async, "cuMemAllocAsync");
    load(lib, &cu.alloc_managed, "cuMemAllocManaged");
    return load(lib, &cu.init, "cuInit") || load(lib, &cu.device_count, "cuDeviceGetCount") ||
           load(lib, &cu.device_get, "cuDeviceGet") ||
           load(lib, &cu.ctx_retain, "cuDevicePrimaryCtxRetain") ||
           load(lib, &cu.ctx_set, "cuCtxSetCurrent") ||
           load(lib, &cu.stream_sync, "cuStreamSynchronize") ||
           load(lib, &cu.stream_create, "cuStreamCreate") ||
           load(lib, &cu.alloc, "cuMemAlloc_v2") || load(lib, &cu.free, "cuMemFree_v2") ||
           load(lib, &cu.memset8, "cuMemsetD8_v2") || load(lib, &cu.htod, "cuMemcpyHtoD_v2") ||
           load(lib, &cu.dtoh, "cuMemcpyDtoH_v2") || load(lib, &cu.dtod, "cuMemcpyDtoD_v2");
}

int devmem_init(int local_rank, char *why, size_t why_len)
{
    const char *path = getenv("OMPI_LITE_CUDA_LIBRARY");
    void *lib;
    cu_context ctx;
    int n = 0;

    if (!path || !*path)
        path = "libcuda.so.1";
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, why_len, "no CUDA driver (%s)", dlerror());
        return -1;
    }
    if (load_all(lib)) {
        snprintf(why, why_len, "%s lacks a driver API function", path);
        return -1;
    }
    if (cu.init(0) != 0 || cu.device_count(&n) != 0 || n == 0) {
        snprintf(why, why_len, "no GPU found by %s", path);
        return -1;
    }
    if (cu.device_get(&current, local_rank % n) != 0 || cu.ctx_retain(&ctx, current) != 0 ||
        cu.ctx_set(ctx) != 0) {
        snprintf(why, why_len, "cannot open a context on GPU %d", local_rank % n);
        return -1;
    }
    devices = n;
    return 0;
}

int devmem_device_count(void)
{
    return devices;
}

void devmem_device_name(char *name, size_t len)
{
    if (!cu.device_name || cu.device_name(name, (int)len, current) != 0)
        snprintf(name, len, "unknown");
}

/* DEVMEM_KIND=pool: cuMemAllocAsync on the legacy stream (the stream-ordered
 * pool, as cudaMallocAsync); managed: cuMemAllocManaged (global); anything
 * else: cuMemAlloc. Memory of other kinds than cuMemAlloc's is what CUDA
 * IPC refuses, so tests use it to make the library take its fallbacks. */
static cu_result alloc_of_kind(cu_ptr *p, size_t bytes)
{
    const char *kind = getenv("DEVMEM_KIND");
    if (kind && strcmp(kind, "pool") == 0)
        return cu.alloc_async ? cu.alloc_async(p, bytes, NULL) : -1;
    if (kind && strcmp(kind, "managed") == 0)
        return cu.alloc_managed ? cu.alloc_managed(p, bytes, 1 /* CU_MEM_ATTACH_GLOBAL */) : -1;
    return cu.alloc(p, bytes);
}

void *devmem_alloc(size_t bytes)
{
    cu_ptr p;
    if (alloc_of_kind(&p, bytes ? bytes : 1) != 0)
        return NULL;
    if (cu.memset8(p, 0, bytes) != 0 || devmem_sync() != 0) {
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

/* cuMemcpyDtoD and cuMemsetD8 may return before the copy is done. */
int devmem_copy(void *dst, const void *src, size_t bytes)
{
    if (cu.dtod((cu_ptr)(uintptr_t)dst, (cu_ptr)(uintptr_t)src, bytes) != 0)
        return -1;
    return devmem_sync();
}

int devmem_set(void *p, unsigned char value, size_t bytes)
{
    if (cu.memset8((cu_ptr)(uintptr_t)p, value, bytes) != 0)
        return -1;
    return devmem_sync();
}

/* The legacy default stream (NULL), where the synchronous calls above run. */
int devmem_sync(void)
{
    return cu.stream_sync(NULL) ? -1 : 0;
}

void *devmem_stream_create(void)
{
    void *stream;
    return cu.stream_create(&stream, 1 /* CU_STREAM_NON_BLOCKING */) ? NULL : stream;
}

int devmem_stream_sync(void *stream)
{
    return cu.stream_sync(stream) ? -1 : 0;
}
