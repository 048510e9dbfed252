/* MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN on the 16-bit floating-point
 * types: IEEE binary16 (MPIX_C_FLOAT16, MPI_REAL2) and bfloat16
 * (MPIX_C_BF16).
 *
 * Each pairwise step is computed as NCCL computes it: both operands
 * converted to float (exact), combined in float, and the result rounded
 * back to the 16-bit type to nearest, ties to even; a sum of many values
 * is rounded at every step, never accumulated in float. (Rounding a float
 * sum or product of two such values gives the correctly rounded 16-bit
 * result, as float has more than twice their precision plus two bits; so
 * hardware that adds in binary16 directly gives the same bits.)
 *
 * The same bits on every path: a sum or product that is NaN is written as
 * the canonical quiet NaN (0x7e00, 0x7fc0) whatever NaN the hardware
 * propagated, and MAX and MIN return one operand's bits unchanged (a > b ?
 * a : b, a the lower rank's, as for float: a NaN in b wins, a NaN in a
 * loses). The device kernels (accel/kernels.cu) follow the same rules.
 *
 * Speed: binary16 conversions use F16C (8 values an instruction) where the
 * CPU has it, chosen at the first call, else the scalar conversions below,
 * which give the same bits; bfloat16 converts by shifts and integer
 * rounding, plain loops the compiler vectorises. Both assume the default
 * floating-point environment (round to nearest; no flush-to-zero, which
 * would flush bfloat16's subnormals, as it does float's). */
#include "half.h"

#include <stdint.h>
#include <string.h>

enum { F16_CANONICAL_NAN = 0x7e00, BF16_CANONICAL_NAN = 0x7fc0 };

static inline float float_of_bits(uint32_t x)
{
    float f;
    memcpy(&f, &x, sizeof(f));
    return f;
}

static inline uint32_t bits_of_float(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    return x;
}

/* ---- binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits ---------- */

static inline float f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exponent = h >> 10 & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0) /* zero or subnormal: mantissa * 2^-24, exact in float */
        return float_of_bits(sign | bits_of_float((float)mantissa * 0x1p-24f));
    if (exponent == 0x1f) /* infinity, NaN */
        return float_of_bits(sign | 0x7f800000 | mantissa << 13);
    return float_of_bits(sign | (exponent + 112) << 23 | mantissa << 13);
}

/* A float magnitude below binary16's smallest normal (2^-14), rounded to a
 * subnormal (units of 2^-24; 0x400 when it rounds up to the normal). */
