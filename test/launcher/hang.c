/* Deliberate hangs for the state-report tests (hang_*.sh), on 4 ranks or
 * more. Every mode starts with one barrier, so collective numbers are known.
 *   nosend  the last rank receives (source 0, tag 9) what nobody sends; the
 *           others wait in a barrier
 *   skip    rank 2 skips the second barrier and sits in user code
 *   tags    rank 0 sends to 1 with tag 1 then receives from 1 with tag 5;
 *           rank 1 receives from 0 with tag 2; the others: barrier
 *   irecv   the last rank waits (MPI_Wait) for a receive from 0 that nobody
 *           sends; the others: barrier
 *   poll    the same, but the last rank polls it with MPI_Testall in a loop
 *   die     rank 2 kills itself; the others receive from it
 *   run     N barriers 10 ms apart, then a clean end (reports mid-run) */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void user_code_forever(void)
{
    for (;;)
        sleep(1);
}

static void nosend(int rank, int size)
{
    int v;
    if (rank == size - 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        MPI_Barrier(MPI_COMM_WORLD);
}

static void irecv(int rank, int size)
{
    int v;
    MPI_Request req;
    if (rank == size - 1) {
        MPI_Irecv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void poll_testall(int rank, int size)
{
    int v, done = 0;
    MPI_Request req;
    if (rank == size - 1) {
        MPI_Irecv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &req);
        while (!done)
            MPI_Testall(1, &req, &done, MPI_STATUSES_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void skip(int rank)
{
    if (rank == 2)
        user_code_forever();
    MPI_Barrier(MPI_COMM_WORLD);
}

static void tags(int rank)
{
    int v = 0;
    if (rank == 0) {
        MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

static void die(int rank)
{
    int v;
    if (rank == 2) {
        sleep(1); /* the others are in their receives by then */
        raise(SIGKILL);
    }
    MPI_Recv(&v, 1, MPI_INT, 2, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void run(int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        usleep(10000);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (size < 4) {
        fprintf(stderr, "hang: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "nosend") == 0)
        nosend(rank, size);
    else if (strcmp(mode, "irecv") == 0)
        irecv(rank, size);
    else if (strcmp(mode, "poll") == 0)
        poll_testall(rank, size);
    else if (strcmp(mode, "skip") == 0)
        skip(rank);
    else if (strcmp(mode, "tags") == 0)
        tags(rank);
    else if (strcmp(mode, "die") == 0)
        die(rank);
    else if (strcmp(mode, "run") == 0)
        run(argc > 2 ? atoi(argv[2]) : 300);
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
