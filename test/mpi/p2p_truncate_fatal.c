/* p2p_truncate_fatal: what a user reads when a receive is too short under
 * MPI_ERRORS_ARE_FATAL: rank 0 sends 100 ints, rank 1 receives 10, with
 * MPI_Recv ("recv") or as the first of two requests of MPI_Waitall
 * ("waitall"). The job must end, and the message name both sizes (and for
 * MPI_Waitall, which request failed and with which error). */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, buf[100] = {0}, other[1] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int waitall = argc > 1 && strcmp(argv[1], "waitall") == 0;
    if (rank == 0) {
        MPI_Send(buf, 100, MPI_INT, 1, 0, MPI_COMM_WORLD);
    } else if (rank == 1 && !waitall) {
        MPI_Recv(buf, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Request requests[2];
        MPI_Irecv(buf, 10, MPI_INT, 0, 0, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(other, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &requests[1]);
        MPI_Send(other, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