static inline uint16_t f16_subnormal(uint32_t magnitude)
{
    uint32_t exponent = magnitude >> 23;
    if (exponent < 102) /* below 2^-25, half the smallest subnormal */
        return 0;
    uint32_t significand = (magnitude & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - exponent; /* 14 ... 24 */
    uint32_t units = significand >> shift, rest = significand & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    return (uint16_t)(units + (rest > half || (rest == half && (units & 1))));
}

static inline uint16_t float_to_f16(float f)
{
    uint32_t x = bits_of_float(f);
    uint16_t sign = (uint16_t)(x >> 16 & 0x8000);
    uint32_t magnitude = x & 0x7fffffff;
    if (magnitude > 0x7f800000)
        return F16_CANONICAL_NAN;
    if (magnitude >= 0x477ff000) /* 65520 (65504 + half an ulp) and up: infinity */
        return sign | 0x7c00;
    if (magnitude < 0x38800000)
        return sign | f16_subnormal(magnitude);
    uint32_t rebiased = magnitude - 0x38000000; /* exponent bias 127 -> 15 */
    return sign | (uint16_t)((rebiased + 0xfff + (rebiased >> 13 & 1)) >> 13);
}

/* ---- bfloat16: a float's upper 16 bits ---------------------------------- */

static inline float bf16_to_float(uint16_t h)
{
    return float_of_bits((uint32_t)h << 16);
}

static inline uint16_t float_to_bf16(float f)
{
    uint32_t x = bits_of_float(f);
    if ((x & 0x7fffffff) > 0x7f800000)
        return BF16_CANONICAL_NAN;
    return (uint16_t)((x + 0x7fff + (x >> 16 & 1)) >> 16);
}

/* ---- the scalar loops: inout[i] = in[i] op inout[i] --------------------- */

#define HALF_LOOP(name, to_float, to_half, result)                                              \
    static void name(const void *in_, void *inout_, size_t n)                                  \
    {                                                                                          \
        const uint16_t *restrict in = in_;                                                     \
        uint16_t *restrict io = inout_;                                                        \
        for (size_t i = 0; i < n; i++) {                                                       \
            uint16_t a = in[i], b = io[i];                                                     \
            float x = to_float(a), y = to_float(b);                                            \
            io[i] = (result);                                                                  \
        }                                                                                      \
    }
#define HALF_LOOPS(tag, to_float, to_half)                                                      \
    HALF_LOOP(sum_##tag, to_float, to_half, to_half(x + y))                                     \
    HALF_LOOP(prod_##tag, to_float, to_half, to_half(x * y))                                    \
    HALF_LOOP(max_##tag, to_float, to_half, x > y ? a : b)                                      \
    HALF_LOOP(min_##tag, to_float, to_half, x < y ? a : b)

HALF_LOOPS(f16, f16_to_float, float_to_f16)
HALF_LOOPS(bf16, bf16_to_float, float_to_bf16)

/* ---- binary16 with F16C ------------------------------------------------- */

typedef struct {
    ol_op_loop_t sum, prod, max, min;
} half_loops_t;

static const half_loops_t scalar_f16 = {sum_f16, prod_f16, max_f16, min_f16};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_F16C_LOOPS 1
#define F16C __attribute__((target("avx2,f16c")))

F16C static inline __m256 f16c_load(const uint16_t *p)
{
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

F16C static inline void f16c_store_rounded(uint16_t *p, __m256 r)
{
    __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)); /* -> 0x7e00 */
    r = _mm256_blendv_ps(r, nan, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(r, _MM_FROUND_TO_NEAREST_INT));
}

/* a where the 32-bit lanes of mask are all ones, else b, on 8 binary16s. */
F16C static inline __m128i f16c_select(__m256 mask, __m128i a, __m128i b)
{
    __m256i m = _mm256_castps_si256(mask);
    __m128i narrow = _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    return _mm_blendv_epi8(b, a, narrow);
}

#define F16C_ARITH_LOOP(name, vector_op, scalar_tail)                                          \
    F16C static void name(const void *in_, void *inout_, size_t n)                             \
    {                                                                                          \
        const uint16_t *in = in_;                                                              \
        uint16_t *io = inout_;                                                                 \
        size_t i = 0;                                                                          \
        for (; i + 8 <= n; i += 8)                                                             \
            f16c_store_rounded(io + i, vector_op(f16c_load(in + i), f16c_load(io + i)));      \
        scalar_tail(in + i, io + i, n - i);                                                    \
    }
#define F16C_SELECT_LOOP(name, predicate, scalar_tail)                                         \
    F16C static void name(const void *in_, void *inout_, size_t n)                             \
    {                                                                                          \
        const uint16_t *in = in_;                                                              \
        uint16_t *io = inout_;                                                                 \
        size_t i = 0;                                                                          \
        for (; i + 8 <= n; i += 8) {                                                           \
            __m128i a = _mm_loadu_si128((const __m128i *)(in + i));                            \
            __m128i b = _mm_loadu_si128((const __m128i *)(io + i));                            \
            __m256 take_a = _mm256_cmp_ps(_mm256_cvtph_ps(a), _mm256_cvtph_ps(b), predicate);  \
            _mm_storeu_si128((__m128i *)(io + i), f16c_select(take_a, a, b));                  \
        }                                                                                      \
        scalar_tail(in + i, io + i, n - i);                                                    \
    }

F16C_ARITH_LOOP(sum_f16_f16c, _mm256_add_ps, sum_f16)
F16C_ARITH_LOOP(prod_f16_f16c, _mm256_mul_ps, prod_f16)
F16C_SELECT_LOOP(max_f16_f16c, _CMP_GT_OQ, max_f16) /* ordered: false with a NaN, as a > b */
F16C_SELECT_LOOP(min_f16_f16c, _CMP_LT_OQ, min_f16)

static const half_loops_t f16c_f16 = {sum_f16_f16c, prod_f16_f16c, max_f16_f16c, min_f16_f16c};

static bool cpu_has_f16c(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
}
#else
#define HAVE_F16C_LOOPS 0
static bool cpu_has_f16c(void)
{
    return false;
}
#endif

/* The binary16 loops in use: chosen at the first call (a race between
 * threads only chooses the same twice). */
static const half_loops_t *f16_loops;

static const half_loops_t *chosen_f16_loops(void)
{
    const half_loops_t *loops = __atomic_load_n(&f16_loops, __ATOMIC_ACQUIRE);
    if (OL_UNLIKELY(!loops)) {
#if HAVE_F16C_LOOPS
        loops = cpu_has_f16c() ? &f16c_f16 : &scalar_f16;
#else
        loops = &scalar_f16;
#endif
        __atomic_store_n(&f16_loops, loops, __ATOMIC_RELEASE);
    }
    return loops;
}

bool ol_op_half_use_vector(bool vector)
{
    if (vector && !cpu_has_f16c())
        return false;
#if HAVE_F16C_LOOPS
    __atomic_store_n(&f16_loops, vector ? &f16c_f16 : &scalar_f16, __ATOMIC_RELEASE);
#else
    __atomic_store_n(&f16_loops, &scalar_f16, __ATOMIC_RELEASE);
#endif
    return true;
}

void ol_op_f16_sum(const void *in, void *inout, size_t n)
{
    chosen_f16_loops()->sum(in, inout, n);
}

void ol_op_f16_prod(const void *in, void *inout, size_t n)
{
    chosen_f16_loops()->prod(in, inout, n);
}

void ol_op_f16_max(const void *in, void *inout, size_t n)
{
    chosen_f16_loops()->max(in, inout, n);
}

void ol_op_f16_min(const void *in, void *inout, size_t n)
{
    chosen_f16_loops()->min(in, inout, n);
}

void ol_op_bf16_sum(const void *in, void *inout, size_t n)
{
    sum_bf16(in, inout, n);
}

void ol_op_bf16_prod(const void *in, void *inout, size_t n)
{
    prod_bf16(in, inout, n);
}

void ol_op_bf16_max(const void *in, void *inout, size_t n)
{
    max_bf16(in, inout, n);
}

void ol_op_bf16_min(const void *in, void *inout, size_t n)
{
    min_bf16(in, inout, n);
}
