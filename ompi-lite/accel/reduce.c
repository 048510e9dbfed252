/* Reductions on device memory: the kernels of kernels.cu, embedded as a
 * fatbin (kernels_fatbin.c, generated at build time), loaded on the first
 * device reduction and looked up once per (op, type).
 *
 * A datatype gets a kernel exactly when the host op table (op/) defines
 * the op on it and its C type is one the kernels know: the integers of 1,
 * 2, 4 and 8 bytes, binary16, bfloat16, float, double, the complex pairs of
 * float and double, and C bool. Long
 * double, the MINLOC/MAXLOC pair types and user ops stay on the host. A
 * derived type qualifies when all its data is one such type and lies
 * contiguous.
 *
 * Where the kernels cannot be used (a driver older than the nvcc that
 * built them, or cuModuleLoadData failing: a GPU they have no code for,
 * such as a V100), ol_accel_kernels_usable says no, once decided for the
 * process, and the callers stage device operands through host memory. */
#include "accel_internal.h"
#include "ol_log.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#ifdef OL_HAVE_CUDA
extern const unsigned char ol_accel_kernels_fatbin[];
#endif

/* ---- which kernel ---------------------------------------------------------- */

typedef enum {
    NO_KERNEL, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C32, C64, BOOL,
    KERNEL_TYPES
} kernel_type_t;

static const char *const type_names[KERNEL_TYPES] = {
    [I8] = "i8",   [U8] = "u8",   [I16] = "i16", [U16] = "u16", [I32] = "i32",
    [U32] = "u32", [I64] = "i64", [U64] = "u64", [F16] = "f16", [BF16] = "bf16",
    [F32] = "f32", [F64] = "f64", [C32] = "c32", [C64] = "c64", [BOOL] = "bool",
};

enum { OP_BASE = 0x20, OP_COUNT = 0x20 };

/* Kernel names of the ops, by handle value; bit masks of the kernel types
 * each op has kernels for. */
#define OP(handle) [(uintptr_t)(handle) - OP_BASE]
static const char *const op_names[OP_COUNT] = {
    OP(MPI_SUM) = "sum",   OP(MPI_PROD) = "prod", OP(MPI_MAX) = "max", OP(MPI_MIN) = "min",
    OP(MPI_LAND) = "land", OP(MPI_LOR) = "lor",   OP(MPI_LXOR) = "lxor",
    OP(MPI_BAND) = "band", OP(MPI_BOR) = "bor",   OP(MPI_BXOR) = "bxor",
};
#define BIT(t) (1u << (t))
#define INTEGERS (BIT(I8) | BIT(U8) | BIT(I16) | BIT(U16) | BIT(I32) | BIT(U32) | BIT(I64) | BIT(U64))
#define REALS (INTEGERS | BIT(F16) | BIT(BF16) | BIT(F32) | BIT(F64))
#define COMPLEX (BIT(C32) | BIT(C64))
static const unsigned kernel_types_of_op[OP_COUNT] = {
    OP(MPI_SUM) = REALS | COMPLEX, OP(MPI_PROD) = REALS | COMPLEX,
    OP(MPI_MAX) = REALS,           OP(MPI_MIN) = REALS,
    OP(MPI_LAND) = INTEGERS | BIT(BOOL), OP(MPI_LOR) = INTEGERS | BIT(BOOL),
    OP(MPI_LXOR) = INTEGERS | BIT(BOOL), OP(MPI_BAND) = INTEGERS,
    OP(MPI_BOR) = INTEGERS,        OP(MPI_BXOR) = INTEGERS,
};

/* The kernel type of a predefined datatype: the same C types as the host
 * table in op/predefined.c, by size and signedness. */
#define SIZED(type, t1, t2, t4, t8)                                                             \
    (sizeof(type) == 1 ? t1 : sizeof(type) == 2 ? t2 : sizeof(type) == 4 ? t4 : t8)
