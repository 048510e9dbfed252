/* Self-test of the fake CUDA driver (test/gpu/fake_cuda, a test double):
 * checks the contract that the library's GPU tests rely on, with no MPI.
 *
 * The fake is dlopened like the library does it: from argv[1], else
 * $FAKE_CUDA_LIBRARY, else libcuda.so.1 next to this program. Exit 0 when
 * every check passes, 1 on the first failure (a fake that does not load
 * included: it is only registered as a test where it is built). */
#define _GNU_SOURCE
#include <cuda.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the driver, loaded by name ----------------------------------------- */

#define DRIVER_SYMBOLS(X)                                                       \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorString) X(cuGetErrorName)       \
    X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetPCIBusId)                   \
    X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain)                         \
    X(cuDevicePrimaryCtxRelease_v2) X(cuCtxGetCurrent) X(cuCtxSetCurrent)       \
    X(cuCtxGetDevice) X(cuPointerGetAttributes) X(cuMemAlloc_v2) X(cuMemFree_v2) \
    X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemGetAddressRange_v2)               \
    X(cuMemcpyAsync) X(cuStreamCreate) X(cuStreamDestroy_v2)                    \
    X(cuStreamSynchronize) X(cuEventCreate) X(cuEventRecord) X(cuEventQuery)    \
    X(cuEventSynchronize) X(cuEventDestroy_v2) X(cuIpcGetMemHandle)             \
    X(cuIpcOpenMemHandle_v2) X(cuIpcCloseMemHandle) X(cuModuleLoadData)         \
    X(cuModuleGetFunction) X(cuModuleUnload) X(cuLaunchKernel)                  \
    X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuMemcpyDtoD_v2) X(cuMemsetD8_v2)   \
    X(cuMemsetD32_v2) X(cuMemcpy)

static struct {
#define DECLARE(name) __typeof__(name) *name;
    DRIVER_SYMBOLS(DECLARE)
#undef DECLARE
} cu;

static bool load_driver(const char *path)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "selftest: cannot load %s: %s\n", path, dlerror());
        return false;
    }
