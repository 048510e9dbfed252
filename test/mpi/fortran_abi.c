/* fortran_abi: what a Fortran layer built on the C ABI relies on (MPI-5.0
 * section 21.4) when its compiler uses 8-byte INTEGER, LOGICAL and REAL and
 * 16-byte DOUBLE PRECISION (gfortran -fdefault-integer-8 -fdefault-real-8),
 * has no INTEGER16 and writes .TRUE. as -1.
 *
 * Before MPI_Init: MPI_Abi_get_info gives the sizes of MPI_Aint, MPI_Count
 * and MPI_Offset; MPI_Abi_get_fortran_info gives gfortran's defaults
 * (INTEGER 4, DOUBLE PRECISION 8, INTEGER16 supported); no literals are set
 * for 8-byte LOGICALs; then the program sets its sizes and literals.
 *
 * In the job: MPI_Type_size of INTEGER, LOGICAL, REAL, DOUBLE PRECISION,
 * COMPLEX, DOUBLE COMPLEX and 2INTEGER follow the sizes set, INTEGER16's is
 * MPI_UNDEFINED and sending it fails with MPI_ERR_TYPE; MPI_Type_match_size
 * finds no 16-byte integer. Across the ranks: a sum of INTEGERs above 2^32
 * and of REALs that a 4-byte float would round is exact; MAXLOC on
 * 2INTEGER keeps values above 2^32, MINLOC on 2REAL reads 8-byte members;
 * MPI_LAND and MPI_LOR on LOGICAL give -1 and 0; MPI_SUM on LOGICAL is
 * MPI_ERR_OP; a ring of INTEGERs arrives whole; MPI_Pack_external writes
 * an INTEGER in 8 big-endian bytes.
 * A second MPI_Abi_set_fortran_info, or of the same literals, is
 * MPI_ERR_ABI. MPI_Abi_get_fortran_info then reports what was set.
 *
 * With argument "late" the program registers after MPI_Init instead, after
 * two calls with a bad size and a bad boolean, which fail with
 * MPI_ERR_INFO_VALUE and change nothing (not even the right to set). */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size;

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "fortran_abi: rank %d: ", rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (size > 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void expect_class(int rc, int want, const char *what)
{
    int cls = rc;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != want)
        die("%s: error class %d, expected %d", what, cls, want);
}

#define OK(call) expect_class((call), MPI_SUCCESS, #call)

static void expect_key(MPI_Info info, const char *key, const char *want)
{
    char value[64];
    int flag = 0;

    OK(MPI_Info_get(info, key, sizeof(value) - 1, value, &flag));
    if (!flag || strcmp(value, want) != 0)
        die("info key %s is \"%s\", expected \"%s\"", key, flag ? value : "(unset)", want);
}

static void check_defaults(void)
{
    MPI_Info info;
    char v[8];

    OK(MPI_Abi_get_info(&info));
    snprintf(v, sizeof(v), "%zu", sizeof(MPI_Aint));
    expect_key(info, "mpi_aint_size", v);
    snprintf(v, sizeof(v), "%zu", sizeof(MPI_Count));
    expect_key(info, "mpi_count_size", v);
    snprintf(v, sizeof(v), "%zu", sizeof(MPI_Offset));
    expect_key(info, "mpi_offset_size", v);
    OK(MPI_Info_free(&info));

    OK(MPI_Abi_get_fortran_info(&info));
    if (info == MPI_INFO_NULL)
        die("MPI_Abi_get_fortran_info gave MPI_INFO_NULL");
    expect_key(info, "mpi_integer_size", "4");
    expect_key(info, "mpi_logical_size", "4");
    expect_key(info, "mpi_real_size", "4");
    expect_key(info, "mpi_double_precision_size", "8");
    expect_key(info, "mpi_integer16_supported", "true");
    expect_key(info, "mpi_double_complex_supported", "true");
    OK(MPI_Info_free(&info));

    int64_t t = 7, f = 7;
    int is_set = -1;
    OK(MPI_Abi_get_fortran_booleans(8, &t, &f, &is_set));
    if (is_set != 0)
        die("literals of an 8-byte LOGICAL are set before any call set them");
}

