/* osu_get_bw: MPI_Get bandwidth: rank 0 gets windows of -W messages from
 * rank 1's window; see osu_rma.h for -s (flush or fence) and -w (allocate or
 * create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_get_bw",
        .what = "MPI_Get bandwidth: rank 0 gets windows of -W messages from rank "
                "1's window",
        .op = OSU_RMA_GET, .bandwidth = 1,
    };
    return osu_rma_main(&r, argc, argv);
}
