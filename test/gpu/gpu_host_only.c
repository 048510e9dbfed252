/* gpu_host_only: a program that never loads the CUDA driver does big
 * allreduces on host buffers (where the CUDA IPC allreduce would apply to
 * device ones); the library must not load the driver for it either
 * (DESIGN.md: the driver is asked nothing in a process that has not loaded
 * it). Checked in /proc/self/maps after the calls; results checked too.
 * Needs no GPU: where no driver is installed it passes without proving
 * much, the run against the fake driver is the one that can fail. */
#include "gpu_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COUNT = (2 << 20) / sizeof(double) }; /* 2 MiB, above ALLREDUCE_DEVICE_IPC_BYTES */

static bool driver_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    if (!f)
        gt_die("cannot read /proc/self/maps");
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, "libcuda") != NULL;
    fclose(f);
    return found;
}

/* Every element sums 1 + 2 + ... + size, exact in double. */
static void check_sum(const double *v, const char *what)
{
    double want = gt_size * (gt_size + 1) / 2.0;
    for (size_t i = 0; i < COUNT; i++)
        if (v[i] != want) {
            gt_fail("%s: element %zu is %g, expected %g", what, i, v[i], want);
            return;
        }
}

int main(int argc, char **argv)
{
    gt_start("gpu_host_only", &argc, &argv);
    if (driver_mapped()) { /* e.g. a UCX built with CUDA loaded it in MPI_Init */
        if (gt_rank == 0)
            printf("gpu_host_only: libcuda is mapped after MPI_Init already: nothing to check\n");
        gt_skip();
    }
    double *in = malloc(COUNT * sizeof(double)), *out = malloc(COUNT * sizeof(double));
    if (!in || !out)
        gt_die("out of memory");
    for (size_t i = 0; i < COUNT; i++)
        in[i] = out[i] = gt_rank + 1;
    gt_check_rc("MPI_Allreduce",
                MPI_Allreduce(in, out, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    check_sum(out, "MPI_Allreduce");
    gt_check_rc("MPI_Allreduce in place",
                MPI_Allreduce(MPI_IN_PLACE, in, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    check_sum(in, "MPI_Allreduce in place");
    if (driver_mapped())
        gt_fail("the library loaded libcuda for allreduces on host buffers");
    free(in);
    free(out);
    return gt_finish();
}
