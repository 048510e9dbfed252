/* dt_api: the datatype chapter of the MPI API, on small cases whose answers
 * are worked out by hand in the comments: every constructor's size, bounds,
 * envelope and contents; subarray and darray; Pack/Unpack; external32
 * bytes; MPI_Get_elements; Type_match_size and the f90 types; names and
 * handle conversion; error classes under MPI_ERRORS_RETURN; and a loop of
 * create/commit/free that must not grow memory.
 *
 * Plain MPI: it runs as a singleton or on any number of ranks (each rank
 * checks the same things). */
#include <malloc.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void fail(int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "dt_api: line %d: ", line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    failures++;
}

#define EXPECT(cond, ...)                                                                       \
    do {                                                                                        \
        if (!(cond))                                                                            \
            fail(__LINE__, __VA_ARGS__);                                                        \
    } while (0)
#define OK(call) EXPECT((call) == MPI_SUCCESS, "%s failed", #call)
#define ERROR_CLASS(call, cls)                                                                  \
    do {                                                                                        \
        int rc_ = (call), class_ = -1;                                                          \
        MPI_Error_class(rc_, &class_);                                                          \
        EXPECT(class_ == (cls), "%s gave class %d, expected %s (%d)", #call, class_, #cls,      \
               (cls));                                                                          \
    } while (0)

/* size, lb, extent, true lb, true extent of a type, as expected. */
static void expect_shape(int line, MPI_Datatype t, MPI_Count size, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint true_lb, MPI_Aint true_extent)
{
    int isize;
    MPI_Count csize, clb, cextent;
    MPI_Aint alb, aextent, tlb, textent;
    MPI_Type_size(t, &isize);
    MPI_Type_size_c(t, &csize);
    MPI_Type_get_extent(t, &alb, &aextent);
    MPI_Type_get_extent_x(t, &clb, &cextent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    if (isize != size || csize != size || alb != lb || aextent != extent || clb != lb ||
        cextent != extent || tlb != true_lb || textent != true_extent)
        fail(line, "shape: size %d/%lld lb %ld extent %ld true [%ld +%ld]; expected %lld, %ld, %ld, [%ld +%ld]",
             isize, (long long)csize, (long)alb, (long)aextent, (long)tlb, (long)textent,
             (long long)size, (long)lb, (long)extent, (long)true_lb, (long)true_extent);
}
#define SHAPE(t, ...) expect_shape(__LINE__, t, __VA_ARGS__)

/* The envelope, and the integers of the contents. */
static void expect_contents(int line, MPI_Datatype t, int combiner, int ni, const int *ints,
                            int na, const MPI_Aint *addrs, int nd)
{
    int gi, ga, gd, gc;
    MPI_Type_get_envelope(t, &gi, &ga, &gd, &gc);
    if (gc != combiner || gi != ni || ga != na || gd != nd) {
        fail(line, "envelope: combiner %d ints %d addrs %d types %d", gc, gi, ga, gd);
        return;
    }
    int got_ints[32];
    MPI_Aint got_addrs[32];
    MPI_Datatype types[8];
    OK(MPI_Type_get_contents(t, 32, 32, 8, got_ints, got_addrs, types));
    for (int i = 0; i < ni; i++)
        if (got_ints[i] != ints[i])
            fail(line, "contents: integer %d is %d, expected %d", i, got_ints[i], ints[i]);
    for (int i = 0; i < na; i++)
        if (got_addrs[i] != addrs[i])
            fail(line, "contents: address %d is %ld, expected %ld", i, (long)got_addrs[i],
                 (long)addrs[i]);
    for (int i = 0; i < nd; i++) {
        int a, b, c, named;
        MPI_Type_get_envelope(types[i], &a, &b, &c, &named);
        if (named != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]); /* a derived type returned is the caller's to free */
    }
}
#define CONTENTS(t, comb, ni, ints, na, addrs, nd)                                              \
    expect_contents(__LINE__, t, comb, ni, ints, na, addrs, nd)

