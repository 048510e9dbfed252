/* rma_acc: the accumulate family and the atomics of one-sided
 * communication.
 *
 * Cases (optional arguments select them: a whole name or some of its
 * components, e.g. "ring", "ops", "fop/all"):
 *   ops/ring, ops/all   MPI_Accumulate with every predefined op on int, long,
 *                       unsigned, double, float, int64_t and float complex
 *                       where the standard allows the pair (SUM, PROD,
 *                       MAX, MIN, BAND, BOR, BXOR, LAND, LOR, LXOR, REPLACE),
 *                       and MAXLOC/MINLOC on MPI_2INT, MPI_DOUBLE_INT and
 *                       MPI_SHORT_INT (ties broken by the lowest index). Ring:
 *                       one origin per target, fence epochs; all: every rank
 *                       accumulates the same 7 elements of every rank at once
 *                       in a lock_all epoch, and the result is the rank-order
 *                       fold (the values are chosen so that any order gives
 *                       the same exact result); with MPI_REPLACE each element
 *                       must hold one origin's whole value. The elements
 *                       around the target ones must stay untouched.
 *   derived/ring        derived datatypes on both sides of MPI_Accumulate
 *                       (indexed origin, vector target; struct of ints with
 *                       gaps) and of MPI_Get_accumulate (origin, target and
 *                       result types all different)
 *   getacc/all          MPI_Get_accumulate: concurrent SUM by all ranks, the
 *                       fetched values form one chain (each one is the one
 *                       before plus the increment of the rank that fetched
 *                       the one before); REPLACE as an atomic swap (fetched
 *                       and final values are a permutation of the initial
 *                       and the swapped-in ones); MPI_NO_OP as an atomic read
 *   fop/all             MPI_Fetch_and_op: a counter (int, then int64_t above
 *                       2^40) at rank 0 incremented 100 times by every rank
 *                       under lock_all + flush: final value = exact sum, the
 *                       fetched values are all distinct (0..n*100-1 once
 *                       each); NO_OP reads it; REPLACE swaps
 *   cas/all             MPI_Compare_and_swap: a failed compare leaves the
 *                       target alone; then a spin lock at rank 0 (CAS, flush)
 *                       protecting a counter updated by non-atomic Get + Put:
 *                       no update is lost; while a rank holds the lock,
 *                       reading the lock word gives that rank
 *   cas64/ring          MPI_Compare_and_swap on MPI_INT64_T with values
 *                       above 2^32 (Open MPI 4.1.4's default osc/rdma over
 *                       btl/vader crashes here: run it with --mca osc pt2pt)
 *   req/ring, req/all   MPI_Rput (origin buffer reused right after MPI_Wait),
 *                       MPI_Rget, MPI_Raccumulate, MPI_Rget_accumulate waited
 *                       with MPI_Wait and MPI_Waitall inside lock_all
 *   large/ring          MPI_Put_c, MPI_Get_c, MPI_Accumulate_c,
 *                       MPI_Get_accumulate_c with MPI_Count counts (only
 *                       built where mpi.h is MPI 4 or later)
 *   ordering/ring       accumulates from one origin to one location are
 *                       applied in order (the default accumulate_ordering):
 *                       20 REPLACEs then a NO_OP Get_accumulate reads the last
 *   consistency/ring    one origin's operations on one location happen in
 *                       the order issued whatever way each takes (location
 *                       consistency, which ARMCI-MPI needs and Open MPI
 *                       4.1.4 gives; MPICH 4.0.2 lets a put overtake a get
 *                       issued before it, in 6 runs of 12), with no flush
 *                       between them: put, accumulates (16 elements, a
 *                       vector, single elements), get, put, fetch-and-op,
 *                       compare-and-swap, Get_accumulate; each read sees
 *                       every write before it
 *   random/all          a randomized checker with a fixed seed: every rank
 *                       draws the same list of accumulates of all ranks (SUM
 *                       on int64_t and int, BXOR on unsigned; counts 1 to 4,
 *                       Accumulate, Get_accumulate or Raccumulate, random
 *                       flushes), issues its own in three epochs (fence,
 *                       lock_all, lock per target) and every target compares
 *                       its memory with the sequential model
 *
 * Progress: every target waits for its origins inside MPI calls (barriers,
 * fences, flushes, the spinning CAS itself): ompi-lite progresses
 * passive-target operations inside MPI calls of the target. */
#include "rma_util.h"

#include <complex.h>
#include <stdint.h>

#define NA 7 /* elements per accumulate: odd */

enum { O_SUM, O_PROD, O_MAX, O_MIN, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_REPLACE, NO };
static const char *op_names[] = {"MPI_SUM",  "MPI_PROD", "MPI_MAX",    "MPI_MIN",
                                 "MPI_BAND", "MPI_BOR",  "MPI_BXOR",   "MPI_LAND",
                                 "MPI_LOR",  "MPI_LXOR", "MPI_REPLACE"};
static MPI_Op op_handle(int op)
{
    MPI_Op h[] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_BAND,   MPI_BOR,
                  MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE};
    return h[op];
}

enum { K_INT, K_FLOAT, K_COMPLEX };
enum { T_INT, T_LONG, T_UNSIGNED, T_DOUBLE, T_FLOAT, T_INT64, T_CFLOAT, NT };
static const char *type_names[] = {"MPI_INT",   "MPI_LONG",    "MPI_UNSIGNED",       "MPI_DOUBLE",
                                   "MPI_FLOAT", "MPI_INT64_T", "MPI_C_FLOAT_COMPLEX"};
static const int type_kind[] = {K_INT, K_INT, K_INT, K_FLOAT, K_FLOAT, K_INT, K_COMPLEX};
static const size_t type_size[] = {sizeof(int),          sizeof(long),  sizeof(unsigned),
                                   sizeof(double),       sizeof(float), sizeof(int64_t),
                                   sizeof(float complex)};
static MPI_Datatype type_handle(int t)
{
    MPI_Datatype h[] = {MPI_INT,   MPI_LONG,    MPI_UNSIGNED,       MPI_DOUBLE,
                        MPI_FLOAT, MPI_INT64_T, MPI_C_FLOAT_COMPLEX};
    return h[t];
}

/* The standard's table of which op goes with which type class. */
static int allowed(int op, int t)
{
    switch (type_kind[t]) {
    case K_INT: return 1;
    case K_FLOAT: return op <= O_MIN || op == O_REPLACE;
    default: return op <= O_PROD || op == O_REPLACE;
    }
}

/* Values: r = -1 is the target's initial value. Chosen so that folding them
 * in any order gives the same exact result. */
static long long ival(int op, int r, int i)
{
    static const int factors[] = {2, -1, 3, 1, -2};
    switch (op) {
    case O_SUM: return r < 0 ? 100 + i : (r + 1) * 3 + i - 5;
    case O_PROD: return r < 0 ? i + 1 : factors[(r + i) % 5];
    case O_MAX:
    case O_MIN: return r < 0 ? i - 3 : (r * 7 + i * 3) % 11 - 5;
    case O_BAND:
        return r < 0 ? (long long)(~0ULL ^ (1ULL << (i + 3)))
                     : (long long)(~0ULL ^ (0x11ULL << ((r * 3 + i) % 29)));
    case O_BOR:
    case O_BXOR:
        return r < 0 ? 0x0F0F0F0F0F0FLL + i
                     : (long long)(0x9E3779B97F4A7C15ULL >> ((r * 5 + i) % 32));
    case O_LAND:
    case O_LOR:
    case O_LXOR:
        if (r < 0)
            return i % 4 == 0 ? 0 : 7;
        return (r + i) % 3 == 0 ? 0 : r + i + 1;
    default: /* REPLACE */ return r < 0 ? -1000 - i : 1000 * (r + 1) + i;
    }
}

