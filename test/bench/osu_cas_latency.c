/* osu_cas_latency: MPI_Compare_and_swap latency: rank 0 swaps an int64_t in
 * rank 1's window, each swap succeeding; see osu_rma.h for -s (flush or
 * fence) and -w (allocate or create). */
#include "osu_rma.h"

int main(int argc, char **argv)
{
    static const struct osu_rma r = {
        .name = "osu_cas_latency",
        .what = "MPI_Compare_and_swap latency: rank 0 swaps an int64_t in rank 1's "
                "window, each swap succeeding",
        .op = OSU_RMA_CAS,
    };
    return osu_rma_main(&r, argc, argv);
}
