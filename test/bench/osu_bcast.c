/* osu_bcast: MPI_Bcast latency from root 0; size = bytes broadcast. */
#include <mpi.h>

#include "bench.h"
#include "osu_coll.h"

static void call(float *send, float *recv, int count)
{
    (void)send;
    MPI_Bcast(recv, count, MPI_FLOAT, 0, MPI_COMM_WORLD);
}

static float expect(int rank, size_t k, size_t count)
{
    (void)rank, (void)count;
    return bench_value(0, k);
}

int main(int argc, char **argv)
{
    static const struct osu_coll c = {
        .name = "osu_bcast", .what = "MPI_Bcast latency, root 0, float data",
        .sized = 1, .data_in_recv = 1, .call = call, .expect = expect,
    };
    return osu_coll_main(&c, argc, argv);
}
