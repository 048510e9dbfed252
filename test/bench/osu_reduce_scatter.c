/* osu_reduce_scatter: MPI_Reduce_scatter_block latency (float, MPI_SUM);
 * size = bytes of the whole vector, each rank gets size / ranks. */
#include <mpi.h>

#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    MPI_Reduce_scatter_block(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* rank r gets block r of the sum */
static float expect(int rank, size_t k, size_t count)
{
    return osu_coll_sum((size_t)rank * count + k);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_reduce_scatter",
        .what = "MPI_Reduce_scatter_block latency, float MPI_SUM, size = whole vector",
        .sized = 1, .send_per_rank = 1, .size_is_total = 1, .call = call, .expect = expect,
    };
    return osu_coll_main(&c, argc, argv);
}
