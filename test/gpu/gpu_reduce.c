/* gpu_reduce: reductions on device buffers for every predefined op on every
 * predefined type it applies to (MPI-4.1 section 6.9.2): int8..int64,
 * uint8..uint64, float and double (max min sum prod, and the bitwise and
 * logical ops on the integers), float and double complex (sum prod), C_BOOL
 * (land lor lxor); then MINLOC and MAXLOC on MPI_DOUBLE_INT and two
 * user-defined ops, one of them not commutative (the library stages these
 * through the host). Each with MPI_Allreduce, MPI_Allreduce in place and
 * MPI_Reduce to the last rank, on 1, 3, 1000 and 262145 elements; every
 * rank computes the expected result on the host from everyone's inputs and
 * compares bytes.
 *   gpu_reduce            everything
 *   gpu_reduce allreduce  MPI_Allreduce only, the largest count 65537
 *                         (run under each setting of gpu_allreduce_algos.sh) */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"

enum op { MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, OPS };
static const char *const op_names[] = { "MPI_MAX",  "MPI_MIN", "MPI_SUM",  "MPI_PROD", "MPI_LAND",
                                        "MPI_LOR",  "MPI_LXOR", "MPI_BAND", "MPI_BOR",  "MPI_BXOR" };

static MPI_Op mpi_op(enum op op)
{
    static MPI_Op ops[OPS];
    ops[MAX] = MPI_MAX; ops[MIN] = MPI_MIN; ops[SUM] = MPI_SUM; ops[PROD] = MPI_PROD;
    ops[LAND] = MPI_LAND; ops[LOR] = MPI_LOR; ops[LXOR] = MPI_LXOR;
    ops[BAND] = MPI_BAND; ops[BOR] = MPI_BOR; ops[BXOR] = MPI_BXOR;
    return ops[op];
}

enum kind { SIGNED, UNSIGNED, FLOATING, COMPLEX, LOGICAL };

enum type { I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, C32, C64, BOOL, TYPES };
static const struct {
    const char *name;
    size_t size;
    enum kind kind;
} types[] = {
    [I8] = { "MPI_INT8_T", 1, SIGNED },     [I16] = { "MPI_INT16_T", 2, SIGNED },
    [I32] = { "MPI_INT32_T", 4, SIGNED },   [I64] = { "MPI_INT64_T", 8, SIGNED },
    [U8] = { "MPI_UINT8_T", 1, UNSIGNED },  [U16] = { "MPI_UINT16_T", 2, UNSIGNED },
    [U32] = { "MPI_UINT32_T", 4, UNSIGNED }, [U64] = { "MPI_UINT64_T", 8, UNSIGNED },
    [F32] = { "MPI_FLOAT", 4, FLOATING },   [F64] = { "MPI_DOUBLE", 8, FLOATING },
    [C32] = { "MPI_C_FLOAT_COMPLEX", 8, COMPLEX }, [C64] = { "MPI_C_DOUBLE_COMPLEX", 16, COMPLEX },
    [BOOL] = { "MPI_C_BOOL", sizeof(bool), LOGICAL },
};

static MPI_Datatype mpi_type(enum type t)
{
    static MPI_Datatype dts[TYPES];
    dts[I8] = MPI_INT8_T; dts[I16] = MPI_INT16_T; dts[I32] = MPI_INT32_T; dts[I64] = MPI_INT64_T;
    dts[U8] = MPI_UINT8_T; dts[U16] = MPI_UINT16_T; dts[U32] = MPI_UINT32_T; dts[U64] = MPI_UINT64_T;
    dts[F32] = MPI_FLOAT; dts[F64] = MPI_DOUBLE; dts[C32] = MPI_C_FLOAT_COMPLEX;
    dts[C64] = MPI_C_DOUBLE_COMPLEX; dts[BOOL] = MPI_C_BOOL;
    return dts[t];
}

