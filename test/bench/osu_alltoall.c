/* osu_alltoall: MPI_Alltoall latency; size = bytes sent to each rank. */
#include <mpi.h>

#include "bench.h"
#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    MPI_Alltoall(send, count, MPI_FLOAT, recv, count, MPI_FLOAT, MPI_COMM_WORLD);
}

/* block j of the result is block `rank` of rank j's send buffer */
static float expect(int rank, size_t k, size_t count)
{
    return bench_value((int)(k / count), (size_t)rank * count + k % count);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_alltoall", .what = "MPI_Alltoall latency, float data, size per pair of ranks",
        .sized = 1, .send_per_rank = 1, .recv_per_rank = 1, .call = call, .expect = expect,
    };
    return osu_coll_main(&c, argc, argv);
}
