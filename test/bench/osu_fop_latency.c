/* osu_fop_latency: MPI_Fetch_and_op latency: rank 0 adds 1 to an int64_t in
 * rank 1's window (MPI_SUM); see osu_rma.h for -s (flush or fence) and -w
 * (allocate or create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_fop_latency",
        .what = "MPI_Fetch_and_op latency: rank 0 adds 1 to an int64_t in rank 1's "
                "window (MPI_SUM)",
        .op = OSU_RMA_FOP,
    };
    return osu_rma_main(&r, argc, argv);
}
