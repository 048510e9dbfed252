/* osu_mbw_mr: multi-pair bandwidth. Rank r < n/2 sends windows of
 * nonblocking messages to rank r + n/2, all pairs at once; the bandwidth is
 * the sum over pairs (OSU's osu_mbw_mr, whose message rate is this bandwidth
 * divided by the size). */
#include "bench.h"
#include "window.h"

static int window, half;

static void run(size_t size, int n)
{
    if (bench_rank < half)
        window_send(bench_rank + half, size, window, n);
    else
        window_recv(bench_rank - half, size, window, n);
}

static long check(size_t size)
{
    if (bench_rank < half)
        return window_check_send(bench_rank + half, size, window);
    return window_check_recv(bench_rank - half, size, window);
}

int main(int argc, char **argv)
{
    struct bench b = {
        .name = "osu_mbw_mr",
        .what = "multi-pair bandwidth: rank r sends windows of nonblocking messages to rank r + n/2, all pairs at once",
        .metric = BENCH_BANDWIDTH, .min_ranks = 2, .even_ranks = 1, .sized = 1, .has_window = 1,
        .opts = { .min_size = 1, .max_size = 4 << 20, .iters = 100, .large_iters = 20,
                  .warmup = 10, .batches = 5, .window = 64, .batch_bytes = 512 << 20 },
        .run = run, .check = check,
    };
    bench_init(&b, &argc, &argv);
    window = b.opts.window;
    half = bench_size / 2;
    b.msgs_per_iter = (double)window * half;
    window_setup(b.opts.max_size, window);
    return bench_sweep(&b);
}
