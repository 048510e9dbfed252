/* osu_acc_latency: MPI_Accumulate latency: rank 0 adds size / 4 ints
 * (MPI_INT, MPI_SUM) into rank 1's window; see osu_rma.h for -s (flush or
 * fence) and -w (allocate or create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_acc_latency",
        .what = "MPI_Accumulate latency: rank 0 adds size / 4 ints (MPI_INT, "
                "MPI_SUM) into rank 1's window",
        .op = OSU_RMA_ACC,
    };
    return osu_rma_main(&r, argc, argv);
}