/* The standard's table: which op applies to which kind of type. */
static bool applies(enum op op, enum kind kind)
{
    switch (op) {
    case MAX: case MIN: return kind == SIGNED || kind == UNSIGNED || kind == FLOATING;
    case SUM: case PROD: return kind != LOGICAL;
    case LAND: case LOR: case LXOR: return kind == SIGNED || kind == UNSIGNED || kind == LOGICAL;
    default: return kind == SIGNED || kind == UNSIGNED;
    }
}

/* ---- inputs --------------------------------------------------------------- */

static uint64_t mix(int r, size_t i, int salt)
{
    uint64_t x = ((uint64_t)r << 40) ^ ((uint64_t)i << 8) ^ (uint64_t)salt;
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return x ^ (x >> 32);
}

/* Element i of rank r's input, as a signed value small enough that sums and
 * products never overflow (any type, up to 6 ranks), or as full-range bits
 * for max, min and the bitwise ops. Logical inputs: zero one time in four,
 * else a non-zero value other than 1 (any non-zero is true). */
static int64_t small_value(enum op op, int r, size_t i)
{
    uint64_t h = mix(r, i, op);
    if (op == PROD)
        return (h % 5 == 0 ? -1 : 1) * (h % 3 == 0 ? 2 : 1);
    return (int64_t)(h % 7) - 3;
}

static void input_element(enum type t, enum op op, int r, size_t i, void *out)
{
    uint64_t h = mix(r, i, op + 100 * t);
    bool full_range = op == MAX || op == MIN || op >= BAND;
    int64_t v = small_value(op, r, i);

    if (op == LAND || op == LOR || op == LXOR)
        v = h % 4 == 0 ? 0 : (int64_t)(h % 5) + 2;
    if (types[t].kind == UNSIGNED && !full_range && v < 0)
        v = -v;
    switch (t) {
    case I8: *(int8_t *)out = full_range ? (int8_t)h : (int8_t)v; break;
    case I16: *(int16_t *)out = full_range ? (int16_t)h : (int16_t)v; break;
    case I32: *(int32_t *)out = full_range ? (int32_t)h : (int32_t)v; break;
    case I64: *(int64_t *)out = full_range ? (int64_t)h : v; break;
    case U8: *(uint8_t *)out = full_range ? (uint8_t)h : (uint8_t)v; break;
    case U16: *(uint16_t *)out = full_range ? (uint16_t)h : (uint16_t)v; break;
    case U32: *(uint32_t *)out = full_range ? (uint32_t)h : (uint32_t)v; break;
    case U64: *(uint64_t *)out = full_range ? h : (uint64_t)v; break;
    /* quarters and small integers: every sum and product is exact */
    case F32: *(float *)out = full_range ? (float)((int)(h % 4001) - 2000) / 4 : (float)v; break;
    case F64: *(double *)out = full_range ? (double)((int)(h % 4001) - 2000) / 4 : (double)v; break;
    case C32: *(float complex *)out = CMPLXF((float)v, (float)small_value(op, r + 50, i)); break;
    case C64: *(double complex *)out = CMPLX((double)v, (double)small_value(op, r + 50, i)); break;
    case BOOL: *(bool *)out = v != 0; break;
    default: break;
    }
}

static void fill_input(enum type t, enum op op, int r, void *buf, size_t count)
{
    for (size_t i = 0; i < count; i++)
        input_element(t, op, r, i, (char *)buf + i * types[t].size);
}

/* ---- the reference on the host: acc = acc op in, in rank order ---------- */

#define INTEGER_CASE(T)                                                          \
    do {                                                                         \
        T *a = acc;                                                              \
        const T *b = in;                                                         \
        for (size_t i = 0; i < count; i++) {                                     \
            T x = a[i], y = b[i];                                                \
            switch (op) {                                                        \
            case MAX: a[i] = x > y ? x : y; break;                               \
            case MIN: a[i] = x < y ? x : y; break;                               \
            case SUM: a[i] = (T)(x + y); break;                                  \
            case PROD: a[i] = (T)(x * y); break;                                 \
            case LAND: a[i] = (T)(x && y); break;                                \
            case LOR: a[i] = (T)(x || y); break;                                 \
            case LXOR: a[i] = (T)(!x != !y); break;                              \
            case BAND: a[i] = (T)(x & y); break;                                 \
            case BOR: a[i] = (T)(x | y); break;                                  \
            default: a[i] = (T)(x ^ y); break;                                   \
            }                                                                    \
        }                                                                        \
    } while (0)

