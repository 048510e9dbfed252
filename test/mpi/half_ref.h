/* The tests' own reference for reductions on the 16-bit floating-point
 * types (binary16: MPIX_C_FLOAT16, MPI_REAL2; bfloat16: MPIX_C_BF16), bit
 * for bit as ompi-lite must compute them: a op b in float, rounded back to
 * the type to nearest with ties to even; a NaN sum or product is the
 * canonical quiet NaN (0x7e00, 0x7fc0); max and min are a > b ? a : b and
 * a < b ? a : b on the values, returning an operand's bits.
 *
 * Written unlike the library's code on purpose (double arithmetic, frexp
 * and rint instead of bit manipulation), so that one cannot hide the
 * other's mistake. Used by test/mpi/half.c, test/unit/op_half.c and
 * test/gpu/gpu_half.c; needs -lm. */
#ifndef HALF_REF_H
#define HALF_REF_H

#include <math.h>
#include <stdint.h>

#include <mpi.h>

typedef enum { REF_F16, REF_BF16 } ref_format_t;

/* Bits of precision (with the implicit one), smallest normal exponent, and
 * the exponent bias of each format. */
static const struct {
    int precision, min_exponent, bias, exponent_bits;
    uint16_t canonical_nan;
} ref_formats[] = {
    [REF_F16] = {11, -14, 15, 5, 0x7e00},
    [REF_BF16] = {8, -126, 127, 8, 0x7fc0},
};

static inline double ref_to_double(ref_format_t f, uint16_t h)
{
    int mantissa_bits = ref_formats[f].precision - 1;
    int exponent = h >> mantissa_bits & ((1 << ref_formats[f].exponent_bits) - 1);
    int mantissa = h & ((1 << mantissa_bits) - 1);
    double sign = h & 0x8000 ? -1.0 : 1.0;
    if (exponent == (1 << ref_formats[f].exponent_bits) - 1)
        return mantissa ? NAN : sign * INFINITY;
    if (exponent == 0)
        return sign * ldexp(mantissa, ref_formats[f].min_exponent - mantissa_bits);
    return sign * ldexp(mantissa + (1 << mantissa_bits), exponent - ref_formats[f].bias - mantissa_bits);
}

/* The value of format f nearest to x (ties to even). */
static inline uint16_t ref_round(ref_format_t f, double x)
{
    int p = ref_formats[f].precision, mantissa_bits = p - 1;
    if (isnan(x))
        return ref_formats[f].canonical_nan;
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    uint16_t infinity = (uint16_t)(((1 << ref_formats[f].exponent_bits) - 1) << mantissa_bits);
    double a = fabs(x);
    if (isinf(a))
        return sign | infinity;
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int exponent = a == 0 ? ref_formats[f].min_exponent : e - 1;
    if (exponent < ref_formats[f].min_exponent)
        exponent = ref_formats[f].min_exponent;
    double units = rint(ldexp(a, mantissa_bits - exponent)); /* exact scaling, then round */
    if (units >= ldexp(1, p)) { /* rounded up into the next binade */
        units /= 2;
        exponent++;
    }
    if (exponent > ref_formats[f].bias)
        return sign | infinity;
    if (units < ldexp(1, mantissa_bits)) /* subnormal or zero */
        return sign | (uint16_t)units;
    return sign | (uint16_t)((exponent + ref_formats[f].bias) << mantissa_bits |
                             ((uint16_t)units - (1 << mantissa_bits)));
}

/* a op b, a the left operand (MPI_Reduce_local's in, the lower rank). */
static inline uint16_t ref_combine(ref_format_t f, MPI_Op op, uint16_t a, uint16_t b)
{
    float x = (float)ref_to_double(f, a), y = (float)ref_to_double(f, b);
    if (op == MPI_SUM)
        return ref_round(f, (float)(x + y));
    if (op == MPI_PROD)
        return ref_round(f, (float)(x * y));
    if (op == MPI_MAX)
        return x > y ? a : b;
    return x < y ? a : b;
}

/* Values that reach every case: zeros, the smallest and largest
 * subnormals, the smallest normal, one and its neighbours, half an ulp of
 * one (a tie), the largest finite, infinities and NaNs (quiet, signalling,
 * negative). */
static const uint16_t ref_f16_edges[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x03ff, 0x83ff, 0x0400, 0x0401, 0x3c00, 0xbc00,
    0x3c01, 0x3bff, 0x1000, 0x1400, 0x3800, 0x4000, 0x5bff, 0x7bff, 0xfbff, 0x7bfe, 0x7c00,
    0xfc00, 0x7e00, 0x7c01, 0xfe00, 0x7fff, 0x2e66, 0x4248, 0xc248, 0x0200, 0x1c00,
};
static const uint16_t ref_bf16_edges[] = {
    0x0000, 0x8000, 0x0001, 0x8001, 0x0002, 0x007f, 0x807f, 0x0080, 0x0081, 0x3f80, 0xbf80,
    0x3f81, 0x3f7f, 0x3b80, 0x3c00, 0x3f00, 0x4000, 0x4b7f, 0x7f7f, 0xff7f, 0x7f7e, 0x7f80,
    0xff80, 0x7fc0, 0x7f81, 0xffc0, 0x7fff, 0x3e4d, 0x4049, 0xc049, 0x0040, 0x1f80,
};

#define REF_EDGES 32
_Static_assert(sizeof(ref_f16_edges) == REF_EDGES * 2 && sizeof(ref_bf16_edges) == REF_EDGES * 2,
               "REF_EDGES values of each format");

static inline const uint16_t *ref_edges(ref_format_t f)
{
    return f == REF_F16 ? ref_f16_edges : ref_bf16_edges;
}

#endif
