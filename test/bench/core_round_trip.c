/* core_round_trip: how long a cache line takes to go from one core to
 * another and back, the cost under every shared-memory hand-off (a ring
 * record, a collective's slot, a lock word). contrib/compare.sh runs it
 * before each benchmark run and prints the range beside each table: on a
 * virtual machine the host may move the virtual cores between physical
 * ones that share a cache and ones that do not, and every shared-memory
 * figure moves with it (test/bench/README.md, "Core round trip").
 *
 * Two processes, pinned to two CPUs (the first two this process may use,
 * or -c A,B), pass a counter back and forth in one line of shared memory;
 * prints the median (and min, max) in ns of one round trip over -n
 * repetitions of 100000 round trips.
 *   core_round_trip [-c A,B] [-n REPS]   (defaults: first two CPUs, 5)
 * Not an MPI program. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "standalone.h"

#define ROUND_TRIPS 100000L

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

/* The first two CPUs this process may run on; -1 where it has fewer. */
static void first_two_cpus(int *a, int *b)
{
    cpu_set_t set;
    *a = *b = -1;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE && *b < 0; c++)
        if (CPU_ISSET(c, &set))
            *(*a < 0 ? a : b) = c;
}

/* The child answers each odd value with the next even one. */
static void answer(volatile long *word, long reps)
{
    for (long v = 1; v < 2 * ROUND_TRIPS * reps; v += 2) {
        while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != v)
            ;
        __atomic_store_n(word, v + 1, __ATOMIC_RELEASE);
    }
}

int main(int argc, char **argv)
{
    int a = -1, b = -1, reps = 5, c;
    while ((c = getopt(argc, argv, "c:n:h")) != -1) {
        switch (c) {
        case 'c':
            if (sscanf(optarg, "%d,%d", &a, &b) != 2 || a < 0 || b < 0 || a == b) {
                fprintf(stderr, "core_round_trip: -c wants two different CPUs, as 0,1\n");
                return 2;
            }
            break;
        case 'n': reps = atoi(optarg); break;
        default:
            fprintf(c == 'h' ? stdout : stderr, "usage: core_round_trip [-c A,B] [-n REPS]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (reps < 1) {
        fprintf(stderr, "core_round_trip: -n must be positive\n");
        return 2;
    }
    if (a < 0)
        first_two_cpus(&a, &b);
    if (b < 0) {
        fprintf(stderr, "core_round_trip: this process may run on one CPU only\n");
        return 1;
    }
    volatile long *word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    double *ns = malloc((size_t)reps * sizeof *ns);
    if (word == MAP_FAILED || !ns) {
        fprintf(stderr, "core_round_trip: out of memory\n");
        return 1;
    }
    /* Both CPUs tried here first, so that the child cannot fail to pin
     * while this process waits for its answers. */
    if (pin(b) != 0 || pin(a) != 0) {
        fprintf(stderr, "core_round_trip: cannot run on CPU %d or %d\n", a, b);
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("core_round_trip: fork");
        return 1;
    }
    if (child == 0) {
        pin(b);
        answer(word, reps);
        _exit(0);
    }
    for (int r = 0; r < reps; r++) {
        long base = 2 * ROUND_TRIPS * r;
        double t0 = standalone_now();
        for (long i = 0; i < ROUND_TRIPS; i++) {
            long v = base + 2 * i + 1;
            __atomic_store_n(word, v, __ATOMIC_RELEASE);
            while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != v + 1)
                ;
        }
        ns[r] = (standalone_now() - t0) / ROUND_TRIPS * 1e9;
    }
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "core_round_trip: the second process failed\n");
        return 1;
    }
    double median = standalone_median(ns, reps);
    printf("# core_round_trip: CPUs %d and %d, %d x %ld round trips of one cache line\n"
           "# ns(median) Min(ns) Max(ns)\n",
           a, b, reps, ROUND_TRIPS);
    printf("%.0f %.0f %.0f\n", median, ns[0], ns[reps - 1]);
    free(ns);
    return 0;
}