#define LOGICAL_CASE(T)                                                          \
    do {                                                                         \
        T *a = acc;                                                              \
        const T *b = in;                                                         \
        for (size_t i = 0; i < count; i++)                                       \
            a[i] = op == LAND ? a[i] && b[i] : op == LOR ? a[i] || b[i] : a[i] != b[i]; \
    } while (0)

#define FLOATING_CASE(T)                                                         \
    do {                                                                         \
        T *a = acc;                                                              \
        const T *b = in;                                                         \
        for (size_t i = 0; i < count; i++) {                                     \
            T x = a[i], y = b[i];                                                \
            a[i] = op == MAX ? (x > y ? x : y) : op == MIN ? (x < y ? x : y)     \
                 : op == SUM ? x + y : x * y;                                    \
        }                                                                        \
    } while (0)

/* Complex product written out as (ac - bd) + (ad + bc)i, as a kernel would. */
#define COMPLEX_CASE(T, P, MAKE)                                                 \
    do {                                                                         \
        T *a = acc;                                                              \
        const T *b = in;                                                         \
        for (size_t i = 0; i < count; i++) {                                     \
            P xr = creal(a[i]), xi = cimag(a[i]), yr = creal(b[i]), yi = cimag(b[i]); \
            a[i] = op == SUM ? MAKE(xr + yr, xi + yi)                            \
                             : MAKE(xr * yr - xi * yi, xr * yi + xi * yr);       \
        }                                                                        \
    } while (0)

static void reference_step(enum type t, enum op op, void *acc, const void *in, size_t count)
{
    switch (t) {
    case I8: INTEGER_CASE(int8_t); break;
    case I16: INTEGER_CASE(int16_t); break;
    case I32: INTEGER_CASE(int32_t); break;
    case I64: INTEGER_CASE(int64_t); break;
    case U8: INTEGER_CASE(uint8_t); break;
    case U16: INTEGER_CASE(uint16_t); break;
    case U32: INTEGER_CASE(uint32_t); break;
    case U64: INTEGER_CASE(uint64_t); break;
    case F32: FLOATING_CASE(float); break;
    case F64: FLOATING_CASE(double); break;
    case C32: COMPLEX_CASE(float complex, float, CMPLXF); break;
    case C64: COMPLEX_CASE(double complex, double, CMPLX); break;
    case BOOL: LOGICAL_CASE(bool); break;
    default: break;
    }
}

static void reference(enum type t, enum op op, void *out, void *scratch, size_t count)
{
    fill_input(t, op, 0, out, count);
    for (int r = 1; r < gt_size; r++) {
        fill_input(t, op, r, scratch, count);
        reference_step(t, op, out, scratch, count);
    }
}

/* The bytes of one element as hex, in one of two static buffers. */
static const char *hex(const void *buf, size_t offset, size_t size, int which)
{
    static char text[2][40];
    const unsigned char *p = (const unsigned char *)buf + offset;
    for (size_t i = 0; i < size && i < 16; i++)
        snprintf(text[which] + 2 * i, 3, "%02x", p[i]);
    return text[which];
}

/* ---- running one case ------------------------------------------------------ */

enum call { ALLREDUCE, ALLREDUCE_IN_PLACE, REDUCE, CALLS };
static const char *const call_names[] = { "MPI_Allreduce", "MPI_Allreduce in place",
                                          "MPI_Reduce to the last rank" };

static bool allreduce_only;

/* One reduction of `count` elements of `bytes` each on device buffers,
 * input from `mine`; the result, where this rank gets one, into `got`.
 * Returns whether this rank has a result to check. */
