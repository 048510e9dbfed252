/* Opening the CUDA driver with dlopen, so that the library runs where there
 * is none, and naming its errors. */
#include "accel_internal.h"
#include "ol_log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef OL_HAVE_CUDA
/* Our declarations must say what cuda.h says. */
#include <cuda.h>
#define SAME(ours, theirs) _Static_assert((long)(ours) == (long)(theirs), #ours " differs from cuda.h")
SAME(OL_CUDA_SUCCESS, CUDA_SUCCESS);
SAME(OL_CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_VALUE);
SAME(OL_CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_NOT_INITIALIZED);
SAME(OL_CUDA_ERROR_DEINITIALIZED, CUDA_ERROR_DEINITIALIZED);
SAME(OL_CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SAME(OL_CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_CONTEXT);
SAME(OL_CUDA_ERROR_NOT_READY, CUDA_ERROR_NOT_READY);
SAME(OL_CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
SAME(OL_CU_POINTER_ATTRIBUTE_BUFFER_ID, CU_POINTER_ATTRIBUTE_BUFFER_ID);
SAME(OL_CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_IS_MANAGED);
SAME(OL_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
SAME(OL_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
SAME(OL_CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_RANGE_SIZE);
SAME(OL_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE);
SAME(OL_CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_HOST);
SAME(OL_CU_MEMORYTYPE_DEVICE, CU_MEMORYTYPE_DEVICE);
SAME(OL_CU_MEMORYTYPE_ARRAY, CU_MEMORYTYPE_ARRAY);
SAME(OL_CU_MEMORYTYPE_UNIFIED, CU_MEMORYTYPE_UNIFIED);
SAME(OL_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
SAME(OL_CU_EVENT_DISABLE_TIMING, CU_EVENT_DISABLE_TIMING);
SAME(OL_CU_MEMHOSTALLOC_PORTABLE, CU_MEMHOSTALLOC_PORTABLE);
SAME(OL_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME(OL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(OL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME(OL_CU_IPC_HANDLE_SIZE, CU_IPC_HANDLE_SIZE);
SAME(sizeof(ol_cu_ipc_mem_handle_t), sizeof(CUipcMemHandle));
SAME(sizeof(ol_cu_ipc_event_handle_t), sizeof(CUipcEventHandle));
SAME(OL_CU_EVENT_INTERPROCESS, CU_EVENT_INTERPROCESS);
SAME(OL_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS);
SAME(sizeof(ol_cu_deviceptr_t), sizeof(CUdeviceptr));
SAME(sizeof(ol_cu_result_t), sizeof(CUresult));
SAME(sizeof(ol_cu_device_t), sizeof(CUdevice));
#undef SAME
#endif

ol_cu_table_t ol_cu;

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static bool open_tried, open_ok, query_ok;
static void *handle;
static char library[4096];
static char problem[512];

/* Every entry point; the first one missing is named in `problem`, and the
 * others are still looked up (cuPointerGetAttributes may be there). */
static bool resolve_symbols(void)
{
    const char *missing = NULL;
#define RESOLVE(name, params)                                                                  \
    *(void **)&ol_cu.name = dlsym(handle, #name);                                              \
    if (!ol_cu.name && !missing)                                                               \
        missing = #name;
    OL_CU_FUNCTIONS(RESOLVE)
#undef RESOLVE
    if (!missing)
        return true;
    int version = 0;
    if (!ol_cu.cuDriverGetVersion || ol_cu.cuDriverGetVersion(&version) != OL_CUDA_SUCCESS)
        version = 0;
    snprintf(problem, sizeof(problem),
             "the CUDA driver %.400s (version %d.%d) is too old: it has no %s", library,
             OL_CU_VERSION_PARTS(version), missing);
    return false;
}

/* Said once, when the driver opens: its version against the one the
 * reduction kernels were built for (reduce.c decides what follows). */
static void log_driver_version(void)
{
    int version = 0;
    if (ol_cu.cuDriverGetVersion(&version) != OL_CUDA_SUCCESS)
        return;
#ifdef OL_HAVE_CUDA
    OL_INFO("accel", "CUDA driver %s: version %d.%d; the reduction kernels need %d.%d or newer "
            "(the release of the nvcc that built them)", library, OL_CU_VERSION_PARTS(version),
            OL_CU_VERSION_PARTS(OL_KERNELS_CUDA_VERSION));
#else
    OL_INFO("accel", "CUDA driver %s: version %d.%d; no reduction kernels (built without CUDA)",
            library, OL_CU_VERSION_PARTS(version));
#endif
}

static bool start_driver(void)
{
    ol_cu_result_t rc = ol_cu.cuInit(0);
    if (rc != OL_CUDA_SUCCESS) {
        snprintf(problem, sizeof(problem), "cuInit failed: %s", ol_cu_error_text(rc));
        return false;
    }
    return true;
}

static void close_library(void)
{
    memset(&ol_cu, 0, sizeof(ol_cu));
    if (handle)
        dlclose(handle);
    handle = NULL;
}

static bool open_library(const char *found)
{
    const char *path = ol_accel_param.cuda_library;
    if (!path || !*path)
        path = found ? found : "libcuda.so.1";
    close_library(); /* a retry after a failed open */
    query_ok = false;
    snprintf(library, sizeof(library), "%s", path);
    /* RTLD_NOLOAD is not used: a tool (ompi_lite_info) opens the driver
     * without the program having loaded it. */
    handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(problem, sizeof(problem), "cannot open the CUDA driver: %.400s",
                 why ? why : library);
        return false;
    }
    bool resolved = resolve_symbols();
    /* cuInit as well where a symbol is missing: a query must not find the
     * driver uninitialised when the program has initialised it. */
    bool started = ol_cu.cuInit && (resolved ? start_driver() : ol_cu.cuInit(0) == OL_CUDA_SUCCESS);
    if (resolved && started) {
        log_driver_version();
        return true;
    }
    /* Unusable, but the driver the program's device memory came from may
     * still say which buffers are device memory (those are then refused
     * with a clear error instead of being read by the CPU). */
    query_ok = ol_cu.cuPointerGetAttributes != NULL;
    if (!query_ok)
        close_library();
    return false;
}

/* A failed open is tried once more when the program has loaded a driver
 * of its own (a tool or MPIX_Query_cuda_support may have looked for
 * libcuda.so.1 before, when there was none on the search path). */
static bool tried_found;

bool ol_cu_open(const char *found)
{
    if (__atomic_load_n(&open_tried, __ATOMIC_ACQUIRE)) {
        bool ok = __atomic_load_n(&open_ok, __ATOMIC_ACQUIRE);
        if (ok || !found || __atomic_load_n(&tried_found, __ATOMIC_ACQUIRE))
            return ok;
    }
    pthread_mutex_lock(&open_lock);
    if (!open_tried || (!open_ok && found && !tried_found)) {
        ol_accel_params_load();
        __atomic_store_n(&open_ok, open_library(found), __ATOMIC_RELEASE);
        __atomic_store_n(&tried_found, found != NULL, __ATOMIC_RELEASE);
        __atomic_store_n(&open_tried, true, __ATOMIC_RELEASE);
    }
    bool ok = open_ok;
    pthread_mutex_unlock(&open_lock);
    return ok;
}

bool ol_cu_can_query(void)
{
    return __atomic_load_n(&open_tried, __ATOMIC_ACQUIRE) && (open_ok || query_ok);
}

const char *ol_cu_problem(void)
{
    return __atomic_load_n(&open_tried, __ATOMIC_ACQUIRE) ? problem : "";
}

const char *ol_cu_library(void)
{
    return __atomic_load_n(&open_tried, __ATOMIC_ACQUIRE) ? library : "";
}

const char *ol_cu_error_text(ol_cu_result_t result)
{
    static __thread char text[256];
    const char *name = NULL, *description = NULL;
    if (ol_cu.cuGetErrorName)
        ol_cu.cuGetErrorName(result, &name);
    if (ol_cu.cuGetErrorString)
        ol_cu.cuGetErrorString(result, &description);
    if (name && description)
        snprintf(text, sizeof(text), "%s (%s)", name, description);
    else
        snprintf(text, sizeof(text), "CUDA error %d", result);
    return text;
}

int ol_cu_driver_version(void)
{
    int version = 0;
    ol_cu_open(NULL);
    if (!ol_cu_can_query() || !ol_cu.cuDriverGetVersion ||
        ol_cu.cuDriverGetVersion(&version) != OL_CUDA_SUCCESS)
        version = 0;
    return version;
}