/* Packs one element of t from buf and compares the ints packed. */
static void expect_packed_ints(int line, MPI_Datatype t, const void *buf, const int *want, int n)
{
    int packed[64], position = 0;
    OK(MPI_Pack(buf, 1, t, packed, sizeof(packed), &position, MPI_COMM_WORLD));
    if (position != n * (int)sizeof(int)) {
        fail(line, "packed %d bytes, expected %d", position, n * (int)sizeof(int));
        return;
    }
    for (int i = 0; i < n; i++)
        if (packed[i] != want[i])
            fail(line, "packed int %d is %d, expected %d", i, packed[i], want[i]);
}
#define PACKED_INTS(t, buf, ...)                                                                \
    do {                                                                                        \
        const int want_[] = {__VA_ARGS__};                                                      \
        expect_packed_ints(__LINE__, t, buf, want_, (int)(sizeof(want_) / sizeof(int)));        \
    } while (0)

static int table[64]; /* table[i] == i: packed ints name the elements taken */

static void test_constructors(void)
{
    MPI_Datatype t, u;

    /* contiguous(4, DOUBLE_INT): 4 x 12 bytes of data, 16 apart; the last
     * element's data ends at 48 + 12 */
    OK(MPI_Type_contiguous(4, MPI_DOUBLE_INT, &t));
    SHAPE(t, 48, 0, 64, 0, 60);
    CONTENTS(t, MPI_COMBINER_CONTIGUOUS, 1, ((int[]){4}), 0, NULL, 1);
    MPI_Type_free(&t);
    EXPECT(t == MPI_DATATYPE_NULL, "Type_free did not reset the handle");

    /* vector(3, 2, 5, INT): blocks at ints 0, 5, 10: extent (10 + 2) * 4 */
    OK(MPI_Type_vector(3, 2, 5, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    SHAPE(t, 24, 0, 48, 0, 48);
    CONTENTS(t, MPI_COMBINER_VECTOR, 3, ((int[]){3, 2, 5}), 0, NULL, 1);
    PACKED_INTS(t, table, 0, 1, 5, 6, 10, 11);

    /* dup keeps everything but the envelope, and the commit */
    OK(MPI_Type_dup(t, &u));
    SHAPE(u, 24, 0, 48, 0, 48);
    CONTENTS(u, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1);
    PACKED_INTS(u, table, 0, 1, 5, 6, 10, 11);
    MPI_Type_free(&u);
    MPI_Type_free(&t);

    /* hvector(2, 1, -16, DOUBLE): doubles at 0 and -16: lb -16, ub 8 */
    OK(MPI_Type_create_hvector(2, 1, -16, MPI_DOUBLE, &t));
    SHAPE(t, 16, -16, 24, -16, 24);
    CONTENTS(t, MPI_COMBINER_HVECTOR, 2, ((int[]){2, 1}), 1, ((MPI_Aint[]){-16}), 1);
    MPI_Type_free(&t);

    /* indexed({1, 2}, {4, 0}, INT): int 4, then ints 0-1 */
    OK(MPI_Type_indexed(2, (int[]){1, 2}, (int[]){4, 0}, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    SHAPE(t, 12, 0, 20, 0, 20);
    CONTENTS(t, MPI_COMBINER_INDEXED, 5, ((int[]){2, 1, 2, 4, 0}), 0, NULL, 1);
    PACKED_INTS(t, table, 4, 0, 1);
    MPI_Type_free(&t);

    /* hindexed({1, 1}, {8, -4}, INT): lb -4, ub 12 */
    OK(MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){8, -4}, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    SHAPE(t, 8, -4, 16, -4, 16);
    CONTENTS(t, MPI_COMBINER_HINDEXED, 3, ((int[]){2, 1, 1}), 2, ((MPI_Aint[]){8, -4}), 1);
    PACKED_INTS(t, table + 1, 3, 0);
    MPI_Type_free(&t);

    /* indexed_block(3, 2, {0, 3, 7}, SHORT): ub (7 + 2) * 2 */
    OK(MPI_Type_create_indexed_block(3, 2, (int[]){0, 3, 7}, MPI_SHORT, &t));
    SHAPE(t, 12, 0, 18, 0, 18);
    CONTENTS(t, MPI_COMBINER_INDEXED_BLOCK, 5, ((int[]){3, 2, 0, 3, 7}), 0, NULL, 1);
    MPI_Type_free(&t);

    /* hindexed_block(2, 1, {0, 100}, CHAR) */
    OK(MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){0, 100}, MPI_CHAR, &t));
    SHAPE(t, 2, 0, 101, 0, 101);
    CONTENTS(t, MPI_COMBINER_HINDEXED_BLOCK, 2, ((int[]){2, 1}), 2, ((MPI_Aint[]){0, 100}), 1);
    MPI_Type_free(&t);

    /* struct {double at 0, char at 8}: 9 bytes, extent padded to 16 as C pads */
    OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                              (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR}, &t));
    SHAPE(t, 9, 0, 16, 0, 9);
    CONTENTS(t, MPI_COMBINER_STRUCT, 3, ((int[]){2, 1, 1}), 2, ((MPI_Aint[]){0, 8}), 2);

    /* resized(struct, -2, 10): the data stays; only the bounds change */
    OK(MPI_Type_create_resized(t, -2, 10, &u));
    SHAPE(u, 9, -2, 10, 0, 9);
    CONTENTS(u, MPI_COMBINER_RESIZED, 0, NULL, 2, ((MPI_Aint[]){-2, 10}), 1);
    MPI_Type_free(&u);
    MPI_Type_free(&t);

    /* a large-count constructor reports its arguments as large counts only */
    OK(MPI_Type_vector_c(3, 2, 5, MPI_INT, &t));
    MPI_Count ni, na, nc, nd;
    int combiner;
    OK(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner));
    EXPECT(combiner == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nd == 1,
           "vector_c envelope %d %lld %lld %lld %lld", combiner, (long long)ni, (long long)na,
           (long long)nc, (long long)nd);
    MPI_Count counts[3];
    MPI_Datatype old;
    OK(MPI_Type_get_contents_c(t, 0, 0, 3, 1, NULL, NULL, counts, &old));
    EXPECT(counts[0] == 3 && counts[1] == 2 && counts[2] == 5 && old == MPI_INT,
           "vector_c contents");
    MPI_Type_free(&t);

    /* predefined types are named */
    int i1, i2, i3;
    OK(MPI_Type_get_envelope(MPI_INT, &i1, &i2, &i3, &combiner));
    EXPECT(combiner == MPI_COMBINER_NAMED && i1 == 0 && i2 == 0 && i3 == 0, "MPI_INT envelope");
    SHAPE(MPI_SHORT_INT, sizeof(short) + sizeof(int), 0, 8, 0, 8);
}

