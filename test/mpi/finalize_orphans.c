/* finalize_orphans: rank 1 returns from main without MPI_Finalize while
 * the others go on into MPI_Finalize (after 300 ms, or at once with the
 * argument "now"). mpirun names rank 1 and ends the job; the others' failed
 * closing fence is a consequence, which they must not report as an error
 * of their own. */
#include <mpi.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        return 0;
    if (argc < 2 || strcmp(argv[1], "now") != 0)
        usleep(300 * 1000);
    MPI_Finalize();
    return 0;
}