#define LOAD(name)                                                              \
    if ((cu.name = (__typeof__(name) *)dlsym(lib, #name)) == NULL) {            \
        fprintf(stderr, "selftest: %s lacks %s\n", path, #name);                \
        return false;                                                           \
    }
    DRIVER_SYMBOLS(LOAD)
#undef LOAD
    return true;
}

/* ---- checks ------------------------------------------------------------- */

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "selftest: %s:%d: check failed: %s\n", __FILE__,    \
                    __LINE__, #cond);                                           \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define EXPECT(code, call)                                                      \
    do {                                                                        \
        CUresult rc_ = (call);                                                  \
        if (rc_ != (code)) {                                                    \
            fprintf(stderr, "selftest: %s:%d: %s returned %d, expected %d\n",   \
                    __FILE__, __LINE__, #call, (int)rc_, (int)(code));          \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

#define OK(call) EXPECT(CUDA_SUCCESS, call)

static CUcontext ctx;

/* A fatbin of one entry, as nvcc lays it out (the fake reads the headers
 * to decide whether the device can run it, never the code): kind 2 is an
 * ELF cubin for sm_<arch>, kind 1 PTX of ISA isa_major.isa_minor for
 * compute_<arch>; flags 0x8000: the payload is zstd-compressed. */
typedef struct {
    uint32_t magic;
    uint16_t version, header_size;
    uint64_t entries_size;
    struct {
        uint16_t kind, format;
        uint32_t header_size;
        uint64_t padded_size;
        uint32_t payload_size, unknown0;
        uint16_t code_minor, code_major;
        uint32_t arch;
        uint64_t unknown1, flags, unknown2, uncompressed_size;
    } entry;
    char payload[8];
} fatbin_t;
enum { PTX = 1, CUBIN = 2, UNCOMPRESSED = 0, ZSTD = 0x8000 };

static fatbin_t fatbin(int kind, int arch, int isa_major, int isa_minor, int flags)
{
    fatbin_t f = {.magic = 0xBA55ED50, .version = 1, .header_size = 16,
                  .entries_size = sizeof f.entry + sizeof f.payload};
    f.entry.kind = (uint16_t)kind;
    f.entry.format = 0x0101;
    f.entry.header_size = sizeof f.entry;
    f.entry.padded_size = f.entry.payload_size = f.entry.uncompressed_size = sizeof f.payload;
    f.entry.code_major = (uint16_t)(kind == PTX ? isa_major : 1);
    f.entry.code_minor = (uint16_t)(kind == PTX ? isa_minor : 8);
    f.entry.arch = (uint32_t)arch;
    f.entry.flags = 0x11 | (uint64_t)flags;  /* 64-bit, Linux */
    return f;
}

static void fill_pattern(void *buf, size_t bytes, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)(seed + i * 7);
}

static bool has_pattern(const void *buf, size_t bytes, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != (unsigned char)(seed + i * 7))
            return false;
    return true;
}

static void start_context(void)
{
    CUdevice dev;
    OK(cu.cuInit(0));
    OK(cu.cuDeviceGet(&dev, 0));
    OK(cu.cuDevicePrimaryCtxRetain(&ctx, dev));
    OK(cu.cuCtxSetCurrent(ctx));
}

/* Runs fn in a child and returns how it ended (the wait status). */
static int in_child(void (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        fn(arg);
        _exit(0);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    return status;
}

static bool died_of_sigsegv(int status)
{
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV;
}

/* ---- before cuInit, devices, contexts ----------------------------------- */

static void check_driver_and_devices(void)
{
    int count, version, value;
    CUdevice dev;
    char bus0[32], bus1[32];
    const char *text;

    EXPECT(CUDA_ERROR_NOT_INITIALIZED, cu.cuDeviceGetCount(&count));
    OK(cu.cuDriverGetVersion(&version));
    CHECK(version == CUDA_VERSION);
    OK(cu.cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &text));
    CHECK(strcmp(text, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0);
    OK(cu.cuGetErrorString(CUDA_ERROR_NOT_READY, &text));
    CHECK(text != NULL && *text != '\0');
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuGetErrorName((CUresult)12345, &text));

    OK(cu.cuInit(0));
    OK(cu.cuDeviceGetCount(&count));
    CHECK(count == 2);      /* main() sets FAKE_CUDA_DEVICES=2 */
    EXPECT(CUDA_ERROR_INVALID_DEVICE, cu.cuDeviceGet(&dev, 2));
    OK(cu.cuDeviceGetPCIBusId(bus0, sizeof bus0, 0));
    OK(cu.cuDeviceGetPCIBusId(bus1, sizeof bus1, 1));
    unsigned domain, bus, device, function;
    CHECK(sscanf(bus0, "%x:%x:%x.%x", &domain, &bus, &device, &function) == 4);
    CHECK(strcmp(bus0, bus1) != 0);
    OK(cu.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 0));
    CHECK(value == 1);
    OK(cu.cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0));
    CHECK((unsigned)value == bus);
}

static void check_contexts(void)
{
    CUdeviceptr dptr;
    CUcontext current, again;
    CUdevice dev;

    OK(cu.cuCtxGetCurrent(&current));
    CHECK(current == NULL);
    EXPECT(CUDA_ERROR_INVALID_CONTEXT, cu.cuMemAlloc_v2(&dptr, 64));
    EXPECT(CUDA_ERROR_INVALID_CONTEXT, cu.cuCtxGetDevice(&dev));
    start_context();
    OK(cu.cuDevicePrimaryCtxRetain(&again, 0));
    CHECK(again == ctx);
    OK(cu.cuDevicePrimaryCtxRelease_v2(0));
    OK(cu.cuCtxGetCurrent(&current));
    CHECK(current == ctx);
    OK(cu.cuCtxGetDevice(&dev));
    CHECK(dev == 0);
}

/* ---- memory ------------------------------------------------------------- */

typedef struct {
    CUcontext context;
    unsigned memory_type;
    CUdeviceptr device_pointer;
    int ordinal;
    unsigned long long buffer_id;
    CUdeviceptr range_start;
    size_t range_size;
    int is_managed;
} attributes_t;

static attributes_t pointer_attributes(const void *ptr)
{
    attributes_t a;
    memset(&a, 0x5a, sizeof a);     /* so that "zeroed" is really written */
    CUpointer_attribute which[] = {
        CU_POINTER_ATTRIBUTE_CONTEXT,          CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        CU_POINTER_ATTRIBUTE_DEVICE_POINTER,   CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_BUFFER_ID,        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
        CU_POINTER_ATTRIBUTE_RANGE_SIZE,       CU_POINTER_ATTRIBUTE_IS_MANAGED,
    };
    void *data[] = {&a.context,   &a.memory_type, &a.device_pointer, &a.ordinal,
                    &a.buffer_id, &a.range_start, &a.range_size,     &a.is_managed};
    OK(cu.cuPointerGetAttributes(8, which, data, (CUdeviceptr)(uintptr_t)ptr));
    return a;
}

static void read_device_pointer(void *ptr)
{
    volatile char *p = ptr;
    (void)*p;
}

static void write_device_pointer(void *ptr)
{
    volatile char *p = ptr;
    *p = 1;
}

static void use_driver_after_fork(void *arg)
{
    CUdeviceptr dptr;
    (void)arg;
    if (cu.cuMemAlloc_v2(&dptr, 64) != CUDA_ERROR_NOT_INITIALIZED)
        _exit(2);
}

static void check_device_memory(void)
{
    CUdeviceptr dptr, other;
    const size_t size = 10000;

    OK(cu.cuMemAlloc_v2(&dptr, size));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemAlloc_v2(&other, 0));
    void *ptr = (void *)(uintptr_t)dptr;

    /* Not host-accessible: a load or store through it crashes. */
    CHECK(died_of_sigsegv(in_child(read_device_pointer, ptr)));
    CHECK(died_of_sigsegv(in_child(write_device_pointer, (char *)ptr + size - 1)));
    /* And a child forked after cuInit cannot use the driver. */
    int status = in_child(use_driver_after_fork, NULL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    attributes_t a = pointer_attributes((char *)ptr + 100);
    CHECK(a.context == ctx);
    CHECK(a.memory_type == CU_MEMORYTYPE_DEVICE);
    CHECK(a.device_pointer == dptr + 100);
    CHECK(a.ordinal == 0);
    CHECK(a.buffer_id != 0);
    CHECK(a.range_start == dptr && a.range_size == size);
    CHECK(a.is_managed == 0);

    CUdeviceptr base;
    size_t range_size;
    OK(cu.cuMemGetAddressRange_v2(&base, &range_size, dptr + size - 1));
    CHECK(base == dptr && range_size == size);

    /* Buffer ids are never reused, freed memory is unknown to the driver. */
    unsigned long long first_id = a.buffer_id;
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemFree_v2(dptr + 1));
    OK(cu.cuMemFree_v2(dptr));
    a = pointer_attributes(ptr);
    CHECK(a.memory_type == 0 && a.buffer_id == 0 && a.context == NULL && a.range_size == 0);
    EXPECT(CUDA_ERROR_NOT_FOUND, cu.cuMemGetAddressRange_v2(&base, &range_size, dptr));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemFree_v2(dptr));
    char host[16];
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemcpyDtoH_v2(host, dptr, sizeof host));
    CHECK(died_of_sigsegv(in_child(read_device_pointer, ptr)));
    OK(cu.cuMemAlloc_v2(&other, size));
    CHECK(pointer_attributes((void *)(uintptr_t)other).buffer_id > first_id);
    OK(cu.cuMemFree_v2(other));
}

