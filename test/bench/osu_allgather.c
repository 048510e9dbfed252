/* osu_allgather: MPI_Allgather latency; size = bytes each rank contributes
 * (each receives size x ranks). */
#include <mpi.h>

#include "bench.h"
#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    MPI_Allgather(send, count, MPI_FLOAT, recv, count, MPI_FLOAT, MPI_COMM_WORLD);
}

/* block j of the result is rank j's vector */
static float expect(int rank, size_t k, size_t count)
{
    (void)rank;
    return bench_value((int)(k / count), k % count);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_allgather", .what = "MPI_Allgather latency, float data, size per rank",
        .sized = 1, .recv_per_rank = 1, .call = call, .expect = expect,
    };
    return osu_coll_main(&c, argc, argv);
}
