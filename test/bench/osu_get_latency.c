/* osu_get_latency: MPI_Get latency: rank 0 gets size bytes from rank 1's
 * window; see osu_rma.h for -s (flush or fence) and -w (allocate or create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_get_latency",
        .what = "MPI_Get latency: rank 0 gets size bytes from rank 1's window",
        .op = OSU_RMA_GET,
    };
    return osu_rma_main(&r, argc, argv);
}
