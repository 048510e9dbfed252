/* What the process-management tests share (dyn_connect.c, dyn_spawn.c):
 * failing with the program's name, the rank and the pid, and checking a
 * call's return code. Each program defines test_name and world_rank. */
#ifndef OL_TEST_DYN_UTIL_H
#define OL_TEST_DYN_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

extern const char test_name[];
extern int world_rank;

static void fail(const char *what, long got, long want)
{
    fprintf(stderr, "%s rank %d (pid %d): %s: got %ld, expected %ld\n", test_name, world_rank,
            (int)getpid(), what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_rc(int rc, const char *call)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, text, &len);
        fprintf(stderr, "%s rank %d: %s failed: %s\n", test_name, world_rank, call, text);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

#endif