static double fval(int op, int r, int i)
{
    static const double factors[] = {2, -0.5, 1.5, 1, -2};
    switch (op) {
    case O_SUM: return r < 0 ? 100.25 + i : (r + 1) * 0.5 + i - 2;
    case O_PROD: return r < 0 ? i + 1 : factors[(r + i) % 5];
    case O_MAX:
    case O_MIN: return r < 0 ? i - 3.5 : (r * 7 + i * 3) % 11 - 5.5;
    default: return r < 0 ? -1000.5 - i : 1000.5 * (r + 1) + i;
    }
}

static float complex cval(int op, int r, int i)
{
    static const float complex factors[] = {1 + 1 * I, 2, -1, 1 * I, 1 - 1 * I};
    switch (op) {
    case O_SUM: return r < 0 ? 100.25f + i * I : (r + 1) * 0.5f + i - 2 + (i - r) * I;
    case O_PROD: return r < 0 ? (float)(i + 1) : factors[(r + i) % 5];
    default: return r < 0 ? -1000.5f - i * I : 1000.5f * (r + 1) + i + r * I;
    }
}

#define INT_FOLD(T, a, v, op)                                                                      \
    switch (op) {                                                                                  \
    case O_SUM: a = (T)(a + v); break;                                                             \
    case O_PROD: a = (T)(a * v); break;                                                            \
    case O_MAX: a = a > v ? a : v; break;                                                          \
    case O_MIN: a = a < v ? a : v; break;                                                          \
    case O_BAND: a = (T)(a & v); break;                                                            \
    case O_BOR: a = (T)(a | v); break;                                                             \
    case O_BXOR: a = (T)(a ^ v); break;                                                            \
    case O_LAND: a = (T)(a && v); break;                                                           \
    case O_LOR: a = (T)(a || v); break;                                                            \
    case O_LXOR: a = (T)(!a != !v); break;                                                         \
    case O_REPLACE: a = v; break;                                                                  \
    }

#define FLT_FOLD(a, v, op)                                                                         \
    switch (op) {                                                                                  \
    case O_SUM: a = a + v; break;                                                                  \
    case O_PROD: a = a * v; break;                                                                 \
    case O_MAX: a = a > v ? a : v; break;                                                          \
    case O_MIN: a = a < v ? a : v; break;                                                          \
    case O_REPLACE: a = v; break;                                                                  \
    }

/* Element i of type t, value of rank r (-1: initial), written at p. */
static void put_val(int t, int op, int r, int i, void *p)
{
    switch (t) {
    case T_INT: *(int *)p = (int)ival(op, r, i); break;
    case T_LONG: *(long *)p = (long)ival(op, r, i); break;
    case T_UNSIGNED: *(unsigned *)p = (unsigned)ival(op, r, i); break;
    case T_INT64: *(int64_t *)p = (int64_t)ival(op, r, i); break;
    case T_DOUBLE: *(double *)p = fval(op, r, i); break;
    case T_FLOAT: *(float *)p = (float)fval(op, r, i); break;
    case T_CFLOAT: *(float complex *)p = cval(op, r, i); break;
    }
}

/* a = a op v, for element type t. */
static void fold(int t, int op, void *a, const void *v)
{
    switch (t) {
    case T_INT: {
        int *x = a, y = *(const int *)v;
        INT_FOLD(int, *x, y, op);
        break;
    }
    case T_LONG: {
        long *x = a, y = *(const long *)v;
        INT_FOLD(long, *x, y, op);
        break;
    }
    case T_UNSIGNED: {
        unsigned *x = a, y = *(const unsigned *)v;
        INT_FOLD(unsigned, *x, y, op);
        break;
    }
    case T_INT64: {
        int64_t *x = a, y = *(const int64_t *)v;
        INT_FOLD(int64_t, *x, y, op);
        break;
    }
    case T_DOUBLE: {
        double *x = a, y = *(const double *)v;
        FLT_FOLD(*x, y, op);
        break;
    }
    case T_FLOAT: {
        float *x = a, y = *(const float *)v;
        FLT_FOLD(*x, y, op);
        break;
    }
    case T_CFLOAT: {
        float complex *x = a, y = *(const float complex *)v;
        if (op == O_SUM)
            *x += y;
        else if (op == O_PROD)
            *x *= y;
        else
            *x = y;
        break;
    }
    }
}

static int same_val(int t, const void *a, const void *b)
{
    switch (t) {
    case T_DOUBLE: return *(const double *)a == *(const double *)b;
    case T_FLOAT: return *(const float *)a == *(const float *)b;
    case T_CFLOAT: return *(const float complex *)a == *(const float complex *)b;
    default: return memcmp(a, b, type_size[t]) == 0;
    }
}

static const char *show(int t, const void *p)
{
    static char buf[2][96];
    static int k;
    char *b = buf[k ^= 1];
    switch (t) {
    case T_INT: snprintf(b, 96, "%d", *(const int *)p); break;
    case T_LONG: snprintf(b, 96, "%ld", *(const long *)p); break;
    case T_UNSIGNED: snprintf(b, 96, "%u", *(const unsigned *)p); break;
    case T_INT64: snprintf(b, 96, "%lld", (long long)*(const int64_t *)p); break;
    case T_DOUBLE: snprintf(b, 96, "%.17g", *(const double *)p); break;
    case T_FLOAT: snprintf(b, 96, "%.9g", (double)*(const float *)p); break;
    case T_CFLOAT: {
        float complex z = *(const float complex *)p;
        snprintf(b, 96, "%.9g%+.9gi", (double)crealf(z), (double)cimagf(z));
        break;
    }
    }
    return b;
}

static int ring_next(void)
{
    return (rank + 1) % nprocs;
}
static int ring_prev(void)
{
    return (rank + nprocs - 1) % nprocs;
}

static void lock_self(MPI_Win win, int type)
{
    CHECK(MPI_Win_lock(type, rank, 0, win));
    CHECK(MPI_Win_sync(win));
}

static void unlock_self(MPI_Win win)
{
    CHECK(MPI_Win_sync(win));
    CHECK(MPI_Win_unlock(rank, win));
}

static const unsigned char GUARD_BYTE = 0xAB;

/* MPI_Win_allocate with the size rounded up to 16 bytes: windows of odd
 * sizes are rma_basic's business (MPICH 4.0.2 misplaces data in them), here
 * the accumulates are. */
static int win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *base,
                        MPI_Win *win)
{
    return MPI_Win_allocate((size + 15) / 16 * 16, disp_unit, info, comm, base, win);
}

/* ---- ops ---- */

static void ops_one(MPI_Win win, unsigned char *mem, int all, int t, int op)
{
    size_t sz = type_size[t];
    unsigned char org[NA * 16], expect[NA * 16];
    /* target memory: a guard element, NA elements, a guard element */
    if (all) {
        lock_self(win, MPI_LOCK_EXCLUSIVE);
    }
    memset(mem, GUARD_BYTE, (NA + 2) * sz);
    for (int i = 0; i < NA; i++)
        put_val(t, op, -1, i, mem + (i + 1) * sz);
    for (int i = 0; i < NA; i++)
        put_val(t, op, rank, i, org + i * sz);
    if (all) {
        unlock_self(win);
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(MPI_Win_lock_all(0, win));
        for (int k = 1; k <= nprocs; k++)
            check(MPI_Accumulate(org, NA, type_handle(t), (rank + k) % nprocs, 1, NA,
                                 type_handle(t), op_handle(op), win),
                  "MPI_Accumulate");
        CHECK(MPI_Win_unlock_all(win));
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        lock_self(win, MPI_LOCK_SHARED);
    } else {
        CHECK(MPI_Win_fence(0, win));
        check(MPI_Accumulate(org, NA, type_handle(t), ring_next(), 1, NA, type_handle(t),
                             op_handle(op), win),
              "MPI_Accumulate");
        CHECK(MPI_Win_fence(0, win));
    }
    /* The origin buffer is unchanged. */
    for (int i = 0; i < NA; i++) {
        unsigned char v[16];
        put_val(t, op, rank, i, v);
        if (memcmp(v, org + i * sz, sz) != 0)
            rma_fail("%s %s: origin element %d changed", op_names[op], type_names[t], i);
    }
    for (int i = 0; i < NA; i++) {
        unsigned char *e = expect + i * sz;
        put_val(t, op, -1, i, e);
        for (int r = 0; r < nprocs; r++) {
            if (!all && r != ring_prev())
                continue;
            unsigned char v[16];
            put_val(t, op, r, i, v);
            fold(t, op, e, v);
        }
    }
    for (int i = 0; i < NA; i++) {
        const unsigned char *got = mem + (i + 1) * sz;
        if (op == O_REPLACE && all) {
            /* one origin's whole value, whichever came last */
            int ok = 0;
            for (int r = 0; r < nprocs && !ok; r++) {
                unsigned char v[16];
                put_val(t, op, r, i, v);
                ok = same_val(t, got, v);
            }
            if (!ok)
                rma_fail("MPI_REPLACE %s from all ranks: rank %d element %d = %s, which is no "
                         "origin's value (e.g. rank 0's %s)",
                         type_names[t], rank, i, show(t, got), show(t, expect + i * sz));
        } else if (!same_val(t, got, expect + i * sz))
            rma_fail("%s %s %s: target rank %d element %d = %s, expected %s", op_names[op],
                     type_names[t], all ? "from all ranks" : "from the previous rank", rank, i,
                     show(t, got), show(t, expect + i * sz));
    }
    for (size_t b = 0; b < sz; b++)
        if (mem[b] != GUARD_BYTE || mem[(NA + 1) * sz + b] != GUARD_BYTE)
            rma_fail("%s %s: the elements around the target ones were modified (byte %zu)",
                     op_names[op], type_names[t], b);
    if (all)
        unlock_self(win);
}

