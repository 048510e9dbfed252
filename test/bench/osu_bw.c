/* osu_bw: unidirectional bandwidth from rank 0 to rank 1 (other ranks only
 * wait at the barriers): windows of -W nonblocking sends, each acknowledged,
 * as OSU's osu_bw. With -d cuda (where built with device support) the
 * messages go from device memory to device memory. */
#include "bench.h"
#include "window.h"

static int window;

static void run(size_t size, int n)
{
    if (bench_rank == 0)
        window_send(1, size, window, n);
    else if (bench_rank == 1)
        window_recv(0, size, window, n);
}

static long check(size_t size)
{
    if (bench_rank == 0)
        return window_check_send(1, size, window);
    return bench_rank == 1 ? window_check_recv(0, size, window) : 0;
}

int main(int argc, char **argv)
{
    struct bench b = {
        .name = "osu_bw",
        .what = "point-to-point bandwidth: rank 0 sends windows of nonblocking messages to rank 1",
        .metric = BENCH_BANDWIDTH, .min_ranks = 2, .sized = 1, .has_window = 1,
        .opts = { .min_size = 1, .max_size = 4 << 20, .iters = 100, .large_iters = 20,
                  .warmup = 10, .batches = 5, .window = 64, .batch_bytes = 512 << 20 },
        .run = run, .check = check,
    };
#ifdef BENCH_DEVICE
    b.open_device = bench_device_open; /* -d cuda, -g */
#endif
    bench_init(&b, &argc, &argv);
    window = b.opts.window;
    b.msgs_per_iter = window;
    window_setup(b.opts.max_size, window);
    return bench_sweep(&b);
}
