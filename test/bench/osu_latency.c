/* osu_latency: ping-pong between ranks 0 and 1 (other ranks only wait at the
 * barriers); the latency is half the round trip, as OSU's osu_latency. */
#include "bench.h"

#include <string.h>

static unsigned char *sbuf, *rbuf;

static void run(size_t size, int n)
{
    for (int i = 0; i < n; i++) {
        if (bench_rank == 0) {
            MPI_Send(sbuf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (bench_rank == 1) {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
}

/* Rank 0 sends message 0, rank 1 checks it and answers with message 1. */
static long check(size_t size)
{
    long wrong = 0;
    if (bench_rank > 1)
        return 0;
    memset(rbuf, 0, size);
    bench_fill(sbuf, size, bench_rank);
    if (bench_rank == 0) {
        MPI_Send(sbuf, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wrong = bench_count_wrong(rbuf, size, 1);
    } else {
        MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wrong = bench_count_wrong(rbuf, size, 0);
        MPI_Send(sbuf, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    return wrong;
}

int main(int argc, char **argv)
{
    struct bench b = {
        .name = "osu_latency",
        .what = "point-to-point latency: blocking ping-pong between ranks 0 and 1, half the round trip",
        .metric = BENCH_LATENCY, .min_ranks = 2, .sized = 1,
        .opts = { .min_size = 0, .max_size = 4 << 20, .iters = 1000, .large_iters = 100,
                  .warmup = 100, .batches = 5, .batch_bytes = 512 << 20 },
        .run = run, .check = check,
    };
    bench_init(&b, &argc, &argv);
    b.time_scale = 0.5;
    b.msgs_per_iter = 2;
    sbuf = bench_alloc(b.opts.max_size);
    rbuf = bench_alloc(b.opts.max_size);
    return bench_sweep(&b);
}