#define SIGNED(type) SIZED(type, I8, I16, I32, I64)
#define UNSIGNED(type) SIZED(type, U8, U16, U32, U64)
#define DT(handle) [OL_DT_SLOT(handle)]
_Static_assert(sizeof(_Bool) == 1, "the bool kernels read one byte");
static const unsigned char kernel_type_of[OL_DT_SLOTS] = {
    DT(MPI_AINT) = SIGNED(MPI_Aint),
    DT(MPI_COUNT) = SIGNED(MPI_Count),
    DT(MPI_OFFSET) = SIGNED(MPI_Offset),
    DT(MPI_SHORT) = SIGNED(short),
    DT(MPI_INT) = SIGNED(int),
    DT(MPI_LONG) = SIGNED(long),
    DT(MPI_LONG_LONG) = SIGNED(long long),
    DT(MPI_UNSIGNED_SHORT) = UNSIGNED(unsigned short),
    DT(MPI_UNSIGNED) = UNSIGNED(unsigned),
    DT(MPI_UNSIGNED_LONG) = UNSIGNED(unsigned long),
    DT(MPI_UNSIGNED_LONG_LONG) = UNSIGNED(unsigned long long),
    DT(MPI_INT8_T) = I8,
    DT(MPI_UINT8_T) = U8,
    DT(MPI_INT16_T) = I16,
    DT(MPI_UINT16_T) = U16,
    DT(MPI_INT32_T) = I32,
    DT(MPI_UINT32_T) = U32,
    DT(MPI_INT64_T) = I64,
    DT(MPI_UINT64_T) = U64,
    DT(MPI_SIGNED_CHAR) = I8,
    DT(MPI_UNSIGNED_CHAR) = U8,
    DT(MPI_CHAR) = CHAR_MIN < 0 ? I8 : U8,
    DT(MPI_WCHAR) = UNSIGNED(wchar_t), /* unsigned, as the host table has it */
    DT(MPI_BYTE) = U8,
    DT(MPI_INTEGER1) = I8,
    DT(MPI_INTEGER2) = I16,
    DT(MPI_INTEGER4) = I32,
    DT(MPI_INTEGER8) = I64,
    DT(MPI_LOGICAL1) = I8,
    DT(MPI_LOGICAL2) = I16,
    DT(MPI_LOGICAL4) = I32,
    DT(MPI_LOGICAL8) = I64,
    DT(MPI_REAL2) = F16,
    DT(MPIX_C_FLOAT16) = F16,
    DT(MPIX_C_BF16) = BF16,
    DT(MPI_FLOAT) = F32,
    DT(MPI_REAL4) = F32,
    DT(MPI_DOUBLE) = F64,
    DT(MPI_REAL8) = F64,
    DT(MPI_C_FLOAT_COMPLEX) = C32,
    DT(MPI_CXX_FLOAT_COMPLEX) = C32,
    DT(MPI_COMPLEX8) = C32,
    DT(MPI_C_DOUBLE_COMPLEX) = C64,
    DT(MPI_CXX_DOUBLE_COMPLEX) = C64,
    DT(MPI_COMPLEX16) = C64,
    DT(MPI_C_BOOL) = BOOL,
    DT(MPI_CXX_BOOL) = BOOL,
};

typedef struct {
    int op;            /* handle value - OP_BASE */
    kernel_type_t type;
    size_t type_size;  /* bytes of one element of the kernel's type */
} kernel_choice_t;

static bool choose_kernel(const ol_op_t *op, const ol_datatype_t *dt, kernel_choice_t *choice)
{
    if (!ol_accel_built() || !op->predefined || op->index < 0 || op->index >= OP_COUNT)
        return false;
    const ol_datatype_t *basic = ol_dt_basic_type(dt);
    if (!basic || (dt != basic && !dt->contiguous))
        return false;
    int slot = ol_dt_slot((uintptr_t)ol_dt_to_handle(ol_dt_sized_twin(basic)));
    if (slot < 0)
        return false;
    kernel_type_t type = kernel_type_of[slot];
    if (type == NO_KERNEL || !(kernel_types_of_op[op->index] & BIT(type)))
        return false;
    *choice = (kernel_choice_t){op->index, type, basic->size};
    return true;
}