/* A 4 x 6 int array, table[i][j] = 6 * i + j (C) or table[i + 4 j] (Fortran). */
static void test_subarray_darray(void)
{
    MPI_Datatype t;
    /* rows 1-2, columns 2-4 */
    OK(MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                                MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    SHAPE(t, 24, 0, 96, 32, 36); /* data from element 8 to element 16 */
    PACKED_INTS(t, table, 8, 9, 10, 14, 15, 16);
    CONTENTS(t, MPI_COMBINER_SUBARRAY, 8, ((int[]){2, 4, 6, 2, 3, 1, 2, MPI_ORDER_C}), 0, NULL, 1);
    MPI_Type_free(&t);
    OK(MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN,
                                MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    PACKED_INTS(t, table, 9, 10, 13, 14, 17, 18);
    MPI_Type_free(&t);

    /* 2 x 2 processes; rows BLOCK, columns CYCLIC(2). Rank 1 is at (0, 1):
     * rows 0-1, columns 2-3 (its next block, 6-7, is past the end). */
    int gsizes[] = {4, 6}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[] = {2, 2};
    OK(MPI_Type_create_darray(4, 1, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    SHAPE(t, 16, 0, 96, 8, 32);
    PACKED_INTS(t, table, 2, 3, 8, 9);
    CONTENTS(t, MPI_COMBINER_DARRAY, 12,
             ((int[]){4, 1, 2, 4, 6, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                      MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_C}),
             0, NULL, 1);
    MPI_Type_free(&t);
    /* rank 2 is at (1, 0): rows 2-3, columns 0-1 and 4-5 */
    OK(MPI_Type_create_darray(4, 2, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    PACKED_INTS(t, table, 12, 13, 16, 17, 18, 19, 22, 23);
    MPI_Type_free(&t);
    /* Fortran order, rank 1: i in 0-1, j in 2-3, element i + 4 j, i fastest */
    OK(MPI_Type_create_darray(4, 1, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_FORTRAN, MPI_INT,
                              &t));
    OK(MPI_Type_commit(&t));
    PACKED_INTS(t, table, 8, 9, 12, 13);
    MPI_Type_free(&t);
    /* the standard's CYCLIC default: 1-element blocks; 7 elements over 3
     * processes, rank 0 has 0, 3 and 6 */
    OK(MPI_Type_create_darray(3, 0, 1, (int[]){7}, (int[]){MPI_DISTRIBUTE_CYCLIC},
                              (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C, MPI_INT,
                              &t));
    OK(MPI_Type_commit(&t));
    SHAPE(t, 12, 0, 28, 0, 28);
    PACKED_INTS(t, table, 0, 3, 6);
    MPI_Type_free(&t);
}

static void test_pack(void)
{
    MPI_Datatype t;
    OK(MPI_Type_vector(4, 1, 3, MPI_INT, &t));
    OK(MPI_Type_commit(&t));
    int packed[8], size, position = 0;
    OK(MPI_Pack_size(2, t, MPI_COMM_WORLD, &size));
    EXPECT(size == 32, "Pack_size %d", size);
    /* two calls append at position */
    OK(MPI_Pack(table, 1, t, packed, sizeof(packed), &position, MPI_COMM_WORLD));
    OK(MPI_Pack(table + 1, 1, t, packed, sizeof(packed), &position, MPI_COMM_WORLD));
    EXPECT(position == 32, "position %d after two packs", position);
    int out[12];
    for (int i = 0; i < 12; i++)
        out[i] = -1;
    position = 0;
    OK(MPI_Unpack(packed, sizeof(packed), &position, out, 1, t, MPI_COMM_WORLD));
    EXPECT(position == 16, "position %d after unpack", position);
    for (int i = 0; i < 12; i++)
        EXPECT(out[i] == (i % 3 == 0 ? i : -1), "unpacked out[%d] = %d", i, out[i]);
    MPI_Type_free(&t);

    /* absolute addresses from MPI_BOTTOM */
    int a = 11;
    double b = 2.5;
    MPI_Aint where[2];
    MPI_Get_address(&a, &where[0]);
    MPI_Get_address(&b, &where[1]);
    EXPECT(MPI_Aint_diff(where[1], where[0]) == (char *)&b - (char *)&a, "Aint_diff");
    EXPECT(MPI_Aint_add(where[0], 4) == where[0] + 4, "Aint_add");
    OK(MPI_Type_create_struct(2, (int[]){1, 1}, where, (MPI_Datatype[]){MPI_INT, MPI_DOUBLE}, &t));
    OK(MPI_Type_commit(&t));
    char bytes[12];
    position = 0;
    OK(MPI_Pack(MPI_BOTTOM, 1, t, bytes, sizeof(bytes), &position, MPI_COMM_WORLD));
    int a2;
    double b2;
    memcpy(&a2, bytes, 4);
    memcpy(&b2, bytes + 4, 8);
    EXPECT(position == 12 && a2 == 11 && b2 == 2.5, "pack from MPI_BOTTOM");
    MPI_Type_free(&t);
}

static void test_external32(void)
{
    unsigned char out[64];
    MPI_Aint position = 0, size;
    int ints[] = {1, -2};
    OK(MPI_Pack_external("external32", ints, 2, MPI_INT, out, sizeof(out), &position));
    static const unsigned char want_ints[] = {0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe};
    EXPECT(position == 8 && memcmp(out, want_ints, 8) == 0, "external32 ints");

    /* a C long is 4 bytes in external32 */
    long longs[] = {5, -3};
    position = 0;
    OK(MPI_Pack_external_size("external32", 2, MPI_LONG, &size));
    EXPECT(size == 8, "external32 size of 2 longs is %ld", (long)size);
    OK(MPI_Pack_external("external32", longs, 2, MPI_LONG, out, sizeof(out), &position));
    static const unsigned char want_longs[] = {0, 0, 0, 5, 0xff, 0xff, 0xff, 0xfd};
    EXPECT(position == 8 && memcmp(out, want_longs, 8) == 0, "external32 longs");
    long back[2] = {0, 0};
    position = 0;
    OK(MPI_Unpack_external("external32", out, 8, &position, back, 2, MPI_LONG));
    EXPECT(back[0] == 5 && back[1] == -3, "external32 longs back: %ld %ld", back[0], back[1]);

    /* 1.0: sign 0, exponent 0x3ff (double) and 0x3fff (binary128 long double) */
    double one = 1.0;
    long double lone = 1.0L;
    position = 0;
    OK(MPI_Pack_external("external32", &one, 1, MPI_DOUBLE, out, sizeof(out), &position));
    OK(MPI_Pack_external("external32", &lone, 1, MPI_LONG_DOUBLE, out, sizeof(out), &position));
    static const unsigned char want_one[24] = {0x3f, 0xf0, [8] = 0x3f, 0xff};
    EXPECT(position == 24 && memcmp(out, want_one, 24) == 0, "external32 1.0");
    long double lback = 0;
    position = 8;
    OK(MPI_Unpack_external("external32", out, 24, &position, &lback, 1, MPI_LONG_DOUBLE));
    EXPECT(lback == 1.0L, "external32 long double back");

    /* a struct with a hole: {short 0x0102 at 0, int 7 at 4} -> 6 bytes */
    struct { short s; int i; } pair = {0x0102, 7}, pair_back = {0, 0};
    position = 0;
    OK(MPI_Pack_external("external32", &pair, 1, MPI_SHORT_INT, out, sizeof(out), &position));
    static const unsigned char want_pair[] = {1, 2, 0, 0, 0, 7};
    EXPECT(position == 6 && memcmp(out, want_pair, 6) == 0, "external32 SHORT_INT");
    position = 0;
    OK(MPI_Unpack_external("external32", out, 6, &position, &pair_back, 1, MPI_SHORT_INT));
    EXPECT(pair_back.s == 0x0102 && pair_back.i == 7, "external32 SHORT_INT back");

    position = 0;
    ERROR_CLASS(MPI_Pack_external("native", ints, 1, MPI_INT, out, sizeof(out), &position),
                MPI_ERR_ARG);
    ERROR_CLASS(MPI_Pack_external("external32", ints, 2, MPI_INT, out, 7, &position),
                MPI_ERR_TRUNCATE);
}

static void test_elements(void)
{
    MPI_Datatype t;
    MPI_Status status;
    int n;
    /* {int, double, int}: 16 bytes of data */
    OK(MPI_Type_create_struct(3, (int[]){1, 1, 1}, (MPI_Aint[]){0, 8, 16},
                              (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_INT}, &t));
    OK(MPI_Type_commit(&t));
    struct { int bytes, elements; } cases[] = {{0, 0}, {4, 1}, {6, MPI_UNDEFINED}, {12, 2},
                                              {16, 3}, {20, 4}, {28, 5}, {30, MPI_UNDEFINED}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        OK(MPI_Status_set_elements(&status, MPI_BYTE, cases[i].bytes));
        OK(MPI_Get_elements(&status, t, &n));
        EXPECT(n == cases[i].elements, "%d bytes: %d elements, expected %d", cases[i].bytes, n,
               cases[i].elements);
    }
    MPI_Type_free(&t);
    MPI_Count c;
    OK(MPI_Status_set_elements_x(&status, MPI_DOUBLE_INT, 3));
    OK(MPI_Get_elements_x(&status, MPI_DOUBLE_INT, &c));
    EXPECT(c == 6, "3 DOUBLE_INT are %lld basic elements", (long long)c);
    OK(MPI_Get_elements_c(&status, MPI_BYTE, &c));
    EXPECT(c == 36, "3 DOUBLE_INT are %lld bytes", (long long)c);
}

/* An f90 type of the kind with that size (dt_f90 tests the rest). */
static int f90_kind_is(MPI_Datatype t, int combiner, int size)
{
    int ni, na, nd, c, s;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &c);
    MPI_Type_size(t, &s);
    return c == combiner && s == size;
}

static void test_predefined_lookups(void)
{
    MPI_Datatype t;
    OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    EXPECT(t == MPI_REAL8, "match_size real 8");
    OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
    EXPECT(t == MPI_INTEGER4, "match_size integer 4");
    OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t));
    EXPECT(t == MPI_COMPLEX16, "match_size complex 16");
    ERROR_CLASS(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_match_size(12345, 4, &t), MPI_ERR_ARG);

    OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
    EXPECT(f90_kind_is(t, MPI_COMBINER_F90_REAL, 4), "f90 real p 6");
    OK(MPI_Type_create_f90_real(15, 300, &t));
    EXPECT(f90_kind_is(t, MPI_COMBINER_F90_REAL, 8), "f90 real p 15 r 300");
    OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 400, &t));
    EXPECT(f90_kind_is(t, MPI_COMBINER_F90_REAL, 16), "f90 real r 400");
    ERROR_CLASS(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    OK(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t));
    EXPECT(f90_kind_is(t, MPI_COMBINER_F90_COMPLEX, 16), "f90 complex p 15");
    OK(MPI_Type_create_f90_integer(9, &t));
    EXPECT(f90_kind_is(t, MPI_COMBINER_F90_INTEGER, 4), "f90 integer r 9");
    OK(MPI_Type_create_f90_integer(10, &t));
    EXPECT(f90_kind_is(t, MPI_COMBINER_F90_INTEGER, 8), "f90 integer r 10");

    OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t));
    EXPECT(t == MPI_DOUBLE_INT, "value_index double int");
    OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_DOUBLE, &t));
    EXPECT(t == MPI_DATATYPE_NULL, "value_index double double");
}