struct di {
    double v;
    int l;
};
struct si {
    short v;
    int l;
};
struct ii {
    int v;
    int l;
};

static void loc_one(MPI_Win win, unsigned char *mem, int all, int pt, int maxloc)
{
    /* pt: 0 MPI_2INT, 1 MPI_DOUBLE_INT, 2 MPI_SHORT_INT */
    MPI_Datatype dt = pt == 0 ? MPI_2INT : pt == 1 ? MPI_DOUBLE_INT : MPI_SHORT_INT;
    const char *dn = pt == 0 ? "MPI_2INT" : pt == 1 ? "MPI_DOUBLE_INT" : "MPI_SHORT_INT";
    const char *on = maxloc ? "MPI_MAXLOC" : "MPI_MINLOC";
    MPI_Aint lb, ext;
    MPI_Type_get_extent(dt, &lb, &ext);
    /* values with ties; the target's initial pair loses ties to any rank */
#define VAL(r, i) ((r) < 0 ? 1 : ((r)*7 + (i)*3) % 3)
#define LOC(r, i) ((r) < 0 ? 100 + (i) : (r))
    union {
        struct ii a[NA + 2];
        struct di b[NA + 2];
        struct si c[NA + 2];
    } org;
    if (all)
        lock_self(win, MPI_LOCK_EXCLUSIVE);
    memset(mem, GUARD_BYTE, (NA + 2) * ext);
    for (int i = 0; i < NA; i++) {
        int v0 = VAL(-1, i), l0 = LOC(-1, i), v = VAL(rank, i), l = LOC(rank, i);
        if (pt == 0) {
            ((struct ii *)mem)[i + 1] = (struct ii){v0, l0};
            org.a[i] = (struct ii){v, l};
        } else if (pt == 1) {
            ((struct di *)mem)[i + 1] = (struct di){v0 + 0.5, l0};
            org.b[i] = (struct di){v + 0.5, l};
        } else {
            ((struct si *)mem)[i + 1] = (struct si){(short)v0, l0};
            org.c[i] = (struct si){(short)v, l};
        }
    }
    MPI_Op op = maxloc ? MPI_MAXLOC : MPI_MINLOC;
    if (all) {
        unlock_self(win);
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(MPI_Win_lock_all(0, win));
        for (int k = 1; k <= nprocs; k++)
            check(MPI_Accumulate(&org, NA, dt, (rank + k) % nprocs, 1, NA, dt, op, win),
                  "MPI_Accumulate");
        CHECK(MPI_Win_unlock_all(win));
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        lock_self(win, MPI_LOCK_SHARED);
    } else {
        CHECK(MPI_Win_fence(0, win));
        check(MPI_Accumulate(&org, NA, dt, ring_next(), 1, NA, dt, op, win), "MPI_Accumulate");
        CHECK(MPI_Win_fence(0, win));
    }
    for (int i = 0; i < NA; i++) {
        int ev = VAL(-1, i), el = LOC(-1, i);
        for (int r = 0; r < nprocs; r++) {
            if (!all && r != ring_prev())
                continue;
            int v = VAL(r, i), l = LOC(r, i);
            if ((maxloc ? v > ev : v < ev) || (v == ev && l < el)) {
                ev = v;
                el = l;
            }
        }
        double gv;
        int gl;
        if (pt == 0) {
            gv = ((struct ii *)mem)[i + 1].v;
            gl = ((struct ii *)mem)[i + 1].l;
        } else if (pt == 1) {
            gv = ((struct di *)mem)[i + 1].v - 0.5;
            gl = ((struct di *)mem)[i + 1].l;
        } else {
            gv = ((struct si *)mem)[i + 1].v;
            gl = ((struct si *)mem)[i + 1].l;
        }
        if (gv != ev || gl != el)
            rma_fail("%s %s %s: target rank %d element %d = (%g, %d), expected (%d, %d)", on, dn,
                     all ? "from all ranks" : "from the previous rank", rank, i, gv, gl, ev, el);
    }
    for (MPI_Aint b = 0; b < ext; b++)
        if (mem[b] != GUARD_BYTE)
            rma_fail("%s %s: the element before the target ones was modified", on, dn);
    /* the padding of the last element is not data: check only its fields */
    if (all)
        unlock_self(win);
#undef VAL
#undef LOC
}