static bool reduce_on_device(enum call call, MPI_Datatype dt, MPI_Op op, size_t bytes,
                             size_t count, const void *mine, void *got)
{
    size_t total = bytes * count;
    void *send = gt_alloc(GT_DEVICE, total), *recv = gt_alloc(GT_DEVICE, total);
    int root = gt_size - 1;
    bool has_result = call != REDUCE || gt_rank == root;

    gt_put(GT_DEVICE, send, mine, total);
    gt_put(GT_DEVICE, recv, call == ALLREDUCE_IN_PLACE ? mine : got, total);
    if (call == ALLREDUCE)
        gt_check_rc("MPI_Allreduce", MPI_Allreduce(send, recv, (int)count, dt, op, MPI_COMM_WORLD));
    else if (call == ALLREDUCE_IN_PLACE)
        gt_check_rc("MPI_Allreduce", MPI_Allreduce(MPI_IN_PLACE, recv, (int)count, dt, op,
                                                   MPI_COMM_WORLD));
    else
        gt_check_rc("MPI_Reduce", MPI_Reduce(send, recv, (int)count, dt, op, root, MPI_COMM_WORLD));
    if (has_result)
        gt_get(GT_DEVICE, got, recv, total);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    return has_result;
}

/* Integers: the same bytes. Floating and complex: the same values, so that
 * a zero's sign (which depends on the order of exact operations) does not
 * count. */
static bool same_element(enum type t, const void *a, const void *b)
{
    switch (t) {
    case F32: return *(const float *)a == *(const float *)b;
    case F64: return *(const double *)a == *(const double *)b;
    case C32: return *(const float complex *)a == *(const float complex *)b;
    case C64: return *(const double complex *)a == *(const double complex *)b;
    case BOOL: return (*(const bool *)a) == (*(const bool *)b);
    default: return memcmp(a, b, types[t].size) == 0;
    }
}

static void check_result(const char *what, enum type t, const void *got, const void *want,
                         size_t count)
{
    size_t size = types[t].size, wrong = 0, first = 0;
    for (size_t i = 0; i < count; i++)
        if (!same_element(t, (const char *)got + i * size, (const char *)want + i * size) &&
            wrong++ == 0)
            first = i;
    if (wrong)
        gt_fail("%s: %zu of %zu elements wrong; the first, element %zu, has bytes %s, expected %s",
                what, wrong, count, first, hex(got, first * size, size, 0),
                hex(want, first * size, size, 1));
}

static void predefined_case(enum type t, enum op op, size_t count, void *mine, void *want,
                            void *got)
{
    size_t total = types[t].size * count;
    char what[160];

    fill_input(t, op, gt_rank, mine, count);
    reference(t, op, want, got, count);
    for (int call = 0; call < CALLS; call++) {
        if (allreduce_only && call == REDUCE)
            continue;
        memset(got, 0xee, total);
        if (!reduce_on_device((enum call)call, mpi_type(t), mpi_op(op), types[t].size, count, mine,
                              got))
            continue;
        snprintf(what, sizeof what, "%s %s on %zu x %s on device buffers", call_names[call],
                 op_names[op], count, types[t].name);
        check_result(what, t, got, want, count);
    }
}

/* ---- MINLOC and MAXLOC on MPI_DOUBLE_INT ------------------------------------ */

struct double_int { double value; int index; };

static struct double_int loc_input(int r, size_t i)
{
    /* few distinct values, so that ties (lowest index wins) are frequent */
    struct double_int x = { (double)(mix(r, i, 77) % 4), r * 10 + (int)(i % 7) };
    return x;
}

static void loc_step(bool is_min, struct double_int *acc, struct double_int in)
{
    bool better = is_min ? in.value < acc->value : in.value > acc->value;
    if (better)
        *acc = in;
    else if (in.value == acc->value && in.index < acc->index)
        acc->index = in.index;
}