bool ol_accel_can_reduce(const ol_op_t *op, const ol_datatype_t *dt)
{
    kernel_choice_t choice;
    return choose_kernel(op, dt, &choice);
}

/* ---- the module and its functions ------------------------------------------- */

enum { TWO_INPUTS, MANY_INPUTS };
static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;
static ol_cu_module_t module;
static ol_cu_function_t functions[2][OP_COUNT][KERNEL_TYPES];
/* Decided once per process by the first load. */
static enum { KERNELS_UNKNOWN, KERNELS_LOADED, KERNELS_UNUSABLE } kernels;
static char kernels_problem[512];

#ifdef OL_HAVE_CUDA
/* "CUDA device 0 of compute capability 7.0": the device of the current
 * context, for the sentence that says why the module did not load. */
static void describe_device(char *text, size_t size)
{
    ol_cu_device_t device;
    int major = 0, minor = 0;
    if (ol_cu.cuCtxGetDevice(&device) != OL_CUDA_SUCCESS ||
        ol_cu.cuDeviceGetAttribute(&major, OL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   device) != OL_CUDA_SUCCESS ||
        ol_cu.cuDeviceGetAttribute(&minor, OL_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   device) != OL_CUDA_SUCCESS)
        snprintf(text, size, "the CUDA device");
    else
        snprintf(text, size, "CUDA device %d of compute capability %d.%d", device, major, minor);
}

/* Why the kernels cannot be used ("" when the module loaded). The version
 * comes first: a compressed fatbin of a newer toolkit is not for an older
 * driver to try. */
static void load_module_checked(void)
{
    int version = ol_cu_driver_version();
    if (version < OL_KERNELS_CUDA_VERSION) {
        snprintf(kernels_problem, sizeof(kernels_problem),
                 "the CUDA driver's version %d.%d is older than the %d.%d of the nvcc that "
                 "built the reduction kernels", OL_CU_VERSION_PARTS(version),
                 OL_CU_VERSION_PARTS(OL_KERNELS_CUDA_VERSION));
        return;
    }
    ol_cu_result_t rc = ol_cu.cuModuleLoadData(&module, ol_accel_kernels_fatbin);
    if (rc != OL_CUDA_SUCCESS) {
        char device[96];
        describe_device(device, sizeof(device));
        snprintf(kernels_problem, sizeof(kernels_problem),
                 "cuModuleLoadData refused the reduction kernels on %s: %s", device,
                 ol_cu_error_text(rc));
        module = NULL;
    }
}
#endif

/* Loads the module the first time (called entered, with module_lock held)
 * and says once, at info, when device reductions are staged instead. */
static void load_module(void)
{
    if (kernels != KERNELS_UNKNOWN)
        return;
#ifdef OL_HAVE_CUDA
    load_module_checked();
#else
    snprintf(kernels_problem, sizeof(kernels_problem),
             "ompi-lite was built without CUDA support (no reduction kernels)");
#endif
    __atomic_store_n(&kernels, kernels_problem[0] ? KERNELS_UNUSABLE : KERNELS_LOADED,
                     __ATOMIC_RELEASE);
    if (kernels == KERNELS_UNUSABLE)
        OL_INFO("accel", "device reductions are staged through host memory: %s",
                kernels_problem);
}

bool ol_accel_kernels_usable(const void *device_buf)
{
    int known = __atomic_load_n(&kernels, __ATOMIC_ACQUIRE);
    if (known != KERNELS_UNKNOWN)
        return known == KERNELS_LOADED;
    if (!ol_accel_built() || ol_accel_enter(device_buf) != OL_OK)
        return false; /* the caller's copies meet the same error and report it */
    pthread_mutex_lock(&module_lock);
    load_module();
    pthread_mutex_unlock(&module_lock);
    ol_accel_leave();
    return kernels == KERNELS_LOADED;
}