static void check_host_memory(void)
{
    int on_stack = 0;
    attributes_t a = pointer_attributes(&on_stack);
    CHECK(a.memory_type == 0 && a.context == NULL && a.device_pointer == 0);
    CHECK(a.buffer_id == 0 && a.range_start == 0 && a.range_size == 0 && a.ordinal == 0);

    void *pinned;
    OK(cu.cuMemHostAlloc(&pinned, 4096, CU_MEMHOSTALLOC_PORTABLE));
    memset(pinned, 1, 4096);    /* ordinary host memory */
    a = pointer_attributes((char *)pinned + 8);
    CHECK(a.memory_type == CU_MEMORYTYPE_HOST && a.context == ctx && a.buffer_id != 0);
    CHECK(a.range_start == (CUdeviceptr)(uintptr_t)pinned && a.range_size == 4096);
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemFreeHost((char *)pinned + 8));
    OK(cu.cuMemFreeHost(pinned));
    CHECK(pointer_attributes(pinned).memory_type == 0);
}

/* ---- copies, memsets, streams and events -------------------------------- */

static void check_synchronous_copies(void)
{
    enum { N = 5000 };
    static unsigned char src[N], dst[N];
    CUdeviceptr a, b;
    OK(cu.cuMemAlloc_v2(&a, N));
    OK(cu.cuMemAlloc_v2(&b, N));

    fill_pattern(src, N, 3);
    OK(cu.cuMemcpyHtoD_v2(a, src, N));
    OK(cu.cuMemcpyDtoD_v2(b, a, N));
    memset(dst, 0, N);
    OK(cu.cuMemcpyDtoH_v2(dst, b, N));
    CHECK(has_pattern(dst, N, 3));

    /* Unified addressing: cuMemcpy finds the direction from the pointers. */
    CUdeviceptr host_src = (CUdeviceptr)(uintptr_t)src, host_dst = (CUdeviceptr)(uintptr_t)dst;
    fill_pattern(src, N, 11);
    OK(cu.cuMemcpy(a, host_src, N));
    OK(cu.cuMemcpy(b + 1, a, N - 1));
    OK(cu.cuMemcpy(host_dst, b + 1, N - 1));
    CHECK(has_pattern(dst, N - 1, 11));
    OK(cu.cuMemcpy(host_dst, host_src, N));

    /* Directions and bounds are checked. */
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemcpyHtoD_v2(a, (void *)(uintptr_t)b, 8));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemcpyDtoH_v2(dst, host_src, 8));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemcpyDtoH_v2(dst, a + 1, N));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemcpy(a + N, host_src, 1));

    /* Memsets. */
    OK(cu.cuMemsetD8_v2(a, 0xab, N));
    OK(cu.cuMemsetD32_v2(b, 0x01020304, N / 4));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemsetD32_v2(b + 1, 0, 1));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuMemsetD8_v2(host_dst, 0, 1));
    OK(cu.cuMemcpyDtoH_v2(dst, a, N));
    for (size_t i = 0; i < N; i++)
        CHECK(dst[i] == 0xab);
    uint32_t words[N / 4];
    OK(cu.cuMemcpyDtoH_v2(words, b, sizeof words));
    for (size_t i = 0; i < N / 4; i++)
        CHECK(words[i] == 0x01020304);

    OK(cu.cuMemFree_v2(a));
    OK(cu.cuMemFree_v2(b));
}

