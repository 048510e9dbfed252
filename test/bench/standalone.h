/* The clock and the median of the benchmarks that are not MPI programs
 * (memcpy_bw, devcopy_bw, core_round_trip): each is one C file that
 * contrib/compare.sh may build with a plain C compiler, so these live in a
 * header, not in bench.c (which needs MPI). */
#ifndef OL_BENCH_STANDALONE_H
#define OL_BENCH_STANDALONE_H

#include <stdlib.h>
#include <time.h>

/* Seconds of CLOCK_MONOTONIC. */
static inline double standalone_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int standalone_by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v (n > 0 values) and returns their median: v[0] is then the least
 * and v[n - 1] the most. */
static inline double standalone_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, standalone_by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