static void test_names_and_ints(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int length;
    OK(MPI_Type_get_name(MPI_INT, name, &length));
    EXPECT(strcmp(name, "MPI_INT") == 0 && length == 7, "name of MPI_INT: %s", name);
    /* handles with two names give the older one, as MPICH and Open MPI do */
    OK(MPI_Type_get_name(MPI_LONG_LONG, name, &length));
    EXPECT(strcmp(name, "MPI_LONG_LONG_INT") == 0, "name of MPI_LONG_LONG: %s", name);
    OK(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &length));
    EXPECT(strcmp(name, "MPI_C_COMPLEX") == 0, "name of MPI_C_FLOAT_COMPLEX: %s", name);
    MPI_Datatype t, back;
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    OK(MPI_Type_get_name(t, name, &length));
    EXPECT(length == 0 && name[0] == '\0', "a new type's name is \"%s\"", name);
    OK(MPI_Type_set_name(t, "pair of ints"));
    OK(MPI_Type_get_name(t, name, &length));
    EXPECT(strcmp(name, "pair of ints") == 0, "name after set: %s", name);

    EXPECT(MPI_Type_toint(MPI_INT) == (int)(MPI_Aint)MPI_INT, "toint of MPI_INT");
    EXPECT(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE, "fromint of MPI_DOUBLE");
    int value = MPI_Type_toint(t);
    EXPECT(MPI_Type_fromint(value) == t, "derived type through toint/fromint");
    MPI_Type_free(&t);
    back = MPI_Type_fromint(value);
    EXPECT(back == MPI_DATATYPE_NULL, "fromint of a freed type");
}

