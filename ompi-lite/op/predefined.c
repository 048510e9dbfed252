/* The predefined reduction operators: one loop per (op, C type), written
 * as plain indexed loops over restrict pointers so that the compiler
 * vectorises them (GCC 12 at -O2 with -fvect-cost-model=dynamic, which
 * configure adds: see there), and a table from (op, datatype) to the loop. */
#include "half.h"
#include "ol_op.h"

#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- the loops --------------------------------------------------------- */

/* On x86-64 each loop is built twice, for AVX2 and for the baseline, and
 * the loader picks the one the CPU runs (an ifunc). The loops are element
 * by element, with no contraction into FMA (AVX2 leaves that out), so both
 * give the same bits. MPI_Reduce_local of MPI_SUM on 1024 and 4096 ints,
 * floats or doubles, in cache, AMD EPYC (Zen 4): 101-375 -> 80-327 ns
 * (12-20%); 64 Ki ints, out of L1, the same. Each loop starts on a 64-byte
 * line, so that its speed does not hang on where the code before it ends:
 * with the default 16 bytes, an unrelated change moved sum_i32's loop and
 * osu_acc_latency (ints) of 4/8/16 KiB went 0.10/0.16/0.27 -> 0.14/0.23/
 * 0.40 us on an Intel Xeon (three alternating runs each way). */
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define VECTOR_CLONES __attribute__((target_clones("avx2", "default"), aligned(64)))
#endif
#endif
#ifndef VECTOR_CLONES
#define VECTOR_CLONES
#endif

#define LOOP(name, type, expr)                                                                 \
    VECTOR_CLONES static void name(const void *in_, void *inout_, size_t n)                    \
    {                                                                                          \
        const type *restrict in = in_;                                                         \
        type *restrict io = inout_;                                                            \
        for (size_t i = 0; i < n; i++) {                                                       \
            type a = in[i], b = io[i];                                                         \
            io[i] = (expr);                                                                    \
        }                                                                                      \
    }