static void set_one(const char *key, const char *value, int want_class)
{
    MPI_Info info;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_integer_size", "8"));
    OK(MPI_Info_set(info, key, value));
    expect_class(MPI_Abi_set_fortran_info(info), want_class, key);
    OK(MPI_Info_free(&info));
}

static void check_bad_registration(void)
{
    int got = 0;

    set_one("mpi_real_size", "3", MPI_ERR_INFO_VALUE);
    set_one("mpi_integer16_supported", "maybe", MPI_ERR_INFO_VALUE);
    OK(MPI_Type_size(MPI_INTEGER, &got));
    if (got != 4)
        die("a failed MPI_Abi_set_fortran_info changed MPI_INTEGER's size to %d", got);
}

static void register_fortran(void)
{
    MPI_Info info;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_integer_size", "8"));
    OK(MPI_Info_set(info, "mpi_logical_size", "8"));
    OK(MPI_Info_set(info, "mpi_real_size", "8"));
    OK(MPI_Info_set(info, "mpi_double_precision_size", "16"));
    OK(MPI_Info_set(info, "mpi_integer16_supported", "false"));
    OK(MPI_Info_set(info, "a_key_nobody_knows", "whatever"));
    OK(MPI_Abi_set_fortran_info(info));
    OK(MPI_Info_free(&info));

    int64_t t = -1, f = 0;
    OK(MPI_Abi_set_fortran_booleans(8, &t, &f));
}

static void check_size(MPI_Datatype type, int want, const char *name)
{
    int got = -2;

    OK(MPI_Type_size(type, &got));
    if (got != want)
        die("MPI_Type_size(%s) is %d, expected %d", name, got, want);
}

#define SIZE(type, want) check_size(type, want, #type)

static void check_sizes(void)
{
    SIZE(MPI_INTEGER, 8);
    SIZE(MPI_LOGICAL, 8);
    SIZE(MPI_REAL, 8);
    SIZE(MPI_DOUBLE_PRECISION, 16);
    SIZE(MPI_COMPLEX, 16);
    SIZE(MPI_DOUBLE_COMPLEX, 32);
    SIZE(MPI_2INTEGER, 16);
    SIZE(MPI_INTEGER16, MPI_UNDEFINED);
    SIZE(MPI_INTEGER8, 8);

    MPI_Aint lb, extent;
    OK(MPI_Type_get_extent(MPI_2INTEGER, &lb, &extent));
    if (lb != 0 || extent != 16)
        die("MPI_2INTEGER: lb %ld extent %ld, expected 0 and 16", (long)lb, (long)extent);

    char buf[16] = {0};
    expect_class(MPI_Send(buf, 1, MPI_INTEGER16, rank, 0, MPI_COMM_SELF), MPI_ERR_TYPE,
                 "MPI_Send of an unsupported MPI_INTEGER16");
    MPI_Datatype t;
    expect_class(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &t), MPI_ERR_ARG,
                 "MPI_Type_match_size of a 16-byte integer without INTEGER16");
}

