/* osu_reduce: MPI_Reduce latency to root 0 (float, MPI_SUM); size = bytes
 * of each rank's vector. */
#include <mpi.h>

#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    MPI_Reduce(send, recv, count, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}

static float expect(int rank, size_t k, size_t count)
{
    (void)rank, (void)count;
    return osu_coll_sum(k);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_reduce", .what = "MPI_Reduce latency, root 0, float MPI_SUM",
        .sized = 1, .root_only = 1, .call = call, .expect = expect,
    };
    return osu_coll_main(&c, argc, argv);
}
