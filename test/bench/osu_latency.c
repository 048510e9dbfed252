/* osu_latency: ping-pong between ranks 0 and 1 (other ranks only wait at the
 * barriers); the latency is half the round trip, as OSU's osu_latency. */
#include "bench.h"

#include <string.h>

/* sbuf, rbuf: bench_buffer memory (device with -d cuda); host: where the
 * checked messages are filled and read. */
static unsigned char *sbuf, *rbuf, *host;

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
    memset(host, 0, size);
    bench_upload(rbuf, host, size);
    bench_fill(host, size, bench_rank);
    bench_upload(sbuf, host, size);
    if (bench_rank == 0) {
        MPI_Send(sbuf, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(rbuf, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    bench_download(host, rbuf, size);
    wrong = bench_count_wrong(host, size, 1 - bench_rank);
    if (bench_rank == 1)
        MPI_Send(sbuf, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
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
#ifdef BENCH_DEVICE
    b.open_device = bench_device_open; /* -d cuda, -g */
#endif
    bench_init(&b, &argc, &argv);
    b.time_scale = 0.5;
    b.msgs_per_iter = 2;
    sbuf = bench_buffer(b.opts.max_size);
    rbuf = bench_buffer(b.opts.max_size);
    host = bench_alloc(b.opts.max_size);
    return bench_sweep(&b);
}