const char *ol_accel_kernels_problem(void)
{
    return __atomic_load_n(&kernels, __ATOMIC_ACQUIRE) == KERNELS_UNUSABLE ? kernels_problem
                                                                           : "";
}

static ol_status_t find_function(int form, const kernel_choice_t *k, ol_cu_function_t *function)
{
    ol_cu_function_t *slot = &functions[form][k->op][k->type];
    *function = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (*function)
        return OL_OK;
    ol_status_t rc = OL_OK;
    pthread_mutex_lock(&module_lock);
    load_module();
    if (kernels != KERNELS_LOADED) {
        ol_error_detail("no device reduction kernels: %s", kernels_problem);
        rc = MPI_ERR_OTHER;
    }
    if (rc == OL_OK) {
        char name[64];
        snprintf(name, sizeof(name), "ol_reduce_%s%s_%s", form == MANY_INPUTS ? "many_" : "",
                 op_names[k->op], type_names[k->type]);
        ol_cu_result_t cu = ol_cu.cuModuleGetFunction(function, module, name);
        if (cu == OL_CUDA_SUCCESS)
            __atomic_store_n(slot, *function, __ATOMIC_RELEASE);
        else
            rc = ol_accel_cuda_failed(name, cu);
    }
    pthread_mutex_unlock(&module_lock);
    return rc;
}

void ol_accel_reduce_finalize(void)
{
    pthread_mutex_lock(&module_lock);
    if (module)
        ol_cu.cuModuleUnload(module);
    module = NULL;
    if (kernels == KERNELS_LOADED)
        kernels = KERNELS_UNKNOWN;
    memset(functions, 0, sizeof(functions));
    pthread_mutex_unlock(&module_lock);
}

/* ---- launching ---------------------------------------------------------------- */

/* 256 threads a block (kernels.cu's launch bounds), each moving 16 bytes
 * per step; at most 8 blocks per multiprocessor (2048 threads, a full
 * H100/H200 SM), the grid-stride loops doing the rest. */
enum { THREADS = 256, BYTES_PER_THREAD_STEP = 16, BLOCKS_PER_SM = 8 };

static unsigned grid_for(size_t elements, size_t element_size)
{
    size_t bytes_per_block = (size_t)THREADS * BYTES_PER_THREAD_STEP;
    size_t blocks = (elements * element_size + bytes_per_block - 1) / bytes_per_block;
    size_t most = (size_t)ol_accel_multiprocessors() * BLOCKS_PER_SM;
    if (blocks > most)
        blocks = most;
    return blocks ? (unsigned)blocks : 1;
}

static ol_status_t launch(ol_cu_function_t function, size_t elements, size_t element_size,
                          void **parameters)
{
    ol_cu_result_t rc = ol_cu.cuLaunchKernel(function, grid_for(elements, element_size), 1, 1,
                                             THREADS, 1, 1, 0, ol_accel_stream(), parameters, NULL);
    return rc == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuLaunchKernel", rc);
}

/* Where the data of count elements of dt starts, and how many elements of
 * the kernel's type it holds. */
static size_t kernel_elements(const ol_datatype_t *dt, const kernel_choice_t *k, size_t count)
{
    return count * dt->size / k->type_size;
}

static const void *data_start(const ol_datatype_t *dt, const void *buf)
{
    return (const char *)buf + (dt->predefined ? 0 : dt->true_lb);
}

/* Alignment the kernels need, and whether operands have it (below). */
static size_t kernel_alignment(const kernel_choice_t *k);
static bool all_aligned(const void *const *ptrs, int n, const void *out, size_t align);

