/* The driver of the OSU-style collective benchmarks; see osu_coll.h. */
#include "osu_coll.h"

#include <mpi.h>

#include "bench.h"

static const struct osu_coll *coll;
static float *sbuf, *rbuf;

static int block_count(size_t size)
{
    return (int)(size / sizeof(float) / (coll->size_is_total ? (size_t)bench_size : 1));
}

static void run(size_t size, int n)
{
    int count = block_count(size);
    for (int i = 0; i < n; i++)
        coll->call(sbuf, rbuf, count);
}

static long check(size_t size)
{
    size_t count = (size_t)block_count(size);
    size_t ns = count * (coll->send_per_rank ? (size_t)bench_size : 1);
    size_t nr = count * (coll->recv_per_rank ? (size_t)bench_size : 1);
    long wrong = 0;

    if (!coll->sized)
        return 0;
    for (size_t k = 0; k < ns; k++)
        sbuf[k] = bench_value(bench_rank, k);
    for (size_t k = 0; k < nr; k++)
        rbuf[k] = coll->data_in_recv ? bench_value(bench_rank, k) : -1.0f;
    coll->call(sbuf, rbuf, (int)count);
    if (coll->root_only && bench_rank != 0)
        return 0;
    for (size_t k = 0; k < nr; k++)
        wrong += rbuf[k] != coll->expect(bench_rank, k, count);
    return wrong;
}

float osu_coll_sum(size_t k)
{
    float s = 0;
    for (int r = 0; r < bench_size; r++)
        s += bench_value(r, k);
    return s;
}

int osu_coll_main(const struct osu_coll *c, int argc, char **argv)
{
    struct bench b = {
        .name = c->name, .what = c->what,
        .metric = BENCH_LATENCY, .min_ranks = 1, .sized = c->sized,
        .opts = { .min_size = 4, .max_size = 1 << 20, .iters = 1000, .large_iters = 100,
                  .warmup = 100, .batches = 5, .batch_bytes = 512 << 20 },
        .run = run, .check = check,
    };
    size_t blocks;

    coll = c;
    bench_init(&b, &argc, &argv);
    b.size_min = c->sized ? sizeof(float) * (c->size_is_total ? (size_t)bench_size : 1) : 0;
    /* a batch moves about size x ranks bytes per call (x ranks again for alltoall) */
    b.msgs_per_iter = (double)bench_size * (c->send_per_rank && c->recv_per_rank ? bench_size : 1);
    blocks = c->size_is_total ? 1 : (size_t)bench_size;
    sbuf = bench_alloc(b.opts.max_size * (c->send_per_rank ? blocks : 1));
    rbuf = bench_alloc(b.opts.max_size * (c->recv_per_rank ? blocks : 1));
    return bench_sweep(&b);
}
