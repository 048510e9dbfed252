/* The device reductions behind ol_accel_reduce and ol_accel_reduce_many_async
 * (see reduce.c). The names and parameter layouts are a contract with
 * reduce.c and with the fake driver in test/gpu/fake_cuda/:
 *
 *   ol_reduce_<op>_<type>(T *inout, const T *in, unsigned long long count)
 *       inout[i] = in[i] op inout[i]
 *   ol_reduce_many_<op>_<type>(T *out, ol_reduce_inputs_t ins, int n,
 *                              unsigned long long count)
 *       out[i] = ins.p[0][i] op ins.p[1][i] op ... op ins.p[n-1][i]
 *
 * "a op b" is computed exactly as op/predefined.c computes it on the host,
 * with a the left operand (the lower rank), so that a reduction gives the
 * same bits on either side (max/min with NaN included). One exception:
 * complex products use the textbook formula, where the host's C99 complex
 * multiply also recovers infinities from NaN results (Annex G). */
#include <cuda_fp16.h>

/* Passed by value: the eight input pointers of a many-input reduction
 * (64 bytes; reduce.c builds the same layout). */
struct ol_reduce_inputs_t {
    const void *p[8];
};

struct ol_c32 {
    float re, im;
};
struct ol_c64 {
    double re, im;
};

template <typename C> __device__ inline C complex_add(C a, C b)
{
    return C{a.re + b.re, a.im + b.im};
}

/* Products and sums rounded one by one: nvcc contracts a * b - c * d into
 * an FMA, which rounds once where the host rounds twice (the host build has
 * no FMA), so the bits would differ. The _rn intrinsics are never
 * contracted. test/unit/kernel_fma.sh checks the compiled kernels. */
__device__ inline float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double sub_rn(double a, double b) { return __dsub_rn(a, b); }

template <typename C> __device__ inline C complex_mul(C a, C b)
{
    return C{sub_rn(mul_rn(a.re, b.re), mul_rn(a.im, b.im)),
             add_rn(mul_rn(a.re, b.im), mul_rn(a.im, b.re))};
}

/* The 16-bit floating-point types as op/half.c reduces them: each step in
 * float, rounded back to nearest even; a NaN sum or product is the
 * canonical quiet NaN; max and min return an operand's bits unchanged. */
struct ol_f16 {
    unsigned short bits;
};
struct ol_bf16 {
    unsigned short bits;
};

__device__ inline float to_float(ol_f16 h) { return __half2float(__ushort_as_half(h.bits)); }
__device__ inline float to_float(ol_bf16 h) { return __uint_as_float((unsigned)h.bits << 16); }

template <typename H> __device__ inline H round_to(float x);
template <> __device__ inline ol_f16 round_to<ol_f16>(float x)
{
    return ol_f16{isnan(x) ? (unsigned short)0x7e00 : __half_as_ushort(__float2half_rn(x))};
}
/* By integer rounding, as the host does: the bits cannot depend on how an
 * architecture converts to bfloat16 (sm_75 has no instruction for it). */
template <> __device__ inline ol_bf16 round_to<ol_bf16>(float x)
{
    unsigned u = __float_as_uint(x);
    return ol_bf16{isnan(x) ? (unsigned short)0x7fc0
                            : (unsigned short)((u + 0x7fffu + (u >> 16 & 1u)) >> 16)};
}

template <typename H> struct half_sum {
    static __device__ H apply(H a, H b) { return round_to<H>(add_rn(to_float(a), to_float(b))); }
};
template <typename H> struct half_prod {
    static __device__ H apply(H a, H b) { return round_to<H>(mul_rn(to_float(a), to_float(b))); }
};
template <typename H> struct half_max {
    static __device__ H apply(H a, H b) { return to_float(a) > to_float(b) ? a : b; }
};
template <typename H> struct half_min {
    static __device__ H apply(H a, H b) { return to_float(a) < to_float(b) ? a : b; }
};

