/* osu_barrier: MPI_Barrier latency on all ranks (one row, size 0). */
#include <mpi.h>

#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    (void)send, (void)recv, (void)count;
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_barrier", .what = "MPI_Barrier latency", .call = call,
    };
    return osu_coll_main(&c, argc, argv);
}
