/* osu_bibw: bidirectional bandwidth between ranks 0 and 1 (other ranks only
 * wait at the barriers): both send a window of nonblocking messages to each
 * other at once; the bytes of both directions count, as OSU's osu_bibw. */
#include "bench.h"
#include "window.h"

static int window;

static void run(size_t size, int n)
{
    if (bench_rank < 2)
        window_both(1 - bench_rank, size, window, n);
}

static long check(size_t size)
{
    return bench_rank < 2 ? window_check_both(1 - bench_rank, size, window) : 0;
}

int main(int argc, char **argv)
{
    struct bench b = {
        .name = "osu_bibw",
        .what = "bidirectional bandwidth: ranks 0 and 1 send windows of nonblocking messages to each other",
        .metric = BENCH_BANDWIDTH, .min_ranks = 2, .sized = 1, .has_window = 1,
        .opts = { .min_size = 1, .max_size = 4 << 20, .iters = 100, .large_iters = 20,
                  .warmup = 10, .batches = 5, .window = 64, .batch_bytes = 512 << 20 },
        .run = run, .check = check,
    };
    bench_init(&b, &argc, &argv);
    window = b.opts.window;
    b.msgs_per_iter = 2.0 * window;
    window_setup(b.opts.max_size, window);
    return bench_sweep(&b);
}