/* The operators; integer results are narrowed back to T as C does. */
template <typename T> struct op_sum {
    static __device__ T apply(T a, T b) { return (T)(a + b); }
};
template <typename T> struct op_prod {
    static __device__ T apply(T a, T b) { return (T)(a * b); }
};
template <> struct op_sum<ol_c32> {
    static __device__ ol_c32 apply(ol_c32 a, ol_c32 b) { return complex_add(a, b); }
};
template <> struct op_sum<ol_c64> {
    static __device__ ol_c64 apply(ol_c64 a, ol_c64 b) { return complex_add(a, b); }
};
template <> struct op_prod<ol_c32> {
    static __device__ ol_c32 apply(ol_c32 a, ol_c32 b) { return complex_mul(a, b); }
};
template <> struct op_prod<ol_c64> {
    static __device__ ol_c64 apply(ol_c64 a, ol_c64 b) { return complex_mul(a, b); }
};
template <typename T> struct op_max {
    static __device__ T apply(T a, T b) { return a > b ? a : b; }
};
template <typename T> struct op_min {
    static __device__ T apply(T a, T b) { return a < b ? a : b; }
};
template <> struct op_sum<ol_f16> : half_sum<ol_f16> {};
template <> struct op_prod<ol_f16> : half_prod<ol_f16> {};
template <> struct op_max<ol_f16> : half_max<ol_f16> {};
template <> struct op_min<ol_f16> : half_min<ol_f16> {};
template <> struct op_sum<ol_bf16> : half_sum<ol_bf16> {};
template <> struct op_prod<ol_bf16> : half_prod<ol_bf16> {};
template <> struct op_max<ol_bf16> : half_max<ol_bf16> {};
template <> struct op_min<ol_bf16> : half_min<ol_bf16> {};
template <typename T> struct op_land {
    static __device__ T apply(T a, T b) { return (T)((a != 0) && (b != 0)); }
};
template <typename T> struct op_lor {
    static __device__ T apply(T a, T b) { return (T)((a != 0) || (b != 0)); }
};
template <typename T> struct op_lxor {
    static __device__ T apply(T a, T b) { return (T)((a != 0) != (b != 0)); }
};
template <typename T> struct op_band {
    static __device__ T apply(T a, T b) { return (T)(a & b); }
};
template <typename T> struct op_bor {
    static __device__ T apply(T a, T b) { return (T)(a | b); }
};
template <typename T> struct op_bxor {
    static __device__ T apply(T a, T b) { return (T)(a ^ b); }
};

/* 16 bytes of elements, loaded and stored as one vector access. */
template <typename T> struct elements_per_vector {
    static constexpr int value = sizeof(T) < 16 ? (int)(16 / sizeof(T)) : 1;
};
template <typename T> struct __align__(16) vector16 {
    T e[elements_per_vector<T>::value];
};

__device__ inline bool aligned16(const void *p)
{
    return ((unsigned long long)p & 15) == 0;
}