static void loc_case(bool is_min, size_t count)
{
    size_t total = count * sizeof(struct double_int);
    struct double_int *mine = malloc(total), *want = malloc(total), *got = malloc(total);
    char what[160];

    memset(mine, 0, total); /* padding too: bytes are compared */
    memset(want, 0, total);
    for (size_t i = 0; i < count; i++) {
        mine[i] = loc_input(gt_rank, i);
        want[i] = loc_input(0, i);
        for (int r = 1; r < gt_size; r++)
            loc_step(is_min, &want[i], loc_input(r, i));
    }
    for (int call = 0; call < CALLS; call++) {
        if (allreduce_only && call == REDUCE)
            continue;
        memset(got, 0, total);
        if (!reduce_on_device((enum call)call, MPI_DOUBLE_INT, is_min ? MPI_MINLOC : MPI_MAXLOC,
                              sizeof(struct double_int), count, mine, got))
            continue;
        for (size_t i = 0; i < count; i++)
            if (got[i].value != want[i].value || got[i].index != want[i].index) {
                snprintf(what, sizeof what, "%s %s on %zu x MPI_DOUBLE_INT on device buffers",
                         call_names[call], is_min ? "MPI_MINLOC" : "MPI_MAXLOC", count);
                gt_fail("%s: element %zu is (%g, %d), expected (%g, %d)", what, i, got[i].value,
                        got[i].index, want[i].value, want[i].index);
                break;
            }
    }
    free(mine);
    free(want);
    free(got);
}

/* ---- user-defined ops (staged through the host by the library) ---------- */

/* Commutative: a sum written by the user. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* Not commutative: x op y = y unless y is 0, then x. The result is the
 * value of the highest rank whose value is not 0: only right when the
 * library combines the ranks in order. */
static void user_last_nonzero(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)inout)[i] == 0)
            ((int *)inout)[i] = ((int *)in)[i];
}

static int user_input(bool commutative, int r, size_t i)
{
    if (commutative)
        return (int)(mix(r, i, 5) % 1000);
    return (r + (int)i) % 3 == 0 ? 0 : r * 100000 + (int)i + 1;
}

static void user_case(bool commutative, size_t count)
{
    size_t total = count * sizeof(int);
    int *mine = malloc(total), *want = malloc(total), *got = malloc(total);
    MPI_Op op;
    char what[160];

    MPI_Op_create(commutative ? user_sum : user_last_nonzero, commutative, &op);
    for (size_t i = 0; i < count; i++) {
        mine[i] = user_input(commutative, gt_rank, i);
        want[i] = user_input(commutative, 0, i);
        for (int r = 1; r < gt_size; r++) {
            int y = user_input(commutative, r, i);
            want[i] = commutative ? want[i] + y : (y != 0 ? y : want[i]);
        }
    }
    for (int call = 0; call < CALLS; call++) {
        if (allreduce_only && call == REDUCE)
            continue;
        memset(got, 0, total);
        if (!reduce_on_device((enum call)call, MPI_INT, op, sizeof(int), count, mine, got))
            continue;
        snprintf(what, sizeof what, "%s with a user-defined %s op on %zu x MPI_INT on device buffers",
                 call_names[call], commutative ? "commutative" : "non-commutative", count);
        gt_check_bytes(what, got, want, total);
    }
    MPI_Op_free(&op);
    free(mine);
    free(want);
    free(got);
}

int main(int argc, char **argv)
{
    size_t counts[] = { 1, 3, 1000, 262145 };
    size_t max_bytes = 262145 * 16;
    void *mine, *want, *got;

    gt_init("gpu_reduce", &argc, &argv);
    allreduce_only = argc > 1 && strcmp(argv[1], "allreduce") == 0;
    if (allreduce_only)
        counts[3] = 65537;
    mine = malloc(max_bytes);
    want = malloc(max_bytes);
    got = malloc(max_bytes);
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        for (int t = 0; t < TYPES; t++)
            for (int op = 0; op < OPS; op++)
                if (applies((enum op)op, types[t].kind))
                    predefined_case((enum type)t, (enum op)op, counts[c], mine, want, got);
        loc_case(true, counts[c]);
        loc_case(false, counts[c]);
        user_case(true, counts[c]);
        user_case(false, counts[c]);
        if (gt_rank == 0)
            printf("gpu_reduce: %zu elements: %s\n", counts[c],
                   gt_failures() ? "FAILED so far" : "passed on rank 0");
    }
    free(mine);
    free(want);
    free(got);
    return gt_finish();
}
