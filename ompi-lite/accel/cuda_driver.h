/* The part of the CUDA driver API that accel/ uses, declared here so that
 * the layer builds without cuda.h (driver.c checks every value against
 * cuda.h when configure found CUDA), and the table of entry points that
 * driver.c fills with dlsym.
 *
 * Only the symbols listed in OL_CU_FUNCTIONS may be used: the fake driver
 * of test/gpu/fake_cuda/ exports exactly these. */
#ifndef OL_CUDA_DRIVER_H
#define OL_CUDA_DRIVER_H

#include <stdbool.h>
#include <stddef.h>

typedef int ol_cu_result_t;
typedef int ol_cu_device_t;
typedef unsigned long long ol_cu_deviceptr_t; /* CUdeviceptr on 64-bit hosts */
typedef struct ol_cu_context *ol_cu_context_t;
typedef struct ol_cu_stream *ol_cu_stream_t;
typedef struct ol_cu_event *ol_cu_event_t;
typedef struct ol_cu_module *ol_cu_module_t;
typedef struct ol_cu_function *ol_cu_function_t;

#define OL_CU_IPC_HANDLE_SIZE 64
typedef struct {
    char reserved[OL_CU_IPC_HANDLE_SIZE];
} ol_cu_ipc_mem_handle_t;
typedef struct {
    char reserved[OL_CU_IPC_HANDLE_SIZE];
} ol_cu_ipc_event_handle_t;

/* CU_STREAM_LEGACY: the legacy default stream, whatever the calling
 * thread's default stream is. */
#define OL_CU_STREAM_LEGACY ((ol_cu_stream_t)0x1)

/* CUresult */
enum {
    OL_CUDA_SUCCESS = 0,
    OL_CUDA_ERROR_INVALID_VALUE = 1,
    OL_CUDA_ERROR_NOT_INITIALIZED = 3,
    OL_CUDA_ERROR_DEINITIALIZED = 4,
    OL_CUDA_ERROR_NO_DEVICE = 100,
    OL_CUDA_ERROR_INVALID_CONTEXT = 201,
    OL_CUDA_ERROR_NOT_READY = 600,
};

/* CUpointer_attribute */
enum {
    OL_CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    OL_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS = 6,
    OL_CU_POINTER_ATTRIBUTE_BUFFER_ID = 7,
    OL_CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    OL_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
    OL_CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
    OL_CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
    OL_CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE = 17, /* CUDA 11.2 and later */
};

/* CUmemorytype */
enum {
    OL_CU_MEMORYTYPE_HOST = 1,
    OL_CU_MEMORYTYPE_DEVICE = 2,
    OL_CU_MEMORYTYPE_ARRAY = 3,
    OL_CU_MEMORYTYPE_UNIFIED = 4,
};

