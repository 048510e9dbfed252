/* What the topology and communicator tests share (topo_*, comm_create*,
 * split_type*): fatal checks and a few exchanges built on point-to-point
 * only, so that the tests do not depend on the collectives under test
 * elsewhere. */
#ifndef TOPO_UTIL_H
#define TOPO_UTIL_H

#include <mpi.h>

extern int tu_rank, tu_size; /* in MPI_COMM_WORLD */

/* MPI_Init, rank and size; name prefixes every failure message. */
void tu_init(int *argc, char ***argv, const char *name);

/* Prints "name: rank r of n: message" on stderr and aborts the job. */
void tu_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define TU_CHECK(cond, ...)                                                                        \
    do {                                                                                           \
        if (!(cond))                                                                               \
            tu_die(__VA_ARGS__);                                                                   \
    } while (0)

/* Every process of comm gets every process's n ints, in rank order:
 * all[r * n .. r * n + n - 1] are rank r's. */
void tu_allgather_ints(const int *mine, int n, int *all, MPI_Comm comm);

/* rc is an error of class cls (what names the call in the message). */
void tu_expect_class(int rc, int cls, const char *what);

/* The rank in comm of world rank w, or MPI_UNDEFINED. */
int tu_rank_of_world(MPI_Comm comm, int w);

#endif
