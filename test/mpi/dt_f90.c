/* dt_f90: the types of MPI_Type_create_f90_integer/_real/_complex. Each is
 * a predefined type in all but its handle: the envelope says
 * MPI_COMBINER_F90_INTEGER/_REAL/_COMPLEX and the contents give r (and p)
 * back; the same arguments give the same handle; it may not be freed; it
 * has the size of the Fortran kind chosen, and it works in messages and in
 * reductions as that kind. On 1 and 2 ranks. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int rank, size;

static void fail(const char *what, long expected, long got)
{
    fprintf(stderr, "dt_f90: rank %d: %s: expected %ld, got %ld\n", rank, what, expected, got);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(int rc, const char *call)
{
    if (rc != MPI_SUCCESS)
        fail(call, MPI_SUCCESS, rc);
}

/* Envelope and contents of t: combiner, and the integers p and r (p is
 * absent for integers). */
static void expect_envelope(MPI_Datatype t, int combiner, int p, int r, const char *what)
{
    int ni, na, nd, c;
    check(MPI_Type_get_envelope(t, &ni, &na, &nd, &c), "MPI_Type_get_envelope");
    if (c != combiner)
        fail(what, combiner, c);
    int expected_ni = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    if (ni != expected_ni || na != 0 || nd != 0)
        fail("number of integers", expected_ni, ni);
    int ints[2] = {-7, -7};
    check(MPI_Type_get_contents(t, ni, 0, 0, ints, NULL, NULL), "MPI_Type_get_contents");
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        if (ints[0] != r)
            fail("contents: r", r, ints[0]);
    } else if (ints[0] != p || ints[1] != r) {
        fail("contents: p", p, ints[0]);
    }
    MPI_Count nic, nac, ncc, ndc;
    check(MPI_Type_get_envelope_c(t, &nic, &nac, &ncc, &ndc, &c), "MPI_Type_get_envelope_c");
    if (c != combiner || nic != expected_ni || ncc != 0)
        fail("MPI_Type_get_envelope_c combiner", combiner, c);
}

static void expect_size(MPI_Datatype t, int bytes, const char *what)
{
    int s;
    check(MPI_Type_size(t, &s), "MPI_Type_size");
    if (s != bytes)
        fail(what, bytes, s);
}

static void properties(void)
{
    MPI_Datatype r8, r8_again, r4, c16, i4, i8, i_undef_p, again;
    check(MPI_Type_create_f90_real(15, 300, &r8), "MPI_Type_create_f90_real(15, 300)");
    check(MPI_Type_create_f90_real(15, 300, &r8_again), "MPI_Type_create_f90_real again");
    if (r8 != r8_again)
        fail("the same (p, r) gives the same handle", 1, 0);
    check(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &r4), "MPI_Type_create_f90_real(6, -)");
    check(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &c16), "MPI_Type_create_f90_complex");
    check(MPI_Type_create_f90_integer(9, &i4), "MPI_Type_create_f90_integer(9)");
    check(MPI_Type_create_f90_integer(18, &i8), "MPI_Type_create_f90_integer(18)");
    check(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &i_undef_p), "f90_real(-, 300)");
    if (i_undef_p == r8)
        fail("(MPI_UNDEFINED, 300) is another handle than (15, 300)", 0, 1);
    if (r8 == MPI_REAL8 || i4 == MPI_INTEGER4)
        fail("an f90 type is not the named type's handle", 0, 1);

    expect_envelope(r8, MPI_COMBINER_F90_REAL, 15, 300, "real combiner");
    expect_envelope(r4, MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED, "real combiner (p only)");
    expect_envelope(c16, MPI_COMBINER_F90_COMPLEX, 15, MPI_UNDEFINED, "complex combiner");
    expect_envelope(i4, MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, 9, "integer combiner");
    expect_size(r8, 8, "size of real(15, 300)");
    expect_size(r4, 4, "size of real(6)");
    expect_size(c16, 16, "size of complex(15)");
    expect_size(i4, 4, "size of integer(9)");
    expect_size(i8, 8, "size of integer(18)");

    /* Predefined: freeing is an error, and the handle still works after. */
    MPI_Datatype victim = r8;
    int rc = MPI_Type_free(&victim);
    int class;
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_TYPE)
        fail("MPI_Type_free of an f90 type", MPI_ERR_TYPE, class);
    expect_size(r8, 8, "size after the refused free");

    /* A dup names the f90 type as its old type. */
    MPI_Datatype dup, inner;
    check(MPI_Type_dup(r8, &dup), "MPI_Type_dup");
    int ni, na, nd, c;
    check(MPI_Type_get_envelope(dup, &ni, &na, &nd, &c), "MPI_Type_get_envelope of the dup");
    if (c != MPI_COMBINER_DUP || nd != 1)
        fail("dup's combiner", MPI_COMBINER_DUP, c);
    check(MPI_Type_get_contents(dup, 0, 0, 1, NULL, NULL, &inner), "contents of the dup");
    if (inner != r8)
        fail("the dup's old type is the f90 handle", 1, 0);
    MPI_Type_free(&dup);

    /* No kind that precise: MPI_ERR_ARG. */
    rc = MPI_Type_create_f90_real(60, MPI_UNDEFINED, &again);
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_ARG)
        fail("MPI_Type_create_f90_real(60)", MPI_ERR_ARG, class);
}

/* Messages and reductions in the f90 types, as their Fortran kinds. */
static void communication(void)
{
    MPI_Datatype r8, i4;
    check(MPI_Type_create_f90_real(15, 300, &r8), "MPI_Type_create_f90_real");
    check(MPI_Type_create_f90_integer(9, &i4), "MPI_Type_create_f90_integer");
    double d[3] = {rank + 0.5, 2.0 * rank, -1.0}, dsum[3];
    int32_t n[2] = {rank + 1, 10 * (rank + 1)}, nmax[2];
    check(MPI_Allreduce(d, dsum, 3, r8, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce(f90 real)");
    check(MPI_Allreduce(n, nmax, 2, i4, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce(f90 integer)");
    double expected0 = size * (size - 1) / 2.0 + 0.5 * size;
    if (dsum[0] != expected0 || dsum[2] != -1.0 * size)
        fail("MPI_SUM on f90 real (times 2)", (long)(2 * expected0), (long)(2 * dsum[0]));
    if (nmax[0] != size || nmax[1] != 10 * size)
        fail("MPI_MAX on f90 integer", size, nmax[0]);
    if (size < 2)
        return;
    /* Rank 0 sends in the f90 type, rank 1 receives as MPI_REAL8 too: the
     * same kind, and in its own type. */
    double got[3] = {0};
    if (rank == 0) {
        check(MPI_Send(d, 3, r8, 1, 5, MPI_COMM_WORLD), "MPI_Send(f90 real)");
    } else if (rank == 1) {
        MPI_Status status;
        int count;
        check(MPI_Recv(got, 3, r8, 0, 5, MPI_COMM_WORLD, &status), "MPI_Recv(f90 real)");
        MPI_Get_count(&status, r8, &count);
        if (count != 3 || got[0] != 0.5 || got[2] != -1.0)
            fail("received f90 reals (count)", 3, count);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    properties();
    communication();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dt_f90: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