/* Polls an event the way the library must: NOT_READY, then done. */
static int polls_until_done(CUevent event)
{
    int not_ready = 0;
    CUresult rc;
    while ((rc = cu.cuEventQuery(event)) == CUDA_ERROR_NOT_READY)
        not_ready++;
    OK(rc);
    return not_ready;
}

static void check_async_copies(void)
{
    enum { N = 4096 };
    CUstream stream;
    CUevent event;
    CUdeviceptr dev;
    unsigned char *pinned, pageable[N];

    OK(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    OK(cu.cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    OK(cu.cuMemAlloc_v2(&dev, N));
    OK(cu.cuMemHostAlloc((void **)&pinned, N, 0));

    /* Nothing recorded yet, or nothing queued: complete at once. */
    OK(cu.cuEventQuery(event));
    OK(cu.cuEventRecord(event, stream));
    OK(cu.cuEventQuery(event));

    /* Pinned to device and back: the data appears only once the event says
     * the copy is done (a program reading earlier reads stale data). */
    fill_pattern(pinned, N / 2, 5);
    memset(pinned + N / 2, 0, N / 2);
    OK(cu.cuMemcpyAsync(dev, (CUdeviceptr)(uintptr_t)pinned, N / 2, stream));
    OK(cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)(pinned + N / 2), dev, N / 2, stream));
    OK(cu.cuEventRecord(event, stream));
    CHECK(!has_pattern(pinned + N / 2, N / 2, 5));
    CHECK(polls_until_done(event) >= 1);
    CHECK(has_pattern(pinned + N / 2, N / 2, 5));

    /* Pageable memory: the copy is done on return, the event still has to
     * be polled. */
    fill_pattern(pageable, N, 9);
    OK(cu.cuMemcpyAsync(dev, (CUdeviceptr)(uintptr_t)pageable, N, stream));
    memset(pageable, 0, N);
    OK(cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)pageable, dev, N, stream));
    CHECK(has_pattern(pageable, N, 9));
    OK(cu.cuEventRecord(event, stream));
    CHECK(polls_until_done(event) >= 1);

    /* Stream and event synchronisation complete the work. */
    memset(pinned, 0, N);
    OK(cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)pinned, dev, N, stream));
    OK(cu.cuEventRecord(event, stream));
    OK(cu.cuStreamSynchronize(stream));
    CHECK(has_pattern(pinned, N, 9));
    OK(cu.cuEventQuery(event));
    memset(pinned, 0, N);
    OK(cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)pinned, dev, N, NULL));
    OK(cu.cuEventRecord(event, NULL));
    OK(cu.cuEventSynchronize(event));
    CHECK(has_pattern(pinned, N, 9));
    OK(cu.cuEventQuery(event));

    EXPECT(CUDA_ERROR_INVALID_HANDLE, cu.cuStreamDestroy_v2(NULL));
    OK(cu.cuEventDestroy_v2(event));
    EXPECT(CUDA_ERROR_INVALID_HANDLE, cu.cuEventQuery(event));
    OK(cu.cuStreamDestroy_v2(stream));
    OK(cu.cuMemFreeHost(pinned));
    OK(cu.cuMemFree_v2(dev));
}

/* ---- kernels ------------------------------------------------------------ */

static CUmodule module;

static CUfunction function(const char *name)
{
    CUfunction f;
    OK(cu.cuModuleGetFunction(&f, module, name));
    return f;
}

static CUdeviceptr to_device(const void *host, size_t bytes)
{
    CUdeviceptr dptr;
    OK(cu.cuMemAlloc_v2(&dptr, bytes));
    OK(cu.cuMemcpyHtoD_v2(dptr, host, bytes));
    return dptr;
}

/* ol_reduce_<op>_<type>(inout, in, count) on the null stream. */
static void reduce(const char *name, CUdeviceptr inout, CUdeviceptr in, unsigned long long count)
{
    void *params[] = {&inout, &in, &count};
    OK(cu.cuLaunchKernel(function(name), 1, 1, 1, 128, 1, 1, 0, NULL, params, NULL));
}

typedef struct { const void *p[8]; } reduce_inputs_t;

static void reduce_many(const char *name, CUdeviceptr out, const CUdeviceptr *ins, int n,
                        unsigned long long count, CUstream stream)
{
    reduce_inputs_t inputs = {{0}};
    for (int i = 0; i < n; i++)
        inputs.p[i] = (const void *)(uintptr_t)ins[i];
    void *params[] = {&out, &inputs, &n, &count};
    OK(cu.cuLaunchKernel(function(name), 2, 1, 1, 256, 1, 1, 0, stream, params, NULL));
}

