/* Checks a test skips where a peer MPI (Open MPI, MPICH) is known to break
 * the standard, so that running the program against it shows the rest: the
 * comma-separated tokens of an environment variable (RMA_SKIP, IO_SKIP ...)
 * that only a person running a peer sets; the test scripts never do. */
#ifndef TEST_MPI_PEER_SKIPS_H
#define TEST_MPI_PEER_SKIPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when token is listed in the variable; rank 0 says so, naming prog. */
static inline int peer_skip(const char *variable, const char *token, int rank, const char *prog)
{
    const char *list = getenv(variable);
    size_t n = strlen(token);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, token, n) == 0) {
            if (rank == 0)
                printf("%s: %s skipped (%s)\n", prog, token, variable);
            return 1;
        }
        p = e ? e + 1 : p + len;
    }
    return 0;
}

#endif
