/* For exit_status.sh (plain MPI): ends ranks abnormally around MPI_Finalize.
 *
 *   exit_after WHEN HOW VALUE WHO [MARKER]
 *
 * WHEN: "after" (MPI_Finalize, then end) or "before" (end right after
 * MPI_Init; the other ranks sleep 30 s in user code, so the launcher must
 * kill them). HOW: "exit" (exit(VALUE)) or "signal" (raise(VALUE)), or
 * "abort" (MPI_Abort(MPI_COMM_WORLD, VALUE)) or "mpierror" (MPI_Send to a rank
 * that does not exist, under MPI_ERRORS_ARE_FATAL). WHO: the
 * rank that ends so, or -1 for every rank. MARKER is ignored; tests pass a
 * unique word to find leftover processes. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void end_abnormally(const char *how, int value)
{
    /* A raised SIGSEGV goes through UCX's handler (a backtrace) as a real
     * crash does, and then kills the rank. */
    if (strcmp(how, "signal") == 0)
        raise(value);
    if (strcmp(how, "abort") == 0)
        MPI_Abort(MPI_COMM_WORLD, value);
    if (strcmp(how, "mpierror") == 0) {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Send(NULL, 0, MPI_INT, size + value, 0, MPI_COMM_WORLD);
    }
    exit(value);
}

int main(int argc, char **argv)
{
    int rank;
    if (argc < 5) {
        fprintf(stderr, "usage: exit_after before|after exit|signal VALUE RANK|-1 [MARKER]\n");
        return 2;
    }
    int value = atoi(argv[3]), who = atoi(argv[4]);
    int after = strcmp(argv[1], "after") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int me = who < 0 || who == rank;
    if (!after) {
        if (me)
            end_abnormally(argv[2], value);
        sleep(30);
    }
    MPI_Finalize();
    if (me)
        end_abnormally(argv[2], value);
    return 0;
}
