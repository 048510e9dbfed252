/* abort: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while rank 0 waits in
 * MPI_Recv for a message from it and every other rank waits in MPI_Barrier.
 * The launcher must end the whole job, say that rank 1 aborted, and exit with
 * the code given to MPI_Abort.
 * Arguments are ignored: the test passes a unique one to find leftover
 * processes by. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "abort: needs at least 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 1)
        MPI_Abort(MPI_COMM_WORLD, 7);
    else if (rank == 0)
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);

    fprintf(stderr, "abort: rank %d: returned from a call that cannot return\n", rank);
    return 1;
}
