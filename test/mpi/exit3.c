/* exit3: rank 1 leaves with exit(3) after MPI_Init, without MPI_Finalize,
 * while rank 0 waits in MPI_Recv for a message from it and every other rank
 * waits in MPI_Barrier. Neither wait can complete: the launcher must end the
 * whole job, say that rank 1 exited with code 3, and exit non-zero.
 * Arguments are ignored: the test passes a unique one to find leftover
 * processes by. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "exit3: needs at least 2 ranks, got %d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (rank == 1)
        exit(3);
    if (rank == 0)
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);

    fprintf(stderr, "exit3: rank %d: a wait that cannot complete returned\n", rank);
    return 1;
}
