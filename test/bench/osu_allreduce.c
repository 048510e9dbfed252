/* osu_allreduce: MPI_Allreduce latency (float, MPI_SUM); size = bytes of
 * the vector. */
#include <mpi.h>

#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static float expect(int rank, size_t k, size_t count)
{
    (void)rank, (void)count;
    return osu_coll_sum(k);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_allreduce", .what = "MPI_Allreduce latency, float MPI_SUM",
        .sized = 1, .call = call, .expect = expect,
    };
    return osu_coll_main(&c, argc, argv);
}