static void check_kernel_names(void)
{
    CUfunction f;
    static const char *const missing[] = {
        "ol_reduce_band_f32", "ol_reduce_max_c64", "ol_reduce_sum_bool", "ol_reduce_band_f16",
        "ol_reduce_nop_i32",  "ol_reduce_sum",     "ol_reduce_many_sum", "other_kernel",
    };
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++)
        EXPECT(CUDA_ERROR_NOT_FOUND, cu.cuModuleGetFunction(&f, module, missing[i]));
    static const char *const present[] = {
        "ol_reduce_sum_f16",  "ol_reduce_many_min_bf16",
        "ol_reduce_sum_i8",   "ol_reduce_bxor_u64",     "ol_reduce_lxor_f64",
        "ol_reduce_prod_c32", "ol_reduce_many_lor_bool", "ol_reduce_many_min_u16",
    };
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++)
        OK(cu.cuModuleGetFunction(&f, module, present[i]));
}

static void check_two_input_kernels(void)
{
    enum { N = 1000 };
    static int32_t a[N], b[N], r[N];
    for (int i = 0; i < N; i++) {
        a[i] = i * 1000003;
        b[i] = INT32_MAX - i;   /* sums overflow: must wrap, as on the device */
    }
    CUdeviceptr da = to_device(a, sizeof a), db = to_device(b, sizeof b);
    reduce("ol_reduce_sum_i32", db, da, N);
    OK(cu.cuMemcpyDtoH_v2(r, db, sizeof r));
    for (int i = 0; i < N; i++)
        CHECK(r[i] == (int32_t)((uint32_t)a[i] + (uint32_t)b[i]));
    OK(cu.cuMemFree_v2(da));
    OK(cu.cuMemFree_v2(db));

    int8_t x[] = {-5, 7, 0, 100, -128}, y[] = {3, -9, 0, 101, 127}, z[5];
    CUdeviceptr dx = to_device(x, sizeof x), dy = to_device(y, sizeof y);
    reduce("ol_reduce_max_i8", dy, dx, 5);
    OK(cu.cuMemcpyDtoH_v2(z, dy, sizeof z));
    for (int i = 0; i < 5; i++)
        CHECK(z[i] == (x[i] > y[i] ? x[i] : y[i]));
    OK(cu.cuMemFree_v2(dx));
    OK(cu.cuMemFree_v2(dy));

    double p[] = {1.5, -2, 0.25}, q[] = {4, 3, 8}, s[3];
    CUdeviceptr dp = to_device(p, sizeof p), dq = to_device(q, sizeof q);
    reduce("ol_reduce_prod_f64", dq, dp, 3);
    OK(cu.cuMemcpyDtoH_v2(s, dq, sizeof s));
    CHECK(s[0] == 6 && s[1] == -6 && s[2] == 2);
    OK(cu.cuMemFree_v2(dp));
    OK(cu.cuMemFree_v2(dq));

    /* Complex product: (1+2i)(3-i) = 5+5i. */
    float c[] = {1, 2}, d[] = {3, -1}, e[2];
    CUdeviceptr dc = to_device(c, sizeof c), dd = to_device(d, sizeof d);
    reduce("ol_reduce_prod_c32", dd, dc, 1);
    OK(cu.cuMemcpyDtoH_v2(e, dd, sizeof e));
    CHECK(e[0] == 5 && e[1] == 5);
    OK(cu.cuMemFree_v2(dc));
    OK(cu.cuMemFree_v2(dd));

    /* Aliasing inout == in: x op x. */
    uint64_t u[] = {0xff00ff00ff00ff00ull, 12345}, v[2];
    CUdeviceptr du = to_device(u, sizeof u);
    reduce("ol_reduce_bxor_u64", du, du, 2);
    OK(cu.cuMemcpyDtoH_v2(v, du, sizeof v));
    CHECK(v[0] == 0 && v[1] == 0);
    OK(cu.cuMemFree_v2(du));
}

