/* osu_put_latency: MPI_Put latency: rank 0 puts size bytes into rank 1's
 * window; see osu_rma.h for -s (flush or fence) and -w (allocate or create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_put_latency",
        .what = "MPI_Put latency: rank 0 puts size bytes into rank 1's window",
        .op = OSU_RMA_PUT,
    };
    return osu_rma_main(&r, argc, argv);
}
