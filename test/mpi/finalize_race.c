/* finalize_race: MPI_Init, a barrier and MPI_Finalize, run by
 * finalize_race.sh under the late_signal shim, which makes every fence
 * completion signal the UCX worker late: MPI_Finalize must not destroy the
 * worker while the completion of its closing fence may still signal it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("finalize_race: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