static void check_many_input_kernels(void)
{
    enum { N = 300, INPUTS = 8 };
    static float in[INPUTS][N], out[N];
    CUdeviceptr dins[INPUTS], dout;
    for (int k = 0; k < INPUTS; k++) {
        for (int i = 0; i < N; i++)
            in[k][i] = (float)(k * 10 + i % 7) * 0.5f;
        dins[k] = to_device(in[k], sizeof in[k]);
    }
    OK(cu.cuMemAlloc_v2(&dout, sizeof out));

    /* Left to right: ((in0 + in1) + in2). */
    reduce_many("ol_reduce_many_sum_f32", dout, dins, 3, N, NULL);
    OK(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
    for (int i = 0; i < N; i++)
        CHECK(out[i] == (in[0][i] + in[1][i]) + in[2][i]);

    /* out is one of the inputs; on a stream, finished by its event. */
    CUstream stream;
    CUevent done;
    OK(cu.cuStreamCreate(&stream, 0));
    OK(cu.cuEventCreate(&done, CU_EVENT_DISABLE_TIMING));
    reduce_many("ol_reduce_many_max_f32", dins[1], dins, INPUTS, N, stream);
    OK(cu.cuEventRecord(done, stream));
    CHECK(polls_until_done(done) >= 1);
    OK(cu.cuMemcpyDtoH_v2(out, dins[1], sizeof out));
    for (int i = 0; i < N; i++) {
        float expected = in[0][i];
        for (int k = 1; k < INPUTS; k++)
            expected = in[k][i] > expected ? in[k][i] : expected;
        CHECK(out[i] == expected);
    }
    OK(cu.cuEventDestroy_v2(done));
    OK(cu.cuStreamDestroy_v2(stream));

    /* One input is a copy. */
    reduce_many("ol_reduce_many_prod_f32", dout, dins, 1, N, NULL);
    OK(cu.cuMemcpyDtoH_v2(out, dout, sizeof out));
    CHECK(memcmp(out, in[0], sizeof out) == 0);

    /* bool: logical xor of {1, 2, 0} is 0 (two true inputs), as bytes 0/1. */
    uint8_t b0[] = {1, 0, 2}, b1[] = {2, 0, 0}, b2[] = {0, 0, 5}, bout[3];
    CUdeviceptr dbs[] = {to_device(b0, 3), to_device(b1, 3), to_device(b2, 3)}, dbout;
    OK(cu.cuMemAlloc_v2(&dbout, 3));
    reduce_many("ol_reduce_many_lxor_bool", dbout, dbs, 3, 3, NULL);
    OK(cu.cuMemcpyDtoH_v2(bout, dbout, 3));
    CHECK(bout[0] == 0 && bout[1] == 0 && bout[2] == 0);
    reduce_many("ol_reduce_many_lor_bool", dbout, dbs, 3, 3, NULL);
    OK(cu.cuMemcpyDtoH_v2(bout, dbout, 3));
    CHECK(bout[0] == 1 && bout[1] == 0 && bout[2] == 1);

    for (int k = 0; k < 3; k++)
        OK(cu.cuMemFree_v2(dbs[k]));
    OK(cu.cuMemFree_v2(dbout));
    for (int k = 0; k < INPUTS; k++)
        OK(cu.cuMemFree_v2(dins[k]));
    OK(cu.cuMemFree_v2(dout));
}

/* ---- IPC ---------------------------------------------------------------- */

enum { IPC_BYTES = 8192, IPC_INTS = IPC_BYTES / 4 };

/* The child: forked before the parent's cuInit (CUDA does not survive
 * fork), it maps the parent's buffer, checks what the parent wrote, adds
 * its own data with a kernel and a copy. */
static int ipc_child(int from_parent, int to_parent)
{
    CUipcMemHandle handle;
    if (read(from_parent, &handle, sizeof handle) != (ssize_t)sizeof handle)
        return 2;
    start_context();
    fatbin_t image = fatbin(CUBIN, 90, 0, 0, ZSTD);
    OK(cu.cuModuleLoadData(&module, &image));

    CUdeviceptr mapped;
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuIpcOpenMemHandle_v2(&mapped, handle, 0));
    OK(cu.cuIpcOpenMemHandle_v2(&mapped, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CHECK(died_of_sigsegv(in_child(read_device_pointer, (void *)(uintptr_t)mapped)));
    attributes_t a = pointer_attributes((void *)(uintptr_t)mapped);
    CHECK(a.memory_type == CU_MEMORYTYPE_DEVICE && a.range_size == IPC_BYTES);

    static int32_t seen[IPC_INTS], ones[IPC_INTS];
    OK(cu.cuMemcpyDtoH_v2(seen, mapped, IPC_BYTES));
    for (int i = 0; i < IPC_INTS; i++)
        CHECK(seen[i] == i);

    /* mapped[i] = 1 + mapped[i] by a kernel, then the second half
     * overwritten by a plain copy. */
    for (int i = 0; i < IPC_INTS; i++)
        ones[i] = 1;
    CUdeviceptr dones = to_device(ones, sizeof ones);
    reduce("ol_reduce_sum_i32", mapped, dones, IPC_INTS);
    OK(cu.cuMemcpy(mapped + IPC_BYTES / 2, (CUdeviceptr)(uintptr_t)ones, IPC_BYTES / 2));

    /* Opening again shares the mapping; each open needs its close. */
    CUdeviceptr again;
    OK(cu.cuIpcOpenMemHandle_v2(&again, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CHECK(again == mapped);
    OK(cu.cuIpcCloseMemHandle(again));
    OK(cu.cuIpcCloseMemHandle(mapped));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuIpcCloseMemHandle(mapped));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuIpcCloseMemHandle(dones));
    OK(cu.cuMemFree_v2(dones));
    char done = 1;
    return write(to_parent, &done, 1) == 1 ? 0 : 3;
}

static pid_t start_ipc_child(int *to_child, int *from_child)
{
    int down[2], up[2];
    CHECK(pipe(down) == 0 && pipe(up) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        _exit(ipc_child(down[0], up[1]));
    }
    close(down[0]);
    close(up[1]);
    *to_child = down[1];
    *from_child = up[0];
    return pid;
}

static void check_ipc(pid_t child, int to_child, int from_child)
{
    static int32_t data[IPC_INTS];
    for (int i = 0; i < IPC_INTS; i++)
        data[i] = i;
    CUdeviceptr dptr = to_device(data, sizeof data);
    CUipcMemHandle handle, again;
    OK(cu.cuIpcGetMemHandle(&handle, dptr));
    OK(cu.cuIpcGetMemHandle(&again, dptr));
    CHECK(memcmp(&handle, &again, sizeof handle) == 0);

    /* The real driver refuses to open a process's own handle. */
    CUdeviceptr self;
    EXPECT(CUDA_ERROR_INVALID_CONTEXT,
           cu.cuIpcOpenMemHandle_v2(&self, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));

    CHECK(write(to_child, &handle, sizeof handle) == (ssize_t)sizeof handle);
    char done = 0;
    CHECK(read(from_child, &done, 1) == 1 && done == 1);
    int status;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    OK(cu.cuMemcpyDtoH_v2(data, dptr, sizeof data));
    for (int i = 0; i < IPC_INTS / 2; i++)
        CHECK(data[i] == i + 1);
    for (int i = IPC_INTS / 2; i < IPC_INTS; i++)
        CHECK(data[i] == 1);
    OK(cu.cuMemFree_v2(dptr));
    close(to_child);
    close(from_child);
}

/* ---- device faults and failure injection -------------------------------- */

static void check_device_fault(void)
{
    enum { N = 16 };
    static int64_t host[N];
    CUdeviceptr dev = to_device(host, sizeof host);
    CUdeviceptr host_ptr = (CUdeviceptr)(uintptr_t)host;
    unsigned long long count = N;
    void *params[] = {&dev, &host_ptr, &count};
    CUfunction f = function("ol_reduce_sum_i64");

    /* Bad shapes and parameter styles are plain errors, not faults. */
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuLaunchKernel(f, 0, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    EXPECT(CUDA_ERROR_INVALID_VALUE, cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    OK(cu.cuStreamSynchronize(NULL));

    /* A host pointer as a kernel argument is a device fault, and the context
     * stays faulted: later calls report it. */
    EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS,
           cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
    EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, cu.cuStreamSynchronize(NULL));
    EXPECT(CUDA_ERROR_ILLEGAL_ADDRESS, cu.cuMemcpyDtoH_v2(host, dev, sizeof host));

    /* Releasing the last reference resets the context: memory is gone, the
     * fault cleared. */
    OK(cu.cuModuleUnload(module));
    OK(cu.cuDevicePrimaryCtxRelease_v2(0));
    EXPECT(CUDA_ERROR_CONTEXT_IS_DESTROYED, cu.cuMemcpyDtoH_v2(host, dev, sizeof host));
    CHECK(pointer_attributes((void *)(uintptr_t)dev).memory_type == 0);
    start_context();
    OK(cu.cuStreamSynchronize(NULL));
}

/* Runs this program again as `self library mode`, with the environment
 * variables in env ("NAME=value" ..., NULL) set, and checks that it passed:
 * the fake reads its environment once. */
static void check_rerun(const char *self, const char *library, const char *mode,
                        const char *const *env)
{
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        for (int i = 0; env[i] != NULL; i++)
            putenv((char *)env[i]);
        execl("/proc/self/exe", self, library, mode, (char *)NULL);
        _exit(4);
    }
    int status;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void check_injected_failures(const char *self, const char *library)
{
    const char *const env[] = {"FAKE_CUDA_FAIL=cuMemAlloc:2,cuStreamCreate",
                               "FAKE_CUDA_FAIL_AFTER=1", NULL};
    check_rerun(self, library, "--injected-failures", env);
}

/* Run in a fresh process with FAKE_CUDA_FAIL set by the parent. */
static int run_injected_failures(void)
{
    CUdeviceptr dptr;
    CUstream stream;
    start_context();
    OK(cu.cuMemAlloc_v2(&dptr, 16));    /* FAKE_CUDA_FAIL_AFTER=1 spares it */
    EXPECT(CUDA_ERROR_OUT_OF_MEMORY, cu.cuMemAlloc_v2(&dptr, 16));
    EXPECT(CUDA_ERROR_UNKNOWN, cu.cuStreamCreate(&stream, 0));
    OK(cu.cuMemFree_v2(dptr));
    return 0;
}

/* ---- kernel images --------------------------------------------------------- */

/* What cuModuleLoadData accepts on the default device (compute capability
 * 9.0, a CUDA 13.0 driver): cubins of the device's major version up to its
 * minor, PTX of an older or equal arch in an ISA the driver knows. */
static void check_module_images(void)
{
    CUmodule m;
    const char not_a_fatbin[] = "not a fatbin, not a cubin, not PTX";
    EXPECT(CUDA_ERROR_INVALID_IMAGE, cu.cuModuleLoadData(&m, not_a_fatbin));
    fatbin_t runs[] = {fatbin(CUBIN, 90, 0, 0, ZSTD), fatbin(PTX, 80, 9, 0, UNCOMPRESSED),
                       fatbin(PTX, 90, 8, 5, ZSTD)};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        OK(cu.cuModuleLoadData(&m, &runs[i]));
        OK(cu.cuModuleUnload(m));
    }
    fatbin_t other_arch[] = {fatbin(CUBIN, 80, 0, 0, 0), fatbin(CUBIN, 100, 0, 0, 0),
                             fatbin(PTX, 100, 9, 0, 0)};
    for (size_t i = 0; i < sizeof other_arch / sizeof other_arch[0]; i++)
        EXPECT(CUDA_ERROR_NO_BINARY_FOR_GPU, cu.cuModuleLoadData(&m, &other_arch[i]));
    fatbin_t newer_ptx = fatbin(PTX, 80, 9, 9, 0);
    EXPECT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, cu.cuModuleLoadData(&m, &newer_ptx));
}

/* Run with FAKE_CUDA_CC=7.0 and FAKE_CUDA_DRIVER_VERSION=12020 (a V100 on
 * a CUDA 12.2 driver): what the main checks load is refused there. */
static int run_old_gpu_and_driver(void)
{
    int version, major, minor;
    OK(cu.cuDriverGetVersion(&version));
    CHECK(version == 12020);
    start_context();
    OK(cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0));
    OK(cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0));
    CHECK(major == 7 && minor == 0);
    CUmodule m;
    fatbin_t runs[] = {fatbin(CUBIN, 70, 0, 0, UNCOMPRESSED), fatbin(PTX, 70, 8, 2, 0)};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        OK(cu.cuModuleLoadData(&m, &runs[i]));
        OK(cu.cuModuleUnload(m));
    }
    /* zstd needs a 12.4 driver; sm_75 code does not run on 7.0 */
    fatbin_t refused[] = {fatbin(CUBIN, 70, 0, 0, ZSTD), fatbin(CUBIN, 75, 0, 0, 0),
                          fatbin(CUBIN, 90, 0, 0, 0)};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        EXPECT(CUDA_ERROR_NO_BINARY_FOR_GPU, cu.cuModuleLoadData(&m, &refused[i]));
    fatbin_t newer_ptx = fatbin(PTX, 70, 9, 0, 0);
    EXPECT(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, cu.cuModuleLoadData(&m, &newer_ptx));
    return 0;
}