static ol_status_t prepare(const ol_op_t *op, const ol_datatype_t *dt, const void *device_buf,
                           int form, kernel_choice_t *k, ol_cu_function_t *function)
{
    if (!choose_kernel(op, dt, k)) {
        ol_error_detail("no device kernel reduces %s on %s", op->name, dt->name);
        return MPI_ERR_OP;
    }
    ol_status_t rc = ol_accel_enter(device_buf);
    if (rc != OL_OK)
        return rc;
    rc = find_function(form, k, function);
    if (rc != OL_OK)
        ol_accel_leave();
    return rc;
}

/* A failed reduction's sentence also names the buffer it was writing, so
 * that a fault (an operand in freed or foreign memory) can be traced. */
static ol_status_t name_buffer(ol_status_t rc, const ol_op_t *op, const ol_datatype_t *dt,
                               const void *out, size_t count)
{
    if (rc == OL_OK)
        return rc;
    char why[512];
    snprintf(why, sizeof(why), "%s", ol_error_detail_take());
    ol_error_detail("%s (reducing %zu elements of %s with %s into the device buffer %p)", why,
                    count, dt->name, op->name, out);
    return rc;
}

ol_status_t ol_accel_reduce(const ol_op_t *op, const ol_datatype_t *dt, const void *in,
                            void *inout, size_t count)
{
    const void *ins[2] = {in, inout};
    ol_accel_event_t *done;
    kernel_choice_t k;
    if (choose_kernel(op, dt, &k) &&
        !all_aligned(ins, 2, inout, kernel_alignment(&k))) { /* staged: the many form */
        ol_status_t rc = ol_accel_reduce_many_async(op, dt, ins, 2, inout, count, &done);
        if (rc == OL_OK) {
            rc = ol_accel_synchronize();
            ol_accel_event_free(done);
        }
        return rc;
    }
    ol_cu_function_t function;
    ol_status_t rc = prepare(op, dt, inout, TWO_INPUTS, &k, &function);
    if (rc != OL_OK)
        return rc;
    if (count > 0) {
        unsigned long long elements = kernel_elements(dt, &k, count);
        const void *from = data_start(dt, in);
        void *to = (void *)data_start(dt, inout);
        void *parameters[] = {&to, &from, &elements};
        rc = launch(function, elements, k.type_size, parameters);
        if (rc == OL_OK)
            rc = ol_accel_synchronize();
    }
    ol_accel_leave();
    return name_buffer(rc, op, dt, inout, count);
}

/* The kernels' by-value input list: eight pointers, 64 bytes. */
typedef struct {
    const void *p[OL_ACCEL_REDUCE_MAX_INPUTS];
} reduce_inputs_t;
_Static_assert(sizeof(reduce_inputs_t) == 64, "kernels.cu expects 64 bytes of inputs");

/* ---- misaligned operands ------------------------------------------------------ */

/* The kernels load whole elements: an operand that is not aligned to its
 * element type (a buffer at an odd offset inside an allocation, which the
 * host path accepts) would fault with CUDA_ERROR_MISALIGNED_ADDRESS, sticky
 * on the context the program shares. Such operands are copied to aligned
 * device scratch (copies take any address), reduced there and copied back,
 * all on the library's stream, so the data never leaves the GPU. */
static size_t kernel_alignment(const kernel_choice_t *k)
{
    return k->type == C32 || k->type == C64 ? k->type_size / 2 : k->type_size;
}

static bool all_aligned(const void *const *ptrs, int n, const void *out, size_t align)
{
    bool aligned = (uintptr_t)out % align == 0;
    for (int i = 0; i < n; i++)
        aligned = aligned && (uintptr_t)ptrs[i] % align == 0;
    return aligned;
}

/* The aligned twins of n inputs and out (out may be one of the inputs, and
 * then shares its twin); the inputs' data is queued to be copied in. */
typedef struct {
    void *scratch[OL_ACCEL_REDUCE_MAX_INPUTS + 1];
    int used;
} twins_t;

