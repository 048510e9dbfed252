/* The reduction kernels of the fake CUDA driver, run on the host.
 *
 * ompi-lite embeds nvcc-built kernels named ol_reduce_<op>_<type> and
 * ol_reduce_many_<op>_<type>; the fake cannot run their machine code, so
 * it implements the same arithmetic itself, from its own table, and never
 * links to ompi-lite (a bug in the library's op code must not be hidden by
 * sharing it with the double that checks it).
 *
 * Which ops exist for which types follows MPI's rules for predefined ops:
 * every op on integers; arithmetic, max/min and logical ops on floating
 * point; sum and prod on complex; logical ops on bool; sum, prod, max and
 * min on the 16-bit floating-point types. */
#include <stdint.h>
#include <string.h>

#include "fake_cuda.h"

enum op { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR,
          OP_COUNT };

static const char *const op_names[OP_COUNT] = {
    "sum", "prod", "max", "min", "land", "lor", "lxor", "band", "bor", "bxor",
};

#define BIT(op) (1u << (op))

/* ---- element-wise combine, one function per type ----------------------- */

/* Integers. Sum and product wrap around as they do on the device; they are
 * computed in an unsigned type at least as wide as int (W) so that C never
 * sees a signed overflow or a promotion to int that could overflow. */
#define DEFINE_INT_COMBINE(tag, T, W)                                           \
    static T combine_##tag(int op, T a, T b)                                    \
    {                                                                           \
        switch (op) {                                                           \
        case OP_SUM: return (T)((W)a + (W)b);                                   \
        case OP_PROD: return (T)((W)a * (W)b);                                  \
        case OP_MAX: return a > b ? a : b;                                      \
        case OP_MIN: return a < b ? a : b;                                      \
        case OP_LAND: return (T)(a && b);                                       \
        case OP_LOR: return (T)(a || b);                                        \
        case OP_LXOR: return (T)(!a != !b);                                     \
        case OP_BAND: return (T)(a & b);                                        \
        case OP_BOR: return (T)(a | b);                                         \
        default: return (T)(a ^ b);                                             \
        }                                                                       \
    }

/* Floating point: no bitwise ops; logical ops give 1 or 0 of the type. */
#define DEFINE_FLOAT_COMBINE(tag, T)                                            \
    static T combine_##tag(int op, T a, T b)                                    \
    {                                                                           \
        switch (op) {                                                           \
        case OP_SUM: return a + b;                                              \
        case OP_PROD: return a * b;                                             \
        case OP_MAX: return a > b ? a : b;                                      \
        case OP_MIN: return a < b ? a : b;                                      \
        case OP_LAND: return (T)(a != 0 && b != 0);                             \
        case OP_LOR: return (T)(a != 0 || b != 0);                              \
        default: return (T)((a != 0) != (b != 0));                              \
        }                                                                       \
    }

/* Complex numbers as pairs (real, imaginary), the layout of C's complex
 * types and of MPI_C_FLOAT_COMPLEX / MPI_C_DOUBLE_COMPLEX. */
typedef struct { float re, im; } c32_t;
typedef struct { double re, im; } c64_t;

#define DEFINE_COMPLEX_COMBINE(tag, T)                                          \
    static T combine_##tag(int op, T a, T b)                                    \
    {                                                                           \
        T r;                                                                    \
        if (op == OP_SUM) {                                                     \
            r.re = a.re + b.re;                                                 \
            r.im = a.im + b.im;                                                 \
        } else {                                                                \
            r.re = a.re * b.re - a.im * b.im;                                   \
            r.im = a.re * b.im + a.im * b.re;                                   \
        }                                                                       \
        return r;                                                               \
    }

/* binary16 (f16, C's _Float16 here) and bfloat16 (bf16, a float's upper
 * 16 bits), as the library's kernels compute them: each step in float,
 * rounded back to nearest even; a NaN sum or product is the canonical
 * quiet NaN (0x7e00, 0x7fc0); max and min return an operand's bits. */
static float float_of_f16(uint16_t h)
{
    _Float16 f;
    memcpy(&f, &h, sizeof(f));
    return (float)f;
}

static uint16_t f16_of_float(float x)
{
    _Float16 f = (_Float16)x;
    uint16_t h;
    memcpy(&h, &f, sizeof(h));
    return x != x ? 0x7e00 : h;
}

static float float_of_bf16(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float x;
    memcpy(&x, &bits, sizeof(x));
    return x;
}

static uint16_t bf16_of_float(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof(bits));
    return x != x ? 0x7fc0 : (uint16_t)((bits + 0x7fff + (bits >> 16 & 1)) >> 16);
}

#define DEFINE_HALF_COMBINE(tag, to_float, from_float)                          \
    static uint16_t combine_##tag(int op, uint16_t a, uint16_t b)               \
    {                                                                           \
        float x = to_float(a), y = to_float(b);                                 \
        switch (op) {                                                           \
        case OP_SUM: return from_float(x + y);                                  \
        case OP_PROD: return from_float(x * y);                                 \
        case OP_MAX: return x > y ? a : b;                                      \
        default: return x < y ? a : b;                                          \
        }                                                                       \
    }

/* C bool is one byte; any nonzero byte counts as true, results are 0 or 1. */
static uint8_t combine_bool(int op, uint8_t a, uint8_t b)
{
    switch (op) {
    case OP_LAND: return a && b;
    case OP_LOR: return a || b;
    default: return !a != !b;
    }
}

/* ---- the loop every kernel runs ----------------------------------------- */

/* Each element is computed from all inputs at that index before out[i] is
 * written, so out may be one of the inputs (the library relies on that). */