static void check_old_gpu_and_driver(const char *self, const char *library)
{
    const char *const env[] = {"FAKE_CUDA_CC=7.0", "FAKE_CUDA_DRIVER_VERSION=12020", NULL};
    check_rerun(self, library, "--old-gpu-and-driver", env);
}

/* ---- main --------------------------------------------------------------- */

static const char *library_path(int argc, char **argv, char *buf, size_t size)
{
    if (argc > 1)
        return argv[1];
    if (getenv("FAKE_CUDA_LIBRARY") != NULL)
        return getenv("FAKE_CUDA_LIBRARY");
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len < 0)
        return "libcuda.so.1";
    exe[len] = '\0';
    snprintf(buf, size, "%s/libcuda.so.1", dirname(exe));
    return buf;
}

int main(int argc, char **argv)
{
    char path_buf[PATH_MAX + 32];
    const char *library = library_path(argc, argv, path_buf, sizeof path_buf);

    if (argc > 2 && strcmp(argv[2], "--injected-failures") == 0)
        return load_driver(library) ? run_injected_failures() : 1;
    if (argc > 2 && strcmp(argv[2], "--old-gpu-and-driver") == 0)
        return load_driver(library) ? run_old_gpu_and_driver() : 1;

    /* The checks assume the fake's defaults, bar two devices. */
    unsetenv("FAKE_CUDA_FAIL");
    unsetenv("FAKE_CUDA_CC");
    unsetenv("FAKE_CUDA_DRIVER_VERSION");
    setenv("FAKE_CUDA_ASYNC", "1", 1);
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    if (!load_driver(library))
        return 1;

    int to_child, from_child;
    pid_t ipc_child_pid = start_ipc_child(&to_child, &from_child);

    check_driver_and_devices();
    check_contexts();
    check_device_memory();
    check_host_memory();
    check_synchronous_copies();
    check_async_copies();
    check_module_images();
    fatbin_t image = fatbin(CUBIN, 90, 0, 0, ZSTD);
    OK(cu.cuModuleLoadData(&module, &image));
    check_kernel_names();
    check_two_input_kernels();
    check_many_input_kernels();
    check_ipc(ipc_child_pid, to_child, from_child);
    check_device_fault();
    check_injected_failures(argv[0], library);
    check_old_gpu_and_driver(argv[0], library);
    printf("selftest: fake CUDA driver %s passes\n", library);
    return 0;
}