static void check_reductions(void)
{
    /* INTEGER: each rank adds (rank + 1) * 2^33, beyond any 4-byte integer. */
    int64_t mine = (int64_t)(rank + 1) << 33, sum = 0;
    OK(MPI_Allreduce(&mine, &sum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    int64_t want = (int64_t)size * (size + 1) / 2 << 33;
    if (sum != want)
        die("MPI_SUM on INTEGER: %lld, expected %lld", (long long)sum, (long long)want);

    /* REAL: 1 + 2^-40 per rank is exact in 8 bytes, 1 in 4. */
    double x = 1.0 + 0x1p-40, xs = 0;
    OK(MPI_Allreduce(&x, &xs, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
    if (xs != size * (1.0 + 0x1p-40))
        die("MPI_SUM on REAL: %.17g, expected %.17g", xs, size * (1.0 + 0x1p-40));

    /* 2INTEGER: the largest value, 2^40 + rank, is on the last rank. */
    int64_t pair[2] = {((int64_t)1 << 40) + rank, rank}, best[2] = {0, 0};
    OK(MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    if (best[0] != ((int64_t)1 << 40) + size - 1 || best[1] != size - 1)
        die("MPI_MAXLOC on 2INTEGER: (%lld, %lld)", (long long)best[0], (long long)best[1]);

    /* 2REAL: two 8-byte REALs; the smallest value, -0.5 - rank, is on the last rank. */
    double rpair[2] = {-0.5 - rank, rank}, rbest[2] = {0, 0};
    OK(MPI_Allreduce(rpair, rbest, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
    if (rbest[0] != -0.5 - (size - 1) || rbest[1] != size - 1)
        die("MPI_MINLOC on 2REAL: (%g, %g)", rbest[0], rbest[1]);

    /* LOGICAL: .TRUE. is -1; rank 0 alone says .FALSE. */
    int64_t flag = rank == 0 ? 0 : -1, all = 7, any = 7;
    OK(MPI_Allreduce(&flag, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    OK(MPI_Allreduce(&flag, &any, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    if (all != 0 || any != (size > 1 ? -1 : 0))
        die("MPI_LAND/LOR on LOGICAL: %lld and %lld", (long long)all, (long long)any);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    expect_class(MPI_Allreduce(&flag, &all, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_OP, "MPI_SUM on LOGICAL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void check_transfers(void)
{
    int64_t out[3], in[3] = {0, 0, 0};
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < 3; i++)
        out[i] = ((int64_t)rank << 36) + i;
    OK(MPI_Sendrecv(out, 3, MPI_INTEGER, next, 5, in, 3, MPI_INTEGER, prev, 5, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    for (int i = 0; i < 3; i++)
        if (in[i] != ((int64_t)prev << 36) + i)
            die("ring of INTEGER: element %d is %llx", i, (unsigned long long)in[i]);

    int64_t value = 0x0102030405060708;
    unsigned char packed[16];
    MPI_Aint position = 0;
    OK(MPI_Pack_external("external32", &value, 1, MPI_INTEGER, packed, sizeof(packed),
                         &position));
    static const unsigned char want[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    if (position != 8 || memcmp(packed, want, 8) != 0)
        die("external32 of an 8-byte INTEGER: %ld bytes", (long)position);
}

static void check_registration_errors(void)
{
    MPI_Info info;

    OK(MPI_Info_create(&info));
    OK(MPI_Info_set(info, "mpi_integer_size", "4"));
    expect_class(MPI_Abi_set_fortran_info(info), MPI_ERR_ABI, "a second MPI_Abi_set_fortran_info");
    OK(MPI_Info_free(&info));
    expect_class(MPI_Abi_set_fortran_info(MPI_INFO_NULL), MPI_ERR_INFO,
                 "MPI_Abi_set_fortran_info(MPI_INFO_NULL)");

    int64_t t = 1, f = 0;
    expect_class(MPI_Abi_set_fortran_booleans(8, &t, &f), MPI_ERR_ABI,
                 "a second MPI_Abi_set_fortran_booleans of 8 bytes");
    expect_class(MPI_Abi_set_fortran_booleans(3, &t, &f), MPI_ERR_ARG,
                 "MPI_Abi_set_fortran_booleans of 3 bytes");
    expect_class(MPI_Abi_set_fortran_booleans(4, &t, &t), MPI_ERR_ARG,
                 "MPI_Abi_set_fortran_booleans with equal literals");
    int is_set = -1;
    OK(MPI_Abi_get_fortran_booleans(4, &t, &f, &is_set));
    if (is_set != 0)
        die("a failed MPI_Abi_set_fortran_booleans set the literals of 4 bytes");
    OK(MPI_Abi_get_fortran_booleans(8, &t, &f, &is_set));
    if (is_set != 1 || t != -1 || f != 0)
        die("8-byte literals: is_set %d, %lld and %lld", is_set, (long long)t, (long long)f);

    OK(MPI_Abi_get_fortran_info(&info));
    expect_key(info, "mpi_integer_size", "8");
    expect_key(info, "mpi_double_precision_size", "16");
    expect_key(info, "mpi_integer16_supported", "false");
    expect_key(info, "mpi_integer8_supported", "true");
    OK(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    int late = argc > 1 && strcmp(argv[1], "late") == 0;

    check_defaults();
    if (!late)
        register_fortran();
    OK(MPI_Init(NULL, NULL));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (late) {
        check_bad_registration();
        register_fortran();
    }

    check_sizes();
    check_reductions();
    check_transfers();
    check_registration_errors();

    OK(MPI_Finalize());
    if (rank == 0)
        printf("fortran_abi: %d ranks OK\n", size);
    return 0;
}