/* Flags and attributes */
enum {
    OL_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS = 1, /* CUipcMem_flags */
    OL_CU_EVENT_DISABLE_TIMING = 2,             /* CUevent_flags */
    OL_CU_EVENT_INTERPROCESS = 4,               /* CUevent_flags */
    OL_CU_MEMHOSTALLOC_PORTABLE = 1,            /* cuMemHostAlloc */
    OL_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16, /* CUdevice_attribute */
    OL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    OL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

/* "13.0" from cuDriverGetVersion's 13000: the arguments of "%d.%d". */
#define OL_CU_VERSION_PARTS(version) (version) / 1000, (version) % 1000 / 10

/* X(symbol, parameter list): every driver entry point accel/ calls. */
#define OL_CU_FUNCTIONS(X)                                                                     \
    X(cuInit, (unsigned int flags))                                                            \
    X(cuDriverGetVersion, (int *version))                                                      \
    X(cuGetErrorString, (ol_cu_result_t error, const char **text))                             \
    X(cuGetErrorName, (ol_cu_result_t error, const char **name))                               \
    X(cuDeviceGetCount, (int *count))                                                          \
    X(cuDeviceGet, (ol_cu_device_t *device, int ordinal))                                      \
    X(cuDeviceGetPCIBusId, (char *bus_id, int length, ol_cu_device_t device))                  \
    X(cuDeviceGetAttribute, (int *value, int attribute, ol_cu_device_t device))                \
    X(cuDevicePrimaryCtxRetain, (ol_cu_context_t *context, ol_cu_device_t device))             \
    X(cuDevicePrimaryCtxRelease_v2, (ol_cu_device_t device))                                   \
    X(cuCtxGetCurrent, (ol_cu_context_t *context))                                             \
    X(cuCtxSetCurrent, (ol_cu_context_t context))                                              \
    X(cuCtxPushCurrent_v2, (ol_cu_context_t context))                                          \
    X(cuCtxPopCurrent_v2, (ol_cu_context_t *context))                                          \
    X(cuCtxGetDevice, (ol_cu_device_t *device))                                                \
    X(cuPointerGetAttributes, (unsigned int count, int *attributes, void **data,               \
                               ol_cu_deviceptr_t pointer))                                     \
    X(cuMemAlloc_v2, (ol_cu_deviceptr_t *pointer, size_t bytes))                               \
    X(cuMemFree_v2, (ol_cu_deviceptr_t pointer))                                               \
    X(cuMemHostAlloc, (void **pointer, size_t bytes, unsigned int flags))                      \
    X(cuMemFreeHost, (void *pointer))                                                          \
    X(cuMemGetAddressRange_v2, (ol_cu_deviceptr_t *base, size_t *size,                         \
                                ol_cu_deviceptr_t pointer))                                    \
    X(cuMemcpyAsync, (ol_cu_deviceptr_t dst, ol_cu_deviceptr_t src, size_t bytes,              \
                      ol_cu_stream_t stream))                                                  \
    X(cuStreamCreate, (ol_cu_stream_t *stream, unsigned int flags))                            \
    X(cuStreamDestroy_v2, (ol_cu_stream_t stream))                                             \
    X(cuStreamSynchronize, (ol_cu_stream_t stream))                                            \
    X(cuEventCreate, (ol_cu_event_t *event, unsigned int flags))                               \
    X(cuEventRecord, (ol_cu_event_t event, ol_cu_stream_t stream))                             \
    X(cuEventQuery, (ol_cu_event_t event))                                                     \
    X(cuEventSynchronize, (ol_cu_event_t event))                                               \
    X(cuEventDestroy_v2, (ol_cu_event_t event))                                                \
    X(cuIpcGetMemHandle, (ol_cu_ipc_mem_handle_t *handle, ol_cu_deviceptr_t pointer))          \
    X(cuIpcOpenMemHandle_v2, (ol_cu_deviceptr_t *pointer, ol_cu_ipc_mem_handle_t handle,       \
                              unsigned int flags))                                             \
    X(cuIpcCloseMemHandle, (ol_cu_deviceptr_t pointer))                                        \
    X(cuIpcGetEventHandle, (ol_cu_ipc_event_handle_t *handle, ol_cu_event_t event))            \
    X(cuIpcOpenEventHandle, (ol_cu_event_t *event, ol_cu_ipc_event_handle_t handle))           \
    X(cuStreamWaitEvent, (ol_cu_stream_t stream, ol_cu_event_t event, unsigned int flags))     \
    X(cuPointerSetAttribute, (const void *value, int attribute, ol_cu_deviceptr_t pointer))    \
    X(cuModuleLoadData, (ol_cu_module_t *module, const void *image))                           \
    X(cuModuleGetFunction, (ol_cu_function_t *function, ol_cu_module_t module,                 \
                            const char *name))                                                 \
    X(cuModuleUnload, (ol_cu_module_t module))                                                 \
    X(cuLaunchKernel, (ol_cu_function_t function, unsigned int grid_x, unsigned int grid_y,    \
                       unsigned int grid_z, unsigned int block_x, unsigned int block_y,        \
                       unsigned int block_z, unsigned int shared_bytes, ol_cu_stream_t stream, \
                       void **parameters, void **extra))

/* The entry points, valid once ol_cu_open() succeeded. */
#define OL_CU_POINTER(name, params) ol_cu_result_t (*name) params;
typedef struct {
    OL_CU_FUNCTIONS(OL_CU_POINTER)
} ol_cu_table_t;
#undef OL_CU_POINTER

extern ol_cu_table_t ol_cu;

/* Opens the driver once (dlopen of OMPI_LITE_CUDA_LIBRARY, or of `found`
 * when the watch saw the program load a libcuda, or of libcuda.so.1) and
 * calls cuInit. True when every entry point resolved and cuInit succeeded;
 * otherwise ol_cu_problem() says why. Later calls return the first answer. */
bool ol_cu_open(const char *found);
/* After ol_cu_open: whether cuPointerGetAttributes can still be asked what
 * a buffer is, though the driver is unusable (too old: an entry point is
 * missing; cuInit failed). Device buffers are then recognised and refused,
 * never taken for host memory. */
bool ol_cu_can_query(void);
/* Why the driver cannot be used ("" when it can, or was never tried). */
const char *ol_cu_problem(void);
/* The library path that was opened or tried. */
const char *ol_cu_library(void);
/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)": the driver's name and text
 * of an error, in a buffer of the calling thread. */
const char *ol_cu_error_text(ol_cu_result_t result);

#endif
