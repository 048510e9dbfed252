/* osu_put_bw: MPI_Put bandwidth: rank 0 puts windows of -W messages into
 * rank 1's window; see osu_rma.h for -s (flush or fence) and -w (allocate or
 * create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_put_bw",
        .what = "MPI_Put bandwidth: rank 0 puts windows of -W messages into rank "
                "1's window",
        .op = OSU_RMA_PUT, .bandwidth = 1,
    };
    return osu_rma_main(&r, argc, argv);
}