__device__ inline unsigned long long first_index()
{
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ inline unsigned long long grid_stride()
{
    return (unsigned long long)gridDim.x * blockDim.x;
}

/* inout[i] = in[i] op inout[i]: 16-byte vectors where both pointers allow
 * them, then the remaining elements one by one. */
template <typename T, typename Op>
__device__ void reduce_two(T *inout, const T *in, unsigned long long count)
{
    constexpr int V = elements_per_vector<T>::value;
    unsigned long long done = 0;
    if (V > 1 && aligned16(inout) && aligned16(in)) {
        unsigned long long vectors = count / V;
        const vector16<T> *vin = (const vector16<T> *)in;
        vector16<T> *vio = (vector16<T> *)inout;
        for (unsigned long long v = first_index(); v < vectors; v += grid_stride()) {
            vector16<T> a = vin[v], b = vio[v];
#pragma unroll
            for (int k = 0; k < V; k++)
                b.e[k] = Op::apply(a.e[k], b.e[k]);
            vio[v] = b;
        }
        done = vectors * V;
    }
    for (unsigned long long i = done + first_index(); i < count; i += grid_stride())
        inout[i] = Op::apply(in[i], inout[i]);
}

template <typename T>
__device__ bool all_aligned16(const T *out, const ol_reduce_inputs_t &ins, int n)
{
    bool aligned = aligned16(out);
    for (int k = 0; k < n; k++)
        aligned = aligned && aligned16(ins.p[k]);
    return aligned;
}

/* out[i] = p[0][i] op ... op p[n-1][i], left to right. Each element of out
 * is written after all its inputs are read, so out may be an input. */
template <typename T, typename Op>
__device__ void reduce_many(T *out, const ol_reduce_inputs_t &ins, int n,
                            unsigned long long count)
{
    constexpr int V = elements_per_vector<T>::value;
    unsigned long long done = 0;
    if (V > 1 && all_aligned16(out, ins, n)) {
        unsigned long long vectors = count / V;
        for (unsigned long long v = first_index(); v < vectors; v += grid_stride()) {
            vector16<T> acc = ((const vector16<T> *)ins.p[0])[v];
            for (int k = 1; k < n; k++) {
                vector16<T> x = ((const vector16<T> *)ins.p[k])[v];
#pragma unroll
                for (int j = 0; j < V; j++)
                    acc.e[j] = Op::apply(acc.e[j], x.e[j]);
            }
            ((vector16<T> *)out)[v] = acc;
        }
        done = vectors * V;
    }
    for (unsigned long long i = done + first_index(); i < count; i += grid_stride()) {
        T acc = ((const T *)ins.p[0])[i];
        for (int k = 1; k < n; k++)
            acc = Op::apply(acc, ((const T *)ins.p[k])[i]);
        out[i] = acc;
    }
}

/* reduce.c launches 256 threads a block. */
#define KERNELS(op, type, T)                                                                   \
    extern "C" __global__ void __launch_bounds__(256)                                          \
        ol_reduce_##op##_##type(T *inout, const T *in, unsigned long long count)               \
    {                                                                                          \
        reduce_two<T, op_##op<T>>(inout, in, count);                                           \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(256) ol_reduce_many_##op##_##type(           \
        T *out, ol_reduce_inputs_t ins, int n, unsigned long long count)                       \
    {                                                                                          \
        reduce_many<T, op_##op<T>>(out, ins, n, count);                                        \
    }

#define ARITH_KERNELS(type, T)                                                                 \
    KERNELS(sum, type, T) KERNELS(prod, type, T) KERNELS(max, type, T) KERNELS(min, type, T)
#define LOGICAL_KERNELS(type, T) KERNELS(land, type, T) KERNELS(lor, type, T) KERNELS(lxor, type, T)
#define BITWISE_KERNELS(type, T) KERNELS(band, type, T) KERNELS(bor, type, T) KERNELS(bxor, type, T)
#define INTEGER_KERNELS(type, T) ARITH_KERNELS(type, T) LOGICAL_KERNELS(type, T) BITWISE_KERNELS(type, T)

INTEGER_KERNELS(i8, signed char)
INTEGER_KERNELS(u8, unsigned char)
INTEGER_KERNELS(i16, short)
INTEGER_KERNELS(u16, unsigned short)
INTEGER_KERNELS(i32, int)
INTEGER_KERNELS(u32, unsigned int)
INTEGER_KERNELS(i64, long long)
INTEGER_KERNELS(u64, unsigned long long)
ARITH_KERNELS(f16, ol_f16)
ARITH_KERNELS(bf16, ol_bf16)
ARITH_KERNELS(f32, float)
ARITH_KERNELS(f64, double)
KERNELS(sum, c32, ol_c32)
KERNELS(prod, c32, ol_c32)
KERNELS(sum, c64, ol_c64)
KERNELS(prod, c64, ol_c64)
/* MPI_C_BOOL is one byte holding 0 or 1 (read as "not 0", as the host does). */
LOGICAL_KERNELS(bool, unsigned char)