#define DEFINE_LOOP(tag, T)                                                     \
    static void loop_##tag(int op, void *out, void *const *ins, int n, size_t count) \
    {                                                                           \
        T *dst = out;                                                           \
        for (size_t i = 0; i < count; i++) {                                    \
            T acc = ((const T *)ins[0])[i];                                     \
            for (int k = 1; k < n; k++)                                         \
                acc = combine_##tag(op, acc, ((const T *)ins[k])[i]);           \
            dst[i] = acc;                                                       \
        }                                                                       \
    }

#define DEFINE_INT(tag, T, W) DEFINE_INT_COMBINE(tag, T, W) DEFINE_LOOP(tag, T)
#define DEFINE_FLOAT(tag, T) DEFINE_FLOAT_COMBINE(tag, T) DEFINE_LOOP(tag, T)
#define DEFINE_COMPLEX(tag, T) DEFINE_COMPLEX_COMBINE(tag, T) DEFINE_LOOP(tag, T)
#define DEFINE_HALF(tag, to_float, from_float)                                  \
    DEFINE_HALF_COMBINE(tag, to_float, from_float) DEFINE_LOOP(tag, uint16_t)

DEFINE_INT(i8, int8_t, uint32_t)
DEFINE_INT(u8, uint8_t, uint32_t)
DEFINE_INT(i16, int16_t, uint32_t)
DEFINE_INT(u16, uint16_t, uint32_t)
DEFINE_INT(i32, int32_t, uint32_t)
DEFINE_INT(u32, uint32_t, uint32_t)
DEFINE_INT(i64, int64_t, uint64_t)
DEFINE_INT(u64, uint64_t, uint64_t)
DEFINE_HALF(f16, float_of_f16, f16_of_float)
DEFINE_HALF(bf16, float_of_bf16, bf16_of_float)
DEFINE_FLOAT(f32, float)
DEFINE_FLOAT(f64, double)
DEFINE_COMPLEX(c32, c32_t)
DEFINE_COMPLEX(c64, c64_t)
DEFINE_LOOP(bool, uint8_t)

/* ---- names -------------------------------------------------------------- */

enum kind { KIND_INT, KIND_FLOAT, KIND_COMPLEX, KIND_BOOL, KIND_HALF };

static const struct {
    const char *name;
    enum kind kind;
    size_t size, align;     /* align: what a device load of the type needs */
    fake_kernel_loop_fn *loop;
} types[] = {
    {"i8", KIND_INT, 1, 1, loop_i8},          {"u8", KIND_INT, 1, 1, loop_u8},
    {"i16", KIND_INT, 2, 2, loop_i16},        {"u16", KIND_INT, 2, 2, loop_u16},
    {"i32", KIND_INT, 4, 4, loop_i32},        {"u32", KIND_INT, 4, 4, loop_u32},
    {"i64", KIND_INT, 8, 8, loop_i64},        {"u64", KIND_INT, 8, 8, loop_u64},
    {"f32", KIND_FLOAT, 4, 4, loop_f32},      {"f64", KIND_FLOAT, 8, 8, loop_f64},
    {"c32", KIND_COMPLEX, 8, 4, loop_c32},    {"c64", KIND_COMPLEX, 16, 8, loop_c64},
    {"bool", KIND_BOOL, 1, 1, loop_bool},
    {"f16", KIND_HALF, 2, 2, loop_f16},       {"bf16", KIND_HALF, 2, 2, loop_bf16},
};

static unsigned ops_of_kind(enum kind kind)
{
    switch (kind) {
    case KIND_INT: return BIT(OP_COUNT) - 1;
    case KIND_FLOAT:
        return BIT(OP_SUM) | BIT(OP_PROD) | BIT(OP_MAX) | BIT(OP_MIN) | BIT(OP_LAND) |
               BIT(OP_LOR) | BIT(OP_LXOR);
    case KIND_COMPLEX: return BIT(OP_SUM) | BIT(OP_PROD);
    case KIND_HALF: return BIT(OP_SUM) | BIT(OP_PROD) | BIT(OP_MAX) | BIT(OP_MIN);
    default: return BIT(OP_LAND) | BIT(OP_LOR) | BIT(OP_LXOR);
    }
}

static int find_op(const char *name, size_t len)
{
    for (int op = 0; op < OP_COUNT; op++)
        if (strlen(op_names[op]) == len && memcmp(op_names[op], name, len) == 0)
            return op;
    return -1;
}

static int find_type(const char *name)
{
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        if (strcmp(types[t].name, name) == 0)
            return (int)t;
    return -1;
}

bool fake_kernel_lookup(const char *name, fake_kernel_t *kernel)
{
    static const char many_prefix[] = "ol_reduce_many_", one_prefix[] = "ol_reduce_";
    bool many = strncmp(name, many_prefix, strlen(many_prefix)) == 0;
    if (!many && strncmp(name, one_prefix, strlen(one_prefix)) != 0)
        return false;
    const char *op_name = name + (many ? strlen(many_prefix) : strlen(one_prefix));
    /* Neither op nor type names contain '_': the first one splits them. */
    const char *sep = strchr(op_name, '_');
    if (sep == NULL)
        return false;
    int op = find_op(op_name, (size_t)(sep - op_name));
    int type = find_type(sep + 1);
    if (op < 0 || type < 0 || !(ops_of_kind(types[type].kind) & BIT(op)))
        return false;
    kernel->many = many;
    kernel->op = op;
    kernel->elem_size = types[type].size;
    kernel->elem_align = types[type].align;
    kernel->loop = types[type].loop;
    return true;
}
