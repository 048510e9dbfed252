/* bad_rank: rank 0 sends to rank size + 5 under the default error handler
 * (MPI_ERRORS_ARE_FATAL) while the other ranks wait in MPI_Barrier. The job
 * must end with a message that names MPI_Send and the invalid rank, and
 * mpirun must exit non-zero. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, v = 42, err;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        err = MPI_Send(&v, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
        /* Not reached under a fatal handler. The message avoids the words the
         * test looks for, so that it cannot pass by accident. */
        fprintf(stderr,
                "bad_rank: the send to an invalid destination returned %d"
                " instead of ending the job\n",
                err);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    fprintf(stderr, "bad_rank: rank %d: a barrier that cannot complete returned\n", rank);
    return 1;
}
