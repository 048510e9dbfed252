/* gpu_query: MPIX_Query_cuda_support() from <mpi-ext.h> answers truthfully:
 * 1 where CUDA support is built and a GPU is visible, asked both before the
 * program opened a CUDA context and after; 0 where no GPU is usable (then
 * the test still exits 77, as the main claim could not be checked). The
 * GPU suite's library is built with CUDA (configure found nvcc), so on a
 * machine with a GPU the answer must be 1. */
#include <stdio.h>

#include "gpu_test.h"

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#define HAVE_MPI_EXT_H 1
#endif
#endif

#ifdef HAVE_MPI_EXT_H
static int query(void)
{
    return MPIX_Query_cuda_support();
}
#endif

int main(int argc, char **argv)
{
    gt_start("gpu_query", &argc, &argv);
#ifdef HAVE_MPI_EXT_H
    int before = query(), have_gpu = gt_open_gpu();
    if (!have_gpu) {
        if (before != 0)
            gt_fail("MPIX_Query_cuda_support() returned %d where no GPU is usable, expected 0",
                    before);
        if (gt_failures() == 0)
            gt_skip();
        return gt_finish();
    }
    if (before != 1)
        gt_fail("MPIX_Query_cuda_support() before the program created a CUDA context returned %d, "
                "expected 1 (CUDA support built, a GPU visible)", before);
    if (query() != 1)
        gt_fail("MPIX_Query_cuda_support() with the program's CUDA context current returned %d, "
                "expected 1", query());
#else
    if (!gt_open_gpu())
        gt_skip();
    if (gt_rank == 0)
        gt_fail("<mpi-ext.h> was not found: MPIX_Query_cuda_support() cannot be called");
#endif
    return gt_finish();
}
