/* See topo_util.h. */
#include "topo_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tu_rank, tu_size;
static const char *tu_name = "test";

void tu_init(int *argc, char ***argv, const char *name)
{
    tu_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &tu_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &tu_size);
}

void tu_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: rank %d of %d: ", tu_name, tu_rank, tu_size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Pairwise: in step s, rank r sends to r + s and receives from r - s, so
 * every pair meets once and nobody waits on a busy partner. */
void tu_allgather_ints(const int *mine, int n, int *all, MPI_Comm comm)
{
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memcpy(all + (size_t)rank * n, mine, sizeof(int) * n);
    for (int s = 1; s < size; s++) {
        int to = (rank + s) % size, from = (rank - s + size) % size;
        MPI_Sendrecv(mine, n, MPI_INT, to, 4242, all + (size_t)from * n, n, MPI_INT, from,
                     4242, comm, MPI_STATUS_IGNORE);
    }
}

void tu_expect_class(int rc, int cls, const char *what)
{
    int got = rc;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got == cls)
        return;
    text[0] = '\0';
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, text, &len);
    tu_die("%s: error class %d (%s), expected %d", what, got, text, cls);
}

int tu_rank_of_world(MPI_Comm comm, int w)
{
    MPI_Group world, group;
    int r;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(comm, &group);
    MPI_Group_translate_ranks(world, 1, &w, group, &r);
    MPI_Group_free(&world);
    MPI_Group_free(&group);
    return r;
}