static void case_ops(int all)
{
    MPI_Win win;
    unsigned char *mem;
    MPI_Aint lb, ext;
    /* one window per type, reused by every op */
    for (int t = 0; t < NT; t++) {
        CHECK(win_allocate((NA + 2) * type_size[t], (int)type_size[t], MPI_INFO_NULL,
                           MPI_COMM_WORLD, &mem, &win));
        CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        for (int op = 0; op < NO; op++) {
            if (!allowed(op, t))
                continue;
            char token[64];
            snprintf(token, sizeof token, "%s/%s", op_names[op], type_names[t]);
            if (skip_known(token))
                continue;
            ops_one(win, mem, all, t, op);
        }
        CHECK(MPI_Win_free(&win));
    }
    for (int pt = 0; pt < 3; pt++) {
        MPI_Type_get_extent(pt == 0   ? MPI_2INT
                            : pt == 1 ? MPI_DOUBLE_INT
                                      : MPI_SHORT_INT,
                            &lb, &ext);
        CHECK(win_allocate((NA + 2) * ext, (int)ext, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        for (int maxloc = 1; maxloc >= 0; maxloc--) {
            char token[64];
            snprintf(token, sizeof token, "%s/%s", maxloc ? "MPI_MAXLOC" : "MPI_MINLOC",
                     pt == 0   ? "MPI_2INT"
                     : pt == 1 ? "MPI_DOUBLE_INT"
                               : "MPI_SHORT_INT");
            if (!skip_known(token))
                loc_one(win, mem, all, pt, maxloc);
        }
        CHECK(MPI_Win_free(&win));
    }
}

/* ---- derived ---- */

static void case_derived(void)
{
    /* Target window: 40 ints. Accumulate SUM from an indexed origin
     * (ints 4, 0, 1, 7, 8, 9 of a 10-int buffer: blocks {1@4, 2@0, 3@7}) to
     * a vector target (blocks of 2 ints every 5 from int 10: 10,11, 15,16,
     * 20,21), count 1 each; then MPI_REPLACE of 2 x struct {2 ints @4, 1 int
     * @16} extent 24 (origin) into 6 contiguous ints at int 30. Then
     * MPI_Get_accumulate SUM with origin contiguous(3), target vector(3,1,2)
     * from int 0 (0, 2, 4) and result indexed (ints 5, 1, 3 of a 6-int
     * buffer), under fences, from the previous rank. */
    int *mem;
    MPI_Win win;
    CHECK(win_allocate(40 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int expect[40];
    for (int i = 0; i < 40; i++)
        mem[i] = expect[i] = 1000 * rank + i;

    MPI_Datatype idx, vec, st, st2, cont3, vec3, idx3;
    int bl[3] = {1, 2, 3}, di[3] = {4, 0, 7};
    CHECK(MPI_Type_indexed(3, bl, di, MPI_INT, &idx));
    CHECK(MPI_Type_commit(&idx));
    CHECK(MPI_Type_vector(3, 2, 5, MPI_INT, &vec));
    CHECK(MPI_Type_commit(&vec));
    {
        int sbl[2] = {2, 1};
        MPI_Aint sd[2] = {4, 16};
        MPI_Datatype sty[2] = {MPI_INT, MPI_INT};
        CHECK(MPI_Type_create_struct(2, sbl, sd, sty, &st2));
        CHECK(MPI_Type_create_resized(st2, 0, 24, &st));
        MPI_Type_free(&st2);
        CHECK(MPI_Type_commit(&st));
    }
    CHECK(MPI_Type_contiguous(3, MPI_INT, &cont3));
    CHECK(MPI_Type_commit(&cont3));
    CHECK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec3));
    CHECK(MPI_Type_commit(&vec3));
    int bl3[3] = {1, 1, 1}, di3[3] = {5, 1, 3};
    CHECK(MPI_Type_indexed(3, bl3, di3, MPI_INT, &idx3));
    CHECK(MPI_Type_commit(&idx3));

    int org[10], sorg[12], gorg[3], res[6];
    for (int i = 0; i < 10; i++)
        org[i] = 10 * (rank + 1) + i;
    for (int i = 0; i < 12; i++)
        sorg[i] = -100 * (rank + 1) - i;
    for (int i = 0; i < 3; i++)
        gorg[i] = 7 + i;
    for (int i = 0; i < 6; i++)
        res[i] = -1;

    CHECK(MPI_Win_fence(0, win));
    check(MPI_Accumulate(org, 1, idx, ring_next(), 10, 1, vec, MPI_SUM, win), "MPI_Accumulate");
    check(MPI_Accumulate(sorg, 2, st, ring_next(), 30, 6, MPI_INT, MPI_REPLACE, win),
          "MPI_Accumulate");
    CHECK(MPI_Win_fence(0, win));
    check(MPI_Get_accumulate(gorg, 1, cont3, res, 1, idx3, ring_next(), 0, 1, vec3, MPI_SUM, win),
          "MPI_Get_accumulate");
    CHECK(MPI_Win_fence(0, win));

    int p = ring_prev();
    int pidx[6] = {4, 0, 1, 7, 8, 9}, tvec[6] = {10, 11, 15, 16, 20, 21};
    for (int k = 0; k < 6; k++)
        expect[tvec[k]] += 10 * (p + 1) + pidx[k];
    int sidx[6] = {1, 2, 4, 7, 8, 10}; /* struct ints: bytes 4,8,16 of each 24 */
    for (int k = 0; k < 6; k++)
        expect[30 + k] = -100 * (p + 1) - sidx[k];
    int gvec[3] = {0, 2, 4};
    for (int k = 0; k < 3; k++)
        expect[gvec[k]] += 7 + k;
    for (int i = 0; i < 40; i++)
        if (mem[i] != expect[i])
            rma_fail("derived accumulates from rank %d: target rank %d int %d = %d, expected %d", p,
                     rank, i, mem[i], expect[i]);
    /* result: ints 5, 1, 3 hold the target's old ints 0, 2, 4 */
    int n = ring_next(), rexp[6] = {-1, 1000 * n + 2, -1, 1000 * n + 4, -1, 1000 * n + 0};
    for (int i = 0; i < 6; i++)
        if (res[i] != rexp[i])
            rma_fail("MPI_Get_accumulate with an indexed result type from rank %d: result int "
                     "%d = %d, expected %d",
                     n, i, res[i], rexp[i]);
    MPI_Type_free(&idx);
    MPI_Type_free(&vec);
    MPI_Type_free(&st);
    MPI_Type_free(&cont3);
    MPI_Type_free(&vec3);
    MPI_Type_free(&idx3);
    CHECK(MPI_Win_free(&win));
}

/* ---- getacc ---- */

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

static void case_getacc(void)
{
    /* At every target, element 0: SUM chain; element 1: REPLACE swaps;
     * element 2: read only. Each rank does 5 Get_accumulates of each to
     * every target in one lock_all epoch, flushing after each. */
    enum { ROUNDS = 5 };
    long long *mem;
    MPI_Win win;
    CHECK(win_allocate(3 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD,
                       &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    lock_self(win, MPI_LOCK_EXCLUSIVE);
    mem[0] = 1000;
    mem[1] = -1;
    mem[2] = 4242 + rank;
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    long long *fsum = malloc(sizeof(long long) * nprocs * ROUNDS);
    long long *fswap = malloc(sizeof(long long) * nprocs * ROUNDS);
    CHECK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < ROUNDS; k++)
        for (int j = 1; j <= nprocs; j++) {
            int t = (rank + j) % nprocs;
            long long add = rank + 1, swap = 100 * (rank + 1) + k, dummy = 0, got;
            check(MPI_Get_accumulate(&add, 1, MPI_LONG_LONG, &fsum[t * ROUNDS + k], 1,
                                     MPI_LONG_LONG, t, 0, 1, MPI_LONG_LONG, MPI_SUM, win),
                  "MPI_Get_accumulate(MPI_SUM)");
            check(MPI_Get_accumulate(&swap, 1, MPI_LONG_LONG, &fswap[t * ROUNDS + k], 1,
                                     MPI_LONG_LONG, t, 1, 1, MPI_LONG_LONG, MPI_REPLACE, win),
                  "MPI_Get_accumulate(MPI_REPLACE)");
            check(MPI_Get_accumulate(&dummy, 1, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, t, 2, 1,
                                     MPI_LONG_LONG, MPI_NO_OP, win),
                  "MPI_Get_accumulate(MPI_NO_OP)");
            CHECK(MPI_Win_flush(t, win));
            if (got != 4242 + t)
                rma_fail("MPI_Get_accumulate(MPI_NO_OP) at rank %d = %lld, expected %d", t, got,
                         4242 + t);
        }
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* Every target gathers what was fetched from it. */
    int n = nprocs * ROUNDS;
    long long *mine_sum = malloc(sizeof(long long) * n), *mine_swap = malloc(sizeof(long long) * n);
    long long *all_sum = malloc(sizeof(long long) * n * nprocs);
    long long *all_swap = malloc(sizeof(long long) * n * nprocs);
    for (int t = 0; t < nprocs; t++) {
        CHECK(MPI_Gather(&fsum[t * ROUNDS], ROUNDS, MPI_LONG_LONG, all_sum, ROUNDS, MPI_LONG_LONG,
                         t, MPI_COMM_WORLD));
        CHECK(MPI_Gather(&fswap[t * ROUNDS], ROUNDS, MPI_LONG_LONG, all_swap, ROUNDS, MPI_LONG_LONG,
                         t, MPI_COMM_WORLD));
    }
    (void)mine_sum;
    (void)mine_swap;
    lock_self(win, MPI_LOCK_SHARED);
    long long total = 1000;
    for (int r = 0; r < nprocs; r++)
        total += (long long)(r + 1) * ROUNDS;
    if (mem[0] != total)
        rma_fail("Get_accumulate SUM: rank %d's final value %lld, expected %lld", rank, mem[0],
                 total);
    if (mem[2] != 4242 + rank)
        rma_fail("MPI_NO_OP changed rank %d's element to %lld", rank, mem[2]);
    /* SUM chain: sorted fetched values f0 < f1 < ...: f0 = 1000 and each
     * f(k+1) = f(k) + the increment of the origin that fetched f(k). */
    struct {
        long long f;
        int r;
    } *chain = malloc(sizeof(*chain) * n);
    for (int r = 0; r < nprocs; r++)
        for (int k = 0; k < ROUNDS; k++)
            chain[r * ROUNDS + k].f = all_sum[r * ROUNDS + k], chain[r * ROUNDS + k].r = r;
    for (int a = 1; a < n; a++) /* insertion sort by f */
        for (int b = a; b > 0 && chain[b].f < chain[b - 1].f; b--) {
            __typeof__(*chain) x = chain[b];
            chain[b] = chain[b - 1];
            chain[b - 1] = x;
        }
    long long expect = 1000;
    for (int k = 0; k < n; k++) {
        if (chain[k].f != expect)
            rma_fail("Get_accumulate SUM at rank %d: fetched values are no chain: the %dth "
                     "smallest is %lld, expected %lld (a lost or torn update)",
                     rank, k, chain[k].f, expect);
        expect += chain[k].r + 1;
    }
    /* REPLACE: {fetched} + {final} = {-1} + {swapped in}. */
    long long *got = malloc(sizeof(long long) * (n + 1)),
              *want = malloc(sizeof(long long) * (n + 1));
    memcpy(got, all_swap, sizeof(long long) * n);
    got[n] = mem[1];
    want[0] = -1;
    for (int r = 0; r < nprocs; r++)
        for (int k = 0; k < ROUNDS; k++)
            want[1 + r * ROUNDS + k] = 100 * (r + 1) + k;
    qsort(got, n + 1, sizeof(long long), cmp_ll);
    qsort(want, n + 1, sizeof(long long), cmp_ll);
    for (int k = 0; k <= n; k++)
        if (got[k] != want[k])
            rma_fail("Get_accumulate REPLACE at rank %d: fetched + final values are not the "
                     "initial + swapped-in ones: sorted element %d = %lld, expected %lld",
                     rank, k, got[k], want[k]);
    unlock_self(win);
    free(chain);
    free(got);
    free(want);
    free(fsum);
    free(fswap);
    free(mine_sum);
    free(mine_swap);
    free(all_sum);
    free(all_swap);
    CHECK(MPI_Win_free(&win));
}

/* ---- fop ---- */

static void fop_counter(int is64)
{
    enum { ITER = 100 };
    MPI_Datatype dt = is64 ? MPI_INT64_T : MPI_INT;
    const char *dn = is64 ? "MPI_INT64_T" : "MPI_INT";
    int64_t base = is64 ? (int64_t)1 << 40 : 0;
    void *mem;
    MPI_Win win;
    size_t sz = is64 ? 8 : 4;
    CHECK(win_allocate(rank == 0 ? 2 * sz : 0, (int)sz, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    if (rank == 0) {
        lock_self(win, MPI_LOCK_EXCLUSIVE);
        if (is64) {
            ((int64_t *)mem)[0] = base;
            ((int64_t *)mem)[1] = -7;
        } else {
            ((int *)mem)[0] = 0;
            ((int *)mem)[1] = -7;
        }
        unlock_self(win);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    long long fetched[ITER];
    CHECK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < ITER; k++) {
        int64_t one64 = 1, old64 = -1;
        int one = 1, old = -1;
        check(MPI_Fetch_and_op(is64 ? (void *)&one64 : (void *)&one,
                               is64 ? (void *)&old64 : (void *)&old, dt, 0, 0, MPI_SUM, win),
              "MPI_Fetch_and_op");
        CHECK(MPI_Win_flush(0, win));
        fetched[k] = is64 ? (long long)(old64 - base) : old;
    }
    /* REPLACE at element 1: an atomic swap */
    int64_t sw64 = 500 + rank, got64 = 0;
    int sw = 500 + rank, got = 0;
    check(MPI_Fetch_and_op(is64 ? (void *)&sw64 : (void *)&sw, is64 ? (void *)&got64 : (void *)&got,
                           dt, 0, 1, MPI_REPLACE, win),
          "MPI_Fetch_and_op(MPI_REPLACE)");
    CHECK(MPI_Win_unlock_all(win));
    long long swapped = is64 ? (long long)got64 : got;
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    /* MPI_NO_OP reads the final value (origin_addr ignored: NULL). */
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    int64_t fin64 = 0;
    int fin = 0;
    check(MPI_Fetch_and_op(NULL, is64 ? (void *)&fin64 : (void *)&fin, dt, 0, 0, MPI_NO_OP, win),
          "MPI_Fetch_and_op(MPI_NO_OP)");
    CHECK(MPI_Win_unlock(0, win));
    long long final = is64 ? (long long)(fin64 - base) : fin;
    if (final != (long long)nprocs * ITER)
        rma_fail("MPI_Fetch_and_op %s counter at rank 0 read by rank %d with MPI_NO_OP: %lld "
                 "(above the start), expected %d",
                 dn, rank, final, nprocs * ITER);
    long long *all = malloc(sizeof(long long) * nprocs * ITER);
    long long *swaps = malloc(sizeof(long long) * nprocs);
    CHECK(MPI_Gather(fetched, ITER, MPI_LONG_LONG, all, ITER, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    CHECK(MPI_Gather(&swapped, 1, MPI_LONG_LONG, swaps, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        for (int r = 0; r < nprocs; r++)
            for (int k = 1; k < ITER; k++)
                if (all[r * ITER + k] <= all[r * ITER + k - 1])
                    rma_fail("MPI_Fetch_and_op %s: rank %d fetched %lld after %lld", dn, r,
                             all[r * ITER + k], all[r * ITER + k - 1]);
        qsort(all, nprocs * ITER, sizeof(long long), cmp_ll);
        for (int k = 0; k < nprocs * ITER; k++)
            if (all[k] != k)
                rma_fail("MPI_Fetch_and_op %s: the fetched values are not 0..%d once each: "
                         "sorted value %d is %lld",
                         dn, nprocs * ITER - 1, k, all[k]);
        lock_self(win, MPI_LOCK_SHARED);
        long long last = is64 ? (long long)((int64_t *)mem)[1] : ((int *)mem)[1];
        unlock_self(win);
        long long *got = malloc(sizeof(long long) * (nprocs + 1));
        long long *want = malloc(sizeof(long long) * (nprocs + 1));
        memcpy(got, swaps, sizeof(long long) * nprocs);
        got[nprocs] = last;
        want[0] = -7;
        for (int r = 0; r < nprocs; r++)
            want[r + 1] = 500 + r;
        qsort(got, nprocs + 1, sizeof(long long), cmp_ll);
        qsort(want, nprocs + 1, sizeof(long long), cmp_ll);
        for (int k = 0; k <= nprocs; k++)
            if (got[k] != want[k])
                rma_fail("MPI_Fetch_and_op(MPI_REPLACE) %s: fetched + final values are not the "
                         "initial + swapped-in ones: sorted %d = %lld, expected %lld",
                         dn, k, got[k], want[k]);
        free(got);
        free(want);
    }
    free(all);
    free(swaps);
    CHECK(MPI_Win_free(&win));
}

static void case_fop(void)
{
    fop_counter(0);
    fop_counter(1);
}

/* ---- cas ---- */

static void case_cas(void)
{
    enum { ITER = 20 };
    /* at rank 0: int 0 the lock word, int 1 the counter; int64 at [1] of a
     * second window for the 64-bit compare */
    int *mem;
    MPI_Win win;
    CHECK(win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    lock_self(win, MPI_LOCK_EXCLUSIVE);
    mem[0] = 0;
    mem[1] = 0;
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* A compare that fails changes nothing and returns the value. */
    CHECK(MPI_Win_lock_all(0, win));
    {
        int t = ring_next(), newv = 77, cmp = 12345, res = -1;
        check(MPI_Compare_and_swap(&newv, &cmp, &res, MPI_INT, t, 1, win), "MPI_Compare_and_swap");
        CHECK(MPI_Win_flush(t, win));
        if (res != 0)
            rma_fail("MPI_Compare_and_swap at rank %d returned %d, expected 0", t, res);
    }
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    lock_self(win, MPI_LOCK_SHARED);
    if (mem[1] != 0)
        rma_fail("a failed MPI_Compare_and_swap changed rank %d's int to %d", rank, mem[1]);
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    /* The spin lock: 0 free, r+1 held by rank r. */
    long spins = 0;
    CHECK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < ITER; k++) {
        int me = rank + 1, zero = 0, res;
        for (;;) {
            check(MPI_Compare_and_swap(&me, &zero, &res, MPI_INT, 0, 0, win),
                  "MPI_Compare_and_swap (acquire)");
            CHECK(MPI_Win_flush(0, win)); /* an MPI call: rank 0 progresses here too */
            if (res == 0)
                break;
            if (res < 1 || res > nprocs)
                rma_fail("the lock word holds %d, no rank's value", res);
            spins++;
        }
        int holder = -1, counter = -1;
        check(MPI_Fetch_and_op(NULL, &holder, MPI_INT, 0, 0, MPI_NO_OP, win),
              "MPI_Fetch_and_op(MPI_NO_OP)");
        CHECK(MPI_Get(&counter, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        CHECK(MPI_Win_flush(0, win));
        if (holder != me)
            rma_fail("rank %d holds the CAS lock, but the lock word reads %d", rank, holder);
        counter++;
        CHECK(MPI_Put(&counter, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        CHECK(MPI_Win_flush(0, win));
        check(MPI_Compare_and_swap(&zero, &me, &res, MPI_INT, 0, 0, win),
              "MPI_Compare_and_swap (release)");
        CHECK(MPI_Win_flush(0, win));
        if (res != me)
            rma_fail("releasing the CAS lock: it was held by %d, not by rank %d", res - 1, rank);
    }
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        lock_self(win, MPI_LOCK_SHARED);
        if (mem[1] != nprocs * ITER || mem[0] != 0)
            rma_fail("CAS lock: counter %d (expected %d), lock word %d (expected 0): mutual "
                     "exclusion failed",
                     mem[1], nprocs * ITER, mem[0]);
        unlock_self(win);
    }
    CHECK(MPI_Win_free(&win));
}

/* 64-bit compare and swap: values above 2^32, each rank to the next. */
static void case_cas64(void)
{
    int64_t *m64;
    MPI_Win win;
    CHECK(
        win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &m64, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    lock_self(win, MPI_LOCK_EXCLUSIVE);
    *m64 = ((int64_t)5 << 33) + rank;
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Win_lock_all(0, win));
    {
        int t = ring_next();
        int64_t cmp = ((int64_t)5 << 33) + t, newv = ((int64_t)9 << 34) + rank, res = 0;
        check(MPI_Compare_and_swap(&newv, &cmp, &res, MPI_INT64_T, t, 0, win),
              "MPI_Compare_and_swap(MPI_INT64_T)");
        CHECK(MPI_Win_flush(t, win));
        if (res != cmp)
            rma_fail("MPI_Compare_and_swap(MPI_INT64_T) at rank %d returned %lld, expected %lld", t,
                     (long long)res, (long long)cmp);
    }
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    lock_self(win, MPI_LOCK_SHARED);
    if (*m64 != ((int64_t)9 << 34) + ring_prev())
        rma_fail("MPI_Compare_and_swap(MPI_INT64_T): rank %d holds %lld, expected %lld", rank,
                 (long long)*m64, (long long)(((int64_t)9 << 34) + ring_prev()));
    unlock_self(win);
    CHECK(MPI_Win_free(&win));
}

/* ---- req ---- */

static void case_req(int all)
{
    /* Target window of ints: A (put, a slot of NA per origin), B (get
     * source), C (accumulated by all), D (get_accumulate, a slot per
     * origin). */
    int n = nprocs, A = 0, B = A + n * NA, C = B + NA, D = C + NA, W = D + n * NA;
    int *mem;
    MPI_Win win;
    CHECK(win_allocate(W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    lock_self(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < W; i++)
        mem[i] = -(rank * 10000 + i);
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    int *put = malloc(sizeof(int) * NA), *get = malloc(sizeof(int) * n * NA);
    int *acc = malloc(sizeof(int) * NA), *gacc = malloc(sizeof(int) * NA);
    int *res = malloc(sizeof(int) * n * NA);
    MPI_Request *rq = malloc(sizeof(MPI_Request) * 3 * n);
    for (int i = 0; i < n * NA; i++)
        get[i] = res[i] = 0x5A5A5A5A;
    CHECK(MPI_Win_lock_all(0, win));
    int nr = 0;
    for (int j = 1; j <= n; j++) {
        int t = (rank + j) % n;
        if (!all && t != ring_next())
            continue;
        MPI_Request r;
        for (int i = 0; i < NA; i++)
            put[i] = 1000 * rank + 10 * t + i;
        check(MPI_Rput(put, NA, MPI_INT, t, A + rank * NA, NA, MPI_INT, win, &r), "MPI_Rput");
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (r != MPI_REQUEST_NULL)
            rma_fail("MPI_Wait left the MPI_Rput request set");
        memset(put, 0xEE, sizeof(int) * NA); /* reusable once the Rput is complete */
        for (int i = 0; i < NA; i++) {
            acc[i] = rank + 1 + i;
            gacc[i] = 3 * (rank + 1);
        }
        check(MPI_Rget(get + t * NA, NA, MPI_INT, t, B, NA, MPI_INT, win, &rq[nr++]), "MPI_Rget");
        check(MPI_Raccumulate(acc, NA, MPI_INT, t, C, NA, MPI_INT, MPI_SUM, win, &rq[nr++]),
              "MPI_Raccumulate");
        check(MPI_Rget_accumulate(gacc, NA, MPI_INT, res + t * NA, NA, MPI_INT, t, D + rank * NA,
                                  NA, MPI_INT, MPI_SUM, win, &rq[nr++]),
              "MPI_Rget_accumulate");
        CHECK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
        nr = 0;
        /* complete locally: the results are there */
        for (int i = 0; i < NA; i++) {
            if (get[t * NA + i] != -(t * 10000 + B + i))
                rma_fail("MPI_Rget from rank %d: int %d = %d, expected %d", t, i, get[t * NA + i],
                         -(t * 10000 + B + i));
            if (res[t * NA + i] != -(t * 10000 + D + rank * NA + i))
                rma_fail("MPI_Rget_accumulate from rank %d: result int %d = %d, expected %d", t, i,
                         res[t * NA + i], -(t * 10000 + D + rank * NA + i));
        }
    }
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    lock_self(win, MPI_LOCK_SHARED);
    for (int i = 0; i < W; i++) {
        int e = -(rank * 10000 + i);
        if (i < B) {
            int o = (i - A) / NA;
            if (all || o == ring_prev())
                e = 1000 * o + 10 * rank + (i - A) % NA;
        } else if (i >= C && i < D) {
            for (int o = 0; o < n; o++)
                if (all || o == ring_prev())
                    e += o + 1 + (i - C);
        } else if (i >= D) {
            int o = (i - D) / NA;
            if (all || o == ring_prev())
                e += 3 * (o + 1);
        }
        if (mem[i] != e)
            rma_fail("request-based operations: target rank %d int %d = %d, expected %d "
                     "(A put %d.., B get %d.., C acc %d.., D get_acc %d..)",
                     rank, i, mem[i], e, A, B, C, D);
    }
    unlock_self(win);
    free(put);
    free(get);
    free(acc);
    free(gacc);
    free(res);
    free(rq);
    CHECK(MPI_Win_free(&win));
}

/* ---- large ---- */

static void case_large(void)
{
#if MPI_VERSION >= 4
    enum { N = 1001 };
    MPI_Count cn = N;
    int *mem;
    MPI_Win win;
    CHECK(MPI_Win_allocate_c((MPI_Aint)((3 * N + 2) * sizeof(int) + 15) / 16 * 16, sizeof(int),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    for (int i = 0; i < 3 * N + 2; i++)
        mem[i] = rank * 100000 + i;
    int *src = malloc(sizeof(int) * N), *dst = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) {
        src[i] = -(ring_next() * 100000 + i) - 1;
        dst[i] = 0;
    }
    int g = 0, gres = -1;
    CHECK(MPI_Win_fence(0, win));
    check(MPI_Put_c(src, cn, MPI_INT, ring_next(), (MPI_Aint)1, cn, MPI_INT, win), "MPI_Put_c");
    check(MPI_Get_c(dst, cn, MPI_INT, ring_next(), (MPI_Aint)(N + 1), cn, MPI_INT, win),
          "MPI_Get_c");
    check(MPI_Accumulate_c(src, cn, MPI_INT, ring_next(), (MPI_Aint)(2 * N + 1), cn, MPI_INT,
                           MPI_SUM, win),
          "MPI_Accumulate_c");
    CHECK(MPI_Win_fence(0, win));
    check(MPI_Get_accumulate_c(&g, 1, MPI_INT, &gres, 1, MPI_INT, ring_next(), (MPI_Aint)0, 1,
                               MPI_INT, MPI_NO_OP, win),
          "MPI_Get_accumulate_c");
    CHECK(MPI_Win_fence(0, win));
    int p = ring_prev(), nx = ring_next();
    for (int i = 0; i < 3 * N + 2; i++) {
        int e = rank * 100000 + i;
        if (i >= 1 && i <= N)
            e = -(rank * 100000 + (i - 1)) - 1;
        else if (i >= 2 * N + 1 && i <= 3 * N)
            e += -(rank * 100000 + (i - 2 * N - 1)) - 1;
        if (mem[i] != e)
            rma_fail("large-count operations from rank %d: target rank %d int %d = %d, "
                     "expected %d",
                     p, rank, i, mem[i], e);
    }
    for (int i = 0; i < N; i++)
        if (dst[i] != nx * 100000 + N + 1 + i)
            rma_fail("MPI_Get_c from rank %d: int %d = %d, expected %d", nx, i, dst[i],
                     nx * 100000 + N + 1 + i);
    if (gres != nx * 100000)
        rma_fail("MPI_Get_accumulate_c(MPI_NO_OP) from rank %d: %d, expected %d", nx, gres,
                 nx * 100000);
    free(src);
    free(dst);
    CHECK(MPI_Win_free(&win));
#else
    if (rank == 0)
        printf("rma_acc: large/ring skipped: mpi.h is MPI %d.%d (no large-count RMA)\n",
               MPI_VERSION, MPI_SUBVERSION);
#endif
}

/* ---- ordering ---- */

static void case_ordering(void)
{
    enum { K = 20 };
    int *mem;
    MPI_Win win;
    CHECK(win_allocate(nprocs * 2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                       &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    lock_self(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < 2 * nprocs; i++)
        mem[i] = -1;
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    int t = ring_next(), vals[K], got = -2, got2 = -2, dummy = 0;
    CHECK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < K; k++) {
        vals[k] = 1000 * (rank + 1) + k;
        check(MPI_Accumulate(&vals[k], 1, MPI_INT, t, 2 * rank, 1, MPI_INT, MPI_REPLACE, win),
              "MPI_Accumulate(MPI_REPLACE)");
    }
    /* read after write, same origin, same location, no flush in between */
    check(MPI_Get_accumulate(&dummy, 1, MPI_INT, &got, 1, MPI_INT, t, 2 * rank, 1, MPI_INT,
                             MPI_NO_OP, win),
          "MPI_Get_accumulate(MPI_NO_OP)");
    /* write after read: this REPLACE must not overtake the read above */
    int last = 4242;
    check(MPI_Accumulate(&last, 1, MPI_INT, t, 2 * rank, 1, MPI_INT, MPI_REPLACE, win),
          "MPI_Accumulate(MPI_REPLACE)");
    check(MPI_Fetch_and_op(NULL, &got2, MPI_INT, t, 2 * rank, MPI_NO_OP, win),
          "MPI_Fetch_and_op(MPI_NO_OP)");
    CHECK(MPI_Win_unlock_all(win));
    if (got != vals[K - 1])
        rma_fail("accumulate ordering: after %d MPI_REPLACEs to rank %d, MPI_NO_OP read %d, "
                 "expected the last one, %d",
                 K, t, got, vals[K - 1]);
    if (got2 != last)
        rma_fail("accumulate ordering: the next REPLACE then a read gave %d, expected %d", got2,
                 last);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Win_free(&win));
}

/* ---- location consistency ---- */

enum { LC_N = 16, LC_ROUNDS = 40 };

static void lc_expect(const int *got, const int *want, int round, const char *what)
{
    for (int i = 0; i < LC_N; i++)
        if (got[i] != want[i])
            rma_fail("location consistency round %d: %s element %d of rank %d gave %d, "
                     "expected %d (the operations before it, no flush between)",
                     round, what, i, ring_next(), got[i], want[i]);
}

/* One round at target t, no flush until the end: each read must see every
 * write this origin issued before it, and no write may overtake a read. */
static void lc_round(MPI_Win win, MPI_Datatype every_other, int t, int round)
{
    int put1[LC_N], ones[LC_N], twos[LC_N / 2], four = 4, put2[LC_N], zero = 0;
    int want[LC_N], seen[LC_N], seen_after[LC_N], fetched = -1, swapped = -1, swap_in = -7;
    for (int i = 0; i < LC_N; i++) {
        put1[i] = 1000 * round + i;
        put2[i] = -1000 * round - i;
        ones[i] = 1;
        want[i] = put1[i] + 1 + (i % 2 == 0 ? 2 : 0) + 4;
    }
    for (int i = 0; i < LC_N / 2; i++)
        twos[i] = 2;
    check(MPI_Put(put1, LC_N, MPI_INT, t, 0, LC_N, MPI_INT, win), "MPI_Put");
    check(MPI_Accumulate(ones, LC_N, MPI_INT, t, 0, LC_N, MPI_INT, MPI_SUM, win),
          "MPI_Accumulate of 16 ints");
    check(MPI_Accumulate(twos, LC_N / 2, MPI_INT, t, 0, 1, every_other, MPI_SUM, win),
          "MPI_Accumulate of a vector");
    for (int i = 0; i < LC_N; i++) /* UCX's atomics where a window has them */
        check(MPI_Accumulate(&four, 1, MPI_INT, t, i, 1, MPI_INT, MPI_SUM, win),
              "MPI_Accumulate of one int");
    check(MPI_Get(seen, LC_N, MPI_INT, t, 0, LC_N, MPI_INT, win), "MPI_Get");
    check(MPI_Put(put2, LC_N, MPI_INT, t, 0, LC_N, MPI_INT, win), "MPI_Put");
    check(MPI_Fetch_and_op(&four, &fetched, MPI_INT, t, 0, MPI_SUM, win), "MPI_Fetch_and_op");
    check(MPI_Compare_and_swap(&swap_in, &put2[1], &swapped, MPI_INT, t, 1, win),
          "MPI_Compare_and_swap");
    check(MPI_Get_accumulate(&zero, 0, MPI_INT, seen_after, LC_N, MPI_INT, t, 0, LC_N, MPI_INT,
                             MPI_NO_OP, win),
          "MPI_Get_accumulate(MPI_NO_OP)");
    CHECK(MPI_Win_flush(t, win));
    lc_expect(seen, want, round, "MPI_Get after a put and accumulates:");
    if (fetched != put2[0])
        rma_fail("location consistency round %d: MPI_Fetch_and_op after a put fetched %d, "
                 "expected %d", round, fetched, put2[0]);
    if (swapped != put2[1])
        rma_fail("location consistency round %d: MPI_Compare_and_swap after a put fetched %d, "
                 "expected %d", round, swapped, put2[1]);
    put2[0] += 4;
    put2[1] = swap_in;
    lc_expect(seen_after, put2, round, "MPI_Get_accumulate after a put and atomics:");
}

static void case_consistency(void)
{
    int *mem;
    MPI_Win win;
    MPI_Datatype every_other;
    CHECK(MPI_Type_vector(LC_N / 2, 1, 2, MPI_INT, &every_other));
    CHECK(MPI_Type_commit(&every_other));
    CHECK(win_allocate(LC_N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                       &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK(MPI_Win_lock_all(0, win));
    for (int round = 0; round < LC_ROUNDS; round++)
        lc_round(win, every_other, ring_next(), round);
    CHECK(MPI_Win_unlock_all(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Win_free(&win));
    CHECK(MPI_Type_free(&every_other));
}

/* ---- random ---- */

static unsigned long long rng_state;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

#define RM 37 /* elements per region */

struct rop {
    int origin, target, region, index, count, how, flush;
    long long val[4];
};

static void case_random(void)
{
    enum { ROUNDS = 3, K = 60 };
    /* regions, element type and op: 0 int64 SUM, 1 int SUM, 2 unsigned BXOR;
     * window in bytes: 37 int64, then 37 int, then 37 unsigned; disp_unit 1 */
    const MPI_Aint roff[3] = {0, RM * 8, RM * 8 + RM * 4};
    const MPI_Aint wbytes = RM * 8 + RM * 4 + RM * 4;
    unsigned char *mem;
    MPI_Win win;
    CHECK(win_allocate(wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    int64_t(*model64)[RM] = malloc(sizeof(int64_t) * RM * nprocs);
    int(*modeli)[RM] = malloc(sizeof(int) * RM * nprocs);
    unsigned(*modelu)[RM] = malloc(sizeof(unsigned) * RM * nprocs);
    for (int t = 0; t < nprocs; t++)
        for (int i = 0; i < RM; i++) {
            model64[t][i] = ((int64_t)t << 36) + i;
            modeli[t][i] = t * 1000 + i;
            modelu[t][i] = 0x9E3779B9u * (unsigned)(t + 1) + (unsigned)i;
        }
    lock_self(win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < RM; i++) {
        ((int64_t *)(mem + roff[0]))[i] = model64[rank][i];
        ((int *)(mem + roff[1]))[i] = modeli[rank][i];
        ((unsigned *)(mem + roff[2]))[i] = modelu[rank][i];
    }
    unlock_self(win);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    struct rop *ops = malloc(sizeof(struct rop) * K * nprocs);
    rng_state = 20240607;
    for (int round = 0; round < ROUNDS; round++) {
        /* the same list on every rank */
        for (int k = 0; k < K * nprocs; k++) {
            struct rop *o = &ops[k];
            o->origin = k % nprocs;
            o->target = (int)rnd((unsigned)nprocs);
            o->region = (int)rnd(3);
            o->count = 1 + (int)rnd(4);
            o->index = (int)rnd(RM - o->count + 1);
            o->how = (int)rnd(3);
            o->flush = rnd(4) == 0;
            for (int c = 0; c < o->count; c++) {
                long long v = (long long)rnd(1u << 30) - (1 << 29);
                /* int sums stay far from overflow: 20 bits per value */
                o->val[c] = o->region == 0 ? v * 4096 + rnd(4096) : o->region == 1 ? v >> 10 : v;
            }
            for (int c = 0; c < o->count; c++) {
                int i = o->index + c;
                if (o->region == 0)
                    model64[o->target][i] += o->val[c];
                else if (o->region == 1)
                    modeli[o->target][i] =
                        (int)((unsigned)modeli[o->target][i] + (unsigned)o->val[c]);
                else
                    modelu[o->target][i] ^= (unsigned)o->val[c];
            }
        }
        /* issue mine */
        if (round == 0)
            CHECK(MPI_Win_fence(0, win));
        else if (round == 1)
            CHECK(MPI_Win_lock_all(0, win));
        for (int pass = 0; pass < (round == 2 ? nprocs : 1); pass++) {
            /* round 2: one lock per target, targets in turn */
            int only = round == 2 ? (rank + pass) % nprocs : -1;
            if (round == 2)
                CHECK(MPI_Win_lock(MPI_LOCK_SHARED, only, 0, win));
            MPI_Request rq[K];
            int nr = 0;
            union {
                int64_t l[4];
                int i[4];
                unsigned u[4];
            } bufs[K], results[K];
            int nb = 0;
            for (int k = rank; k < K * nprocs; k += nprocs) {
                struct rop *o = &ops[k];
                if (only >= 0 && o->target != only)
                    continue;
                MPI_Datatype dt = o->region == 0   ? MPI_INT64_T
                                  : o->region == 1 ? MPI_INT
                                                   : MPI_UNSIGNED;
                MPI_Op op = o->region == 2 ? MPI_BXOR : MPI_SUM;
                MPI_Aint esz = o->region == 0 ? 8 : 4;
                MPI_Aint disp = roff[o->region] + o->index * esz;
                void *b = &bufs[nb], *r = &results[nb];
                for (int c = 0; c < o->count; c++) {
                    if (o->region == 0)
                        bufs[nb].l[c] = o->val[c];
                    else if (o->region == 1)
                        bufs[nb].i[c] = (int)o->val[c];
                    else
                        bufs[nb].u[c] = (unsigned)o->val[c];
                }
                nb++;
                int how = round == 0 && o->how == 2 ? 0 : o->how; /* no Raccumulate under fence */
                if (how == 0)
                    check(MPI_Accumulate(b, o->count, dt, o->target, disp, o->count, dt, op, win),
                          "MPI_Accumulate");
                else if (how == 1)
                    check(MPI_Get_accumulate(b, o->count, dt, r, o->count, dt, o->target, disp,
                                             o->count, dt, op, win),
                          "MPI_Get_accumulate");
                else
                    check(MPI_Raccumulate(b, o->count, dt, o->target, disp, o->count, dt, op, win,
                                          &rq[nr++]),
                          "MPI_Raccumulate");
                if (round > 0 && o->flush)
                    CHECK(MPI_Win_flush(o->target, win));
            }
            CHECK(MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE));
            if (round == 2)
                CHECK(MPI_Win_unlock(only, win));
            else if (round == 1)
                CHECK(MPI_Win_unlock_all(win));
            else
                CHECK(MPI_Win_fence(0, win));
        }
        /* compare with the model */
        if (round > 0) {
            CHECK(MPI_Barrier(MPI_COMM_WORLD));
            lock_self(win, MPI_LOCK_SHARED);
        }
        for (int i = 0; i < RM; i++) {
            int64_t g64 = ((int64_t *)(mem + roff[0]))[i];
            int gi = ((int *)(mem + roff[1]))[i];
            unsigned gu = ((unsigned *)(mem + roff[2]))[i];
            if (g64 != model64[rank][i])
                rma_fail("random round %d (%s): rank %d int64 SUM element %d = %lld, model %lld",
                         round,
                         round == 0   ? "fence"
                         : round == 1 ? "lock_all"
                                      : "lock",
                         rank, i, (long long)g64, (long long)model64[rank][i]);
            if (gi != modeli[rank][i])
                rma_fail("random round %d: rank %d int SUM element %d = %d, model %d", round, rank,
                         i, gi, modeli[rank][i]);
            if (gu != modelu[rank][i])
                rma_fail("random round %d: rank %d unsigned BXOR element %d = %u, model %u", round,
                         rank, i, gu, modelu[rank][i]);
        }
        if (round > 0)
            unlock_self(win);
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(ops);
    free(model64);
    free(modeli);
    free(modelu);
    CHECK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, "rma_acc");
    if (selected("ops/ring"))
        case_ops(0);
    if (selected("ops/all"))
        case_ops(1);
    if (selected("derived/ring"))
        case_derived();
    if (selected("getacc/all"))
        case_getacc();
    if (selected("fop/all"))
        case_fop();
    if (selected("cas/all"))
        case_cas();
    if (selected("cas64/ring"))
        case_cas64();
    if (selected("req/ring"))
        case_req(0);
    if (selected("req/all"))
        case_req(1);
    if (selected("large/ring"))
        case_large();
    if (selected("ordering/ring"))
        case_ordering();
    if (selected("consistency/ring"))
        case_consistency();
    if (selected("random/all"))
        case_random();
    rma_finish();
    return 0;
}