static void *twin_of(twins_t *t, const void *ptr, size_t bytes, bool copy_in, size_t align)
{
    if ((uintptr_t)ptr % align == 0)
        return (void *)ptr;
    void *s = ol_accel_device_alloc(bytes);
    if (s) {
        t->scratch[t->used++] = s;
        if (copy_in && ol_cu.cuMemcpyAsync((ol_cu_deviceptr_t)(uintptr_t)s,
                                           (ol_cu_deviceptr_t)(uintptr_t)ptr, bytes,
                                           ol_accel_stream()) != OL_CUDA_SUCCESS)
            return NULL;
    }
    return s;
}

static void free_twins(twins_t *t)
{
    /* The pool hands blocks out again only for work on the same stream,
     * queued after ours. */
    for (int i = 0; i < t->used; i++)
        ol_accel_device_free(t->scratch[i]);
}

/* out = ins[0] op ... op ins[n-1] through aligned twins (called entered). */
static ol_status_t launch_many_staged(ol_cu_function_t function, const kernel_choice_t *k,
                                      const void *const *ins, int n, void *out,
                                      unsigned long long elements)
{
    size_t bytes = elements * k->type_size, align = kernel_alignment(k);
    twins_t t = {.used = 0};
    reduce_inputs_t inputs = {{0}};
    void *to = NULL;
    bool ok = true;
    for (int i = 0; i < n && ok; i++) {
        for (int j = 0; j < i && !inputs.p[i]; j++) /* the same operand twice: one twin */
            if (ins[j] == ins[i])
                inputs.p[i] = inputs.p[j];
        if (!inputs.p[i])
            inputs.p[i] = twin_of(&t, ins[i], bytes, true, align);
        ok = inputs.p[i] != NULL;
        if (ins[i] == out)
            to = (void *)inputs.p[i];
    }
    if (ok && !to)
        to = twin_of(&t, out, bytes, false, align);
    ol_status_t rc = MPI_ERR_NO_MEM;
    if (ok && to) {
        void *parameters[] = {&to, &inputs, &n, &elements};
        rc = launch(function, elements, k->type_size, parameters);
    }
    if (rc == OL_OK && to != out) {
        ol_cu_result_t cu = ol_cu.cuMemcpyAsync((ol_cu_deviceptr_t)(uintptr_t)out,
                                                (ol_cu_deviceptr_t)(uintptr_t)to, bytes,
                                                ol_accel_stream());
        rc = cu == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuMemcpyAsync", cu);
    }
    if (rc == MPI_ERR_NO_MEM)
        ol_error_detail("no aligned device scratch for a misaligned reduction operand");
    free_twins(&t);
    return rc;
}

ol_status_t ol_accel_reduce_many_async(const ol_op_t *op, const ol_datatype_t *dt,
                                       const void *const *ins, int n, void *out, size_t count,
                                       ol_accel_event_t **done)
{
    if (n < 1 || n > OL_ACCEL_REDUCE_MAX_INPUTS) {
        ol_error_detail("a device reduction takes 1 to %d inputs, not %d",
                        OL_ACCEL_REDUCE_MAX_INPUTS, n);
        return MPI_ERR_ARG;
    }
    kernel_choice_t k;
    ol_cu_function_t function;
    ol_status_t rc = prepare(op, dt, out, MANY_INPUTS, &k, &function);
    if (rc != OL_OK)
        return rc;
    if (count > 0) {
        reduce_inputs_t inputs = {{0}};
        for (int i = 0; i < n; i++)
            inputs.p[i] = data_start(dt, ins[i]);
        unsigned long long elements = kernel_elements(dt, &k, count);
        void *to = (void *)data_start(dt, out);
        void *parameters[] = {&to, &inputs, &n, &elements};
        if (all_aligned(inputs.p, n, to, kernel_alignment(&k)))
            rc = launch(function, elements, k.type_size, parameters);
        else
            rc = launch_many_staged(function, &k, inputs.p, n, to, elements);
    }
    if (rc == OL_OK)
        rc = ol_accel_record_event(done);
    ol_accel_leave();
    return name_buffer(rc, op, dt, out, count);
}
