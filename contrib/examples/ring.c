/* ring: the demo of the README.
 *
 * 1. A token goes once round a ring of all ranks: rank 0 starts it, each rank
 *    adds its rank number and passes it on, and when it comes back rank 0
 *    checks that the sum is 0 + 1 + ... + (n-1) = n(n-1)/2.
 * 2. A "reduction" by hand (this MPI has no collectives yet): every rank
 *    sends rank 0 the square of its rank, and rank 0 adds them up and checks
 *    the total against (n-1)n(2n-1)/6.
 *
 * Build and run:  mpicc ring.c -o ring && mpirun -np 4 ./ring
 * Exits non-zero if a check fails. */
#include <mpi.h>
#include <stdio.h>

enum { TOKEN_TAG = 1, VALUE_TAG = 2 };

/* Returns 1 if the token came back right (only rank 0 checks). */
static int pass_token(int rank, int size)
{
    int token = 0, ok = 1;

    if (size == 1) {
        printf("ring of 1 rank: nothing to pass round\n");
        return 1;
    }
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, 1, TOKEN_TAG, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, size - 1, TOKEN_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        ok = token == size * (size - 1) / 2;
        printf("ring of %d ranks: token came back with sum %d (expected %d)\n", size,
               token, size * (size - 1) / 2);
    } else {
        MPI_Recv(&token, 1, MPI_INT, rank - 1, TOKEN_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, TOKEN_TAG, MPI_COMM_WORLD);
    }
    return ok;
}

/* Returns 1 if rank 0 got the right total (only rank 0 checks). */
static int sum_squares(int rank, int size)
{
    long value = (long)rank * rank, total = value, expected;

    if (rank != 0) {
        MPI_Send(&value, 1, MPI_LONG, 0, VALUE_TAG, MPI_COMM_WORLD);
        return 1;
    }
    /* Receive from anyone, in whatever order the values arrive. */
    for (int i = 1; i < size; i++) {
        MPI_Recv(&value, 1, MPI_LONG, MPI_ANY_SOURCE, VALUE_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        total += value;
    }
    expected = (long)(size - 1) * size * (2 * size - 1) / 6;
    printf("sum of rank^2 over %d ranks, gathered at rank 0: %ld (expected %ld)\n", size,
           total, expected);
    return total == expected;
}

int main(int argc, char **argv)
{
    int rank, size, ok;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    ok = pass_token(rank, size);
    ok = sum_squares(rank, size) && ok;

    MPI_Finalize();
    return ok ? 0 : 1;
}