#define ARITH_LOOPS(tag, type)                                                                 \
    LOOP(sum_##tag, type, a + b)                                                               \
    LOOP(prod_##tag, type, a * b)                                                              \
    LOOP(max_##tag, type, a > b ? a : b)                                                       \
    LOOP(min_##tag, type, a < b ? a : b)

#define LOGIC_LOOPS(tag, type)                                                                 \
    LOOP(land_##tag, type, (type)((a != 0) && (b != 0)))                                       \
    LOOP(lor_##tag, type, (type)((a != 0) || (b != 0)))                                        \
    LOOP(lxor_##tag, type, (type)((a != 0) != (b != 0)))

#define BIT_LOOPS(tag, type)                                                                   \
    LOOP(band_##tag, type, a & b)                                                              \
    LOOP(bor_##tag, type, a | b)                                                               \
    LOOP(bxor_##tag, type, a ^ b)

#define INT_LOOPS(tag, type) ARITH_LOOPS(tag, type) LOGIC_LOOPS(tag, type) BIT_LOOPS(tag, type)

INT_LOOPS(i8, int8_t)
INT_LOOPS(u8, uint8_t)
INT_LOOPS(i16, int16_t)
INT_LOOPS(u16, uint16_t)
INT_LOOPS(i32, int32_t)
INT_LOOPS(u32, uint32_t)
INT_LOOPS(i64, int64_t)
INT_LOOPS(u64, uint64_t)
INT_LOOPS(schar, signed char)
INT_LOOPS(char, char)
ARITH_LOOPS(f32, float)
ARITH_LOOPS(f64, double)
ARITH_LOOPS(ldbl, long double)
LOGIC_LOOPS(bool, _Bool)
LOOP(sum_c32, float _Complex, a + b)
LOOP(prod_c32, float _Complex, a * b)
LOOP(sum_c64, double _Complex, a + b)
LOOP(prod_c64, double _Complex, a * b)
LOOP(sum_cld, long double _Complex, a + b)
LOOP(prod_cld, long double _Complex, a * b)

/* Fortran LOGICAL of each size: a value is .TRUE. unless it is the
 * compiler's .FALSE., and results are its literals, which a Fortran layer
 * may set (MPI_Abi_set_fortran_booleans); gfortran's 1 and 0 until then.
 * The loops read the literals into locals so that they still vectorise. */
#define FORTRAN_LOGICAL(bits)                                                                  \
    static int##bits##_t fortran_true##bits = 1, fortran_false##bits = 0;                      \
    FORTRAN_LOGIC_LOOP(fland##bits, bits, (a != f) && (b != f))                                \
    FORTRAN_LOGIC_LOOP(flor##bits, bits, (a != f) || (b != f))                                 \
    FORTRAN_LOGIC_LOOP(flxor##bits, bits, (a != f) != (b != f))
#define FORTRAN_LOGIC_LOOP(name, bits, truth)                                                  \
    static void name(const void *in_, void *inout_, size_t n)                                  \
    {                                                                                          \
        const int##bits##_t *restrict in = in_;                                                \
        int##bits##_t *restrict io = inout_;                                                   \
        const int##bits##_t t = fortran_true##bits, f = fortran_false##bits;                   \
        for (size_t i = 0; i < n; i++) {                                                       \
            int##bits##_t a = in[i], b = io[i];                                                \
            io[i] = (truth) ? t : f;                                                           \
        }                                                                                      \
    }

FORTRAN_LOGICAL(8)
FORTRAN_LOGICAL(16)
FORTRAN_LOGICAL(32)
FORTRAN_LOGICAL(64)

/* MINLOC/MAXLOC on (value, index) pairs: the better value wins; on a tie
 * the smaller index, as the standard asks. */
#define PAIR_LOOPS(tag, vtype, itype)                                                          \
    typedef struct {                                                                           \
        vtype value;                                                                           \
        itype index;                                                                           \
    } pair_##tag##_t;                                                                          \
    static void minloc_##tag(const void *in_, void *inout_, size_t n)                          \
    {                                                                                          \
        const pair_##tag##_t *in = in_;                                                        \
        pair_##tag##_t *io = inout_;                                                           \
        for (size_t i = 0; i < n; i++)                                                         \
            if (in[i].value < io[i].value ||                                                   \
                (in[i].value == io[i].value && in[i].index < io[i].index))                     \
                io[i] = in[i];                                                                 \
    }                                                                                          \
    static void maxloc_##tag(const void *in_, void *inout_, size_t n)                          \
    {                                                                                          \
        const pair_##tag##_t *in = in_;                                                        \
        pair_##tag##_t *io = inout_;                                                           \
        for (size_t i = 0; i < n; i++)                                                         \
            if (in[i].value > io[i].value ||                                                   \
                (in[i].value == io[i].value && in[i].index < io[i].index))                     \
                io[i] = in[i];                                                                 \
    }

PAIR_LOOPS(float_int, float, int)
PAIR_LOOPS(double_int, double, int)
PAIR_LOOPS(long_int, long, int)
PAIR_LOOPS(2int, int, int)
PAIR_LOOPS(short_int, short, int)
PAIR_LOOPS(ldbl_int, long double, int)
PAIR_LOOPS(2f32, float, float)
PAIR_LOOPS(2f64, double, double)
PAIR_LOOPS(2i64, int64_t, int64_t)

/* ---- the table ------------------------------------------------------------ */

enum { OP_BASE = 0x20, OP_COUNT = 0x20 };

typedef struct {
    ol_op_loop_t sum, prod, max, min, land, lor, lxor, band, bor, bxor, minloc, maxloc;
} type_loops_t;

#define INT_ENTRY(tag)                                                                         \
    {.sum = sum_##tag, .prod = prod_##tag, .max = max_##tag, .min = min_##tag,                  \
     .land = land_##tag, .lor = lor_##tag, .lxor = lxor_##tag,                                  \
     .band = band_##tag, .bor = bor_##tag, .bxor = bxor_##tag}
#define FLOAT_ENTRY(tag) {.sum = sum_##tag, .prod = prod_##tag, .max = max_##tag, .min = min_##tag}
#define COMPLEX_ENTRY(tag) {.sum = sum_##tag, .prod = prod_##tag}
#define LOGICAL_ENTRY(tag) {.land = land_##tag, .lor = lor_##tag, .lxor = lxor_##tag}
#define FORTRAN_LOGICAL_ENTRY(bits) {.land = fland##bits, .lor = flor##bits, .lxor = flxor##bits}
#define BYTE_ENTRY {.band = band_u8, .bor = bor_u8, .bxor = bxor_u8}
#define PAIR_ENTRY(tag) {.minloc = minloc_##tag, .maxloc = maxloc_##tag}

/* The integer loop of a C type, by its size and signedness. */
#define SIGNED_OF(type) (sizeof(type) == 1 ? 0 : sizeof(type) == 2 ? 1 : sizeof(type) == 4 ? 2 : 3)

static const type_loops_t signed_loops[] = {INT_ENTRY(i8), INT_ENTRY(i16), INT_ENTRY(i32),
                                            INT_ENTRY(i64)};
static const type_loops_t unsigned_loops[] = {INT_ENTRY(u8), INT_ENTRY(u16), INT_ENTRY(u32),
                                              INT_ENTRY(u64)};

#define DT(handle) [OL_DT_SLOT(handle)]
#define SIGNED(handle, type) DT(handle) = &signed_loops[SIGNED_OF(type)]
#define UNSIGNED(handle, type) DT(handle) = &unsigned_loops[SIGNED_OF(type)]

static const type_loops_t float_loops[] = {FLOAT_ENTRY(f32), FLOAT_ENTRY(f64), FLOAT_ENTRY(ldbl)};
static const type_loops_t complex_loops[] = {COMPLEX_ENTRY(c32), COMPLEX_ENTRY(c64),
                                             COMPLEX_ENTRY(cld)};
/* binary16 (MPIX_C_FLOAT16, MPI_REAL2) and bfloat16: half.c */
static const type_loops_t f16_loops = {
    .sum = ol_op_f16_sum, .prod = ol_op_f16_prod, .max = ol_op_f16_max, .min = ol_op_f16_min};
static const type_loops_t bf16_loops = {
    .sum = ol_op_bf16_sum, .prod = ol_op_bf16_prod, .max = ol_op_bf16_max, .min = ol_op_bf16_min};
static const type_loops_t bool_loops = LOGICAL_ENTRY(bool);
static const type_loops_t fortran_logical_loops[] = {
    FORTRAN_LOGICAL_ENTRY(8), FORTRAN_LOGICAL_ENTRY(16), FORTRAN_LOGICAL_ENTRY(32),
    FORTRAN_LOGICAL_ENTRY(64)};
static const type_loops_t byte_loops = BYTE_ENTRY;
static const type_loops_t char_loops = INT_ENTRY(char);
static const type_loops_t schar_loops = INT_ENTRY(schar);
static const type_loops_t pair_loops[] = {
    PAIR_ENTRY(float_int), PAIR_ENTRY(double_int), PAIR_ENTRY(long_int), PAIR_ENTRY(2int),
    PAIR_ENTRY(short_int), PAIR_ENTRY(ldbl_int),
};
/* The Fortran pairs' loops by member size: 4 bytes, then 8. */
static const type_loops_t integer_pair_loops[] = {PAIR_ENTRY(2int), PAIR_ENTRY(2i64)};
static const type_loops_t real_pair_loops[] = {PAIR_ENTRY(2f32), PAIR_ENTRY(2f64)};

/* INTEGER, REAL and the other Fortran types whose size may change have no
 * row: they reduce as their sized twin (ol_dt_sized_twin). Nor do the types
 * of no C type (REAL16, INTEGER16, COMPLEX4, COMPLEX32, LOGICAL16). */
static const type_loops_t *const loops_of_type[OL_DT_SLOTS] = {
    SIGNED(MPI_AINT, MPI_Aint),
    SIGNED(MPI_COUNT, MPI_Count),
    SIGNED(MPI_OFFSET, MPI_Offset),
    SIGNED(MPI_SHORT, short),
    SIGNED(MPI_INT, int),
    SIGNED(MPI_LONG, long),
    SIGNED(MPI_LONG_LONG, long long),
    UNSIGNED(MPI_UNSIGNED_SHORT, unsigned short),
    UNSIGNED(MPI_UNSIGNED, unsigned),
    UNSIGNED(MPI_UNSIGNED_LONG, unsigned long),
    UNSIGNED(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    SIGNED(MPI_INT8_T, int8_t),
    UNSIGNED(MPI_UINT8_T, uint8_t),
    SIGNED(MPI_INT16_T, int16_t),
    UNSIGNED(MPI_UINT16_T, uint16_t),
    SIGNED(MPI_INT32_T, int32_t),
    UNSIGNED(MPI_UINT32_T, uint32_t),
    SIGNED(MPI_INT64_T, int64_t),
    UNSIGNED(MPI_UINT64_T, uint64_t),
    DT(MPI_SIGNED_CHAR) = &schar_loops,
    UNSIGNED(MPI_UNSIGNED_CHAR, unsigned char),
    DT(MPI_CHAR) = &char_loops,
    UNSIGNED(MPI_WCHAR, wchar_t),
    SIGNED(MPI_INTEGER1, int8_t),
    SIGNED(MPI_INTEGER2, int16_t),
    SIGNED(MPI_INTEGER4, int32_t),
    SIGNED(MPI_INTEGER8, int64_t),
    DT(MPI_FLOAT) = &float_loops[0],
    DT(MPI_DOUBLE) = &float_loops[1],
    DT(MPI_LONG_DOUBLE) = &float_loops[2],
    DT(MPI_REAL4) = &float_loops[0],
    DT(MPI_REAL8) = &float_loops[1],
    DT(MPI_REAL2) = &f16_loops,
    DT(MPIX_C_FLOAT16) = &f16_loops,
    DT(MPIX_C_BF16) = &bf16_loops,
    DT(MPI_C_FLOAT_COMPLEX) = &complex_loops[0],
    DT(MPI_CXX_FLOAT_COMPLEX) = &complex_loops[0],
    DT(MPI_COMPLEX8) = &complex_loops[0],
    DT(MPI_C_DOUBLE_COMPLEX) = &complex_loops[1],
    DT(MPI_CXX_DOUBLE_COMPLEX) = &complex_loops[1],
    DT(MPI_COMPLEX16) = &complex_loops[1],
    DT(MPI_C_LONG_DOUBLE_COMPLEX) = &complex_loops[2],
    DT(MPI_CXX_LONG_DOUBLE_COMPLEX) = &complex_loops[2],
    DT(MPI_C_BOOL) = &bool_loops,
    DT(MPI_CXX_BOOL) = &bool_loops,
    DT(MPI_LOGICAL1) = &fortran_logical_loops[0],
    DT(MPI_LOGICAL2) = &fortran_logical_loops[1],
    DT(MPI_LOGICAL4) = &fortran_logical_loops[2],
    DT(MPI_LOGICAL8) = &fortran_logical_loops[3],
    DT(MPI_BYTE) = &byte_loops,
    DT(MPI_FLOAT_INT) = &pair_loops[0],
    DT(MPI_DOUBLE_INT) = &pair_loops[1],
    DT(MPI_LONG_INT) = &pair_loops[2],
    DT(MPI_2INT) = &pair_loops[3],
    DT(MPI_SHORT_INT) = &pair_loops[4],
    DT(MPI_LONG_DOUBLE_INT) = &pair_loops[5],
};

#define OP(handle, nm, comm) [(uintptr_t)(handle) - OP_BASE] = {                               \
    .magic = OL_OP_MAGIC, .predefined = true, .commutative = comm,                             \
    .index = (int)((uintptr_t)(handle) - OP_BASE), .name = nm}

static ol_op_t predefined_ops[OP_COUNT] = {
    OP(MPI_SUM, "MPI_SUM", true),       OP(MPI_PROD, "MPI_PROD", true),
    OP(MPI_MAX, "MPI_MAX", true),       OP(MPI_MIN, "MPI_MIN", true),
    OP(MPI_LAND, "MPI_LAND", true),     OP(MPI_LOR, "MPI_LOR", true),
    OP(MPI_LXOR, "MPI_LXOR", true),     OP(MPI_BAND, "MPI_BAND", true),
    OP(MPI_BOR, "MPI_BOR", true),       OP(MPI_BXOR, "MPI_BXOR", true),
    OP(MPI_MINLOC, "MPI_MINLOC", true), OP(MPI_MAXLOC, "MPI_MAXLOC", true),
    OP(MPI_REPLACE, "MPI_REPLACE", true), OP(MPI_NO_OP, "MPI_NO_OP", true),
};

/* Where an op's loop sits in type_loops_t, plus one (0: no loop). */
#define FIELD(handle, member) [(uintptr_t)(handle) - OP_BASE] = offsetof(type_loops_t, member) + 1
static const size_t loop_of_op[OP_COUNT] = {
    FIELD(MPI_SUM, sum),   FIELD(MPI_PROD, prod), FIELD(MPI_MAX, max),
    FIELD(MPI_MIN, min),   FIELD(MPI_LAND, land), FIELD(MPI_LOR, lor),
    FIELD(MPI_LXOR, lxor), FIELD(MPI_BAND, band), FIELD(MPI_BOR, bor),
    FIELD(MPI_BXOR, bxor), FIELD(MPI_MINLOC, minloc), FIELD(MPI_MAXLOC, maxloc),
};

ol_op_t *ol_op_from_handle(MPI_Op handle)
{
    uintptr_t value = (uintptr_t)handle;
    if (value >= OP_BASE && value < OP_BASE + OP_COUNT) {
        ol_op_t *op = &predefined_ops[value - OP_BASE];
        return op->name ? op : NULL;
    }
    if (value < 4096)
        return NULL; /* MPI_OP_NULL or another small value */
    ol_op_t *op = (ol_op_t *)handle;
    return op->magic == OL_OP_MAGIC ? op : NULL;
}

MPI_Op ol_op_to_handle(const ol_op_t *op)
{
    return op->predefined ? (MPI_Op)(uintptr_t)(OP_BASE + op->index) : (MPI_Op)op;
}

/* The Fortran pairs hold two INTEGERs, REALs or DOUBLE PRECISIONs of the
 * size a Fortran layer may have set (ol_fortran_sizes_t). */
static const type_loops_t *fortran_pair_loops(MPI_Datatype pair, size_t member)
{
    const type_loops_t *by_size = pair == MPI_2INTEGER ? integer_pair_loops
                                  : pair == MPI_2REAL || pair == MPI_2DOUBLE_PRECISION
                                      ? real_pair_loops
                                      : NULL;
    if (!by_size || (member != 4 && member != 8))
        return NULL;
    return &by_size[member == 8];
}

static const type_loops_t *loops_of(const ol_datatype_t *dt)
{
    MPI_Datatype handle = ol_dt_to_handle(ol_dt_sized_twin(dt));
    int slot = ol_dt_slot((uintptr_t)handle);
    if (slot < 0)
        return NULL;
    return loops_of_type[slot] ? loops_of_type[slot] : fortran_pair_loops(handle, dt->size / 2);
}

ol_op_loop_t ol_op_loop(const ol_op_t *op, const ol_datatype_t *dt)
{
    const type_loops_t *loops = op->predefined ? loops_of(dt) : NULL;
    if (!loops)
        return NULL;
    size_t field = loop_of_op[op->index];
    return field ? *(const ol_op_loop_t *)((const char *)loops + field - 1) : NULL;
}

/* ---- Fortran's .TRUE. and .FALSE. --------------------------------------- */

typedef struct {
    size_t size;
    void *true_value, *false_value;
    bool set;
} fortran_booleans_t;

static fortran_booleans_t fortran_booleans[] = {
    {1, &fortran_true8, &fortran_false8, false},
    {2, &fortran_true16, &fortran_false16, false},
    {4, &fortran_true32, &fortran_false32, false},
    {8, &fortran_true64, &fortran_false64, false},
};

static fortran_booleans_t *booleans_of_size(size_t size)
{
    for (size_t i = 0; i < OL_ARRAY_SIZE(fortran_booleans); i++)
        if (fortran_booleans[i].size == size)
            return &fortran_booleans[i];
    return NULL;
}

bool ol_op_fortran_logical_size_exists(size_t size)
{
    return booleans_of_size(size) != NULL;
}

bool ol_op_get_fortran_booleans(size_t size, void *true_value, void *false_value)
{
    fortran_booleans_t *b = booleans_of_size(size);
    if (!b || !b->set)
        return false;
    memcpy(true_value, b->true_value, size);
    memcpy(false_value, b->false_value, size);
    return true;
}

void ol_op_set_fortran_booleans(size_t size, const void *true_value, const void *false_value)
{
    fortran_booleans_t *b = booleans_of_size(size);
    memcpy(b->true_value, true_value, size);
    memcpy(b->false_value, false_value, size);
    b->set = true;
}

bool ol_op_fortran_booleans_set(const ol_datatype_t *dt)
{
    MPI_Datatype handle = ol_dt_to_handle(ol_dt_sized_twin(dt));
    bool logical = handle == MPI_LOGICAL1 || handle == MPI_LOGICAL2 || handle == MPI_LOGICAL4 ||
                   handle == MPI_LOGICAL8;
    return logical && booleans_of_size(dt->size)->set;
}
