/* A mixed-language program: C and Fortran share communicators through
 * MPI_Comm_c2f/MPI_Comm_f2c. C splits MPI_COMM_WORLD and hands the half to
 * a Fortran subroutine (mixed_sub.f90, `use mpi`), which reduces on it and
 * returns a duplicate that C then uses; predefined handles and statuses
 * must mean the same on both sides. */
#include <mpi.h>
#include <stdio.h>

/* gfortran's name of SUBROUTINE FORTRAN_SIDE */
void fortran_side_(MPI_Fint *comm, MPI_Fint *sum, MPI_Fint *dup, MPI_Fint *world,
                   MPI_Fint *integer_type);

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        failures++;
        printf("mixed: FAIL: %s\n", what);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm half, dup;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Fint half_f = MPI_Comm_c2f(half), sum = -1, dup_f = -1, world_f = -1, integer_f = -1;
    check(MPI_Comm_f2c(half_f) == half, "c2f then f2c gives the communicator back");
    fortran_side_(&half_f, &sum, &dup_f, &world_f, &integer_f);
    int expected = 0;
    for (int r = rank % 2; r < size; r += 2)
        expected += r;
    check(sum == expected, "Fortran allreduce on C's communicator");
    check(world_f == MPI_Comm_c2f(MPI_COMM_WORLD), "MPI_COMM_WORLD is the same INTEGER");
    check(integer_f == MPI_Type_c2f(MPI_INTEGER), "MPI_INTEGER is the same INTEGER");
    check(MPI_Type_f2c(integer_f) == MPI_INTEGER, "MPI_Type_f2c of MPI_INTEGER");

    dup = MPI_Comm_f2c(dup_f);
    int result = MPI_UNEQUAL, dup_size = 0;
    check(MPI_Comm_compare(dup, half, &result) == MPI_SUCCESS && result == MPI_CONGRUENT,
          "Fortran's duplicate is congruent in C");
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup);
    MPI_Comm_size(dup, &dup_size);
    check(sum == expected && dup_size == (size + 1 - rank % 2) / 2, "C uses Fortran's duplicate");

    /* statuses: C to Fortran layout and back */
    MPI_Status status;
    MPI_Fint status_f[MPI_F_STATUS_SIZE];
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, rank, 5, &got, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &status);
    check(MPI_Status_c2f(&status, status_f) == MPI_SUCCESS, "MPI_Status_c2f");
    check(status_f[MPI_F_SOURCE] == rank && status_f[MPI_F_TAG] == 5, "Fortran status fields");
    MPI_Status back;
    check(MPI_Status_f2c(status_f, &back) == MPI_SUCCESS && back.MPI_SOURCE == rank &&
              back.MPI_TAG == 5, "MPI_Status_f2c");
    MPI_F08_status status_f08;
    check(MPI_Status_c2f08(&status, &status_f08) == MPI_SUCCESS && status_f08.MPI_TAG == 5,
          "MPI_Status_c2f08");
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* no object: MPI_COMM_SELF's */
    check(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back) == MPI_ERR_ARG,
          "MPI_Status_f2c refuses MPI_F_STATUS_IGNORE");

    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    if (failures)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    if (rank == 0)
        printf("mixed: %d ranks OK\n", size);
    return 0;
}