static void test_errors(void)
{
    MPI_Datatype t, u;
    int packed[4], position;
    ERROR_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    ERROR_CLASS(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    ERROR_CLASS(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_indexed(2, (int[]){1, -1}, (int[]){0, 4}, MPI_INT, &t), MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_create_struct(1, (int[]){1}, (MPI_Aint[]){0},
                                       (MPI_Datatype[]){MPI_DATATYPE_NULL}, &t),
                MPI_ERR_TYPE);
    ERROR_CLASS(MPI_Type_create_subarray(1, (int[]){4}, (int[]){3}, (int[]){2}, MPI_ORDER_C,
                                         MPI_INT, &t),
                MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_create_subarray(1, (int[]){4}, (int[]){3}, (int[]){0}, 5, MPI_INT, &t),
                MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_create_darray(4, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                       (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){3}, MPI_ORDER_C,
                                       MPI_INT, &t),
                MPI_ERR_ARG);
    ERROR_CLASS(MPI_Type_create_darray(2, 0, 1, (int[]){8}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                       (int[]){3}, (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG); /* 2 blocks of 3 cannot hold 8 */
    t = MPI_INT;
    ERROR_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
    ERROR_CLASS(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
    int size;
    ERROR_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &size), MPI_ERR_TYPE);

    /* an uncommitted type moves no data */
    OK(MPI_Type_contiguous(2, MPI_INT, &t));
    position = 0;
    ERROR_CLASS(MPI_Pack(table, 1, t, packed, sizeof(packed), &position, MPI_COMM_WORLD),
                MPI_ERR_TYPE);
    OK(MPI_Type_commit(&t));
    position = 12;
    ERROR_CLASS(MPI_Pack(table, 1, t, packed, sizeof(packed), &position, MPI_COMM_WORLD),
                MPI_ERR_TRUNCATE);
    position = 20;
    ERROR_CLASS(MPI_Pack(table, 0, t, packed, sizeof(packed), &position, MPI_COMM_WORLD),
                MPI_ERR_TRUNCATE);
    position = 12;
    ERROR_CLASS(MPI_Unpack(packed, sizeof(packed), &position, table, 1, t, MPI_COMM_WORLD),
                MPI_ERR_TRUNCATE);

    /* a freed handle is invalid even while a type built on it keeps the object */
    OK(MPI_Type_contiguous(3, t, &u));
    MPI_Datatype stale = t;
    OK(MPI_Type_free(&t));
    ERROR_CLASS(MPI_Type_size(stale, &size), MPI_ERR_TYPE);
    ERROR_CLASS(MPI_Type_free(&stale), MPI_ERR_TYPE);
    OK(MPI_Type_commit(&u));
    SHAPE(u, 24, 0, 24, 0, 24);
    MPI_Type_free(&u);

    /* a _c constructor's type needs the _c envelope */
    OK(MPI_Type_contiguous_c(2, MPI_INT, &t));
    int a, b, c, d;
    ERROR_CLASS(MPI_Type_get_envelope(t, &a, &b, &c, &d), MPI_ERR_TYPE);
    MPI_Type_free(&t);
}

/* In-use heap bytes: create/commit/free must give back all it takes. */
static size_t heap_in_use(void)
{
    return mallinfo2().uordblks;
}

static void test_no_growth(void)
{
    MPI_Datatype v, s;
    for (int round = 0; round < 2; round++) {
        size_t before = heap_in_use();
        for (int i = 0; i < (round ? 100000 : 1000); i++) {
            MPI_Type_vector(4, 2, 3, MPI_DOUBLE, &v);
            MPI_Type_create_struct(2, (int[]){1, 3}, (MPI_Aint[]){0, 16},
                                   (MPI_Datatype[]){v, MPI_INT}, &s);
            MPI_Type_commit(&s);
            MPI_Type_free(&v);
            MPI_Type_free(&s);
        }
        size_t after = heap_in_use();
        if (round == 1)
            EXPECT(after <= before + 4096, "100000 create/commit/free grew the heap by %zu bytes",
                   after - before);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    for (int i = 0; i < 64; i++)
        table[i] = i;
    test_constructors();
    test_subarray_darray();
    test_pack();
    test_external32();
    test_elements();
    test_predefined_lookups();
    test_names_and_ints();
    test_errors();
    test_no_growth();
    if (failures == 0)
        printf("dt_api: rank %d OK\n", rank);
    MPI_Finalize();
    return failures ? 1 : 0;
}
