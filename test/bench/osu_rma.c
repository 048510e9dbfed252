/* The driver of the OSU-style RMA benchmarks; see osu_rma.h. */
#include "osu_rma.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* Bandwidth windows put operation j into slot j of the target (and of the
 * origin's buffer), so that a window's data is as big as it says; slots stop
 * at this many bytes and the operations beyond wrap around them (the same
 * pattern lands on a slot whichever operation writes it last). */
#define SLOT_BYTES ((size_t)16 << 20)

static const struct osu_rma *rma;
static int fence;        /* -s fence; else passive target with flush */
static int win_create;   /* -w create; else MPI_Win_allocate */
static int ops_per_iter; /* -W for bandwidth, else 1 */
static MPI_Win win;
static unsigned char *wmem; /* this rank's window memory */
static unsigned char *obuf; /* the origin's buffer: put and acc source, get destination */
static size_t wbytes;       /* window and obuf bytes */

/* What the current size has done since it began (all ranks count alike:
 * every rank calls run with the same n). */
static size_t cur_size = (size_t)-1;
static long iters_done;
/* Atomics at the origin: the operand, the fetched value, CAS's compare. */
static int64_t operand, fetched, expect;

static size_t slots_of(size_t size)
{
    size_t s;
    if (!rma->bandwidth || size == 0)
        return 1;
    s = SLOT_BYTES / size;
    if (s > (size_t)ops_per_iter)
        s = (size_t)ops_per_iter;
    return s ? s : 1;
}

/* Element k of slot j of an accumulate's operand: small, so that the sum of
 * every accumulate of a size stays far from overflow. */
static int acc_value(size_t j, size_t k)
{
    return (int)((k + 3 * j) % 7 + 1);
}

/* Accumulates that land on slot j after `iters` iterations. */
static long slot_ops(size_t j, size_t slots, long iters)
{
    size_t per = (size_t)ops_per_iter / slots, extra = (size_t)ops_per_iter % slots;
    return iters * (long)(per + (j < extra));
}

/* A new size: the target's slots and the origin's buffer start afresh, and
 * every rank agrees that they did before any operation of the size (the
 * target's stores reach the window before the origin's operations). */
static void prepare(size_t size)
{
    size_t slots = slots_of(size);

    if (bench_rank == 1) {
        switch (rma->op) {
        case OSU_RMA_GET:
            for (size_t j = 0; j < slots; j++)
                bench_fill(wmem + j * size, size, (int)j);
            break;
        default: /* put: zero; acc: zero sums; fop, cas: the counter 0 */
            memset(wmem, 0, size * slots > 8 ? size * slots : 8);
            break;
        }
    } else if (bench_rank == 0) {
        switch (rma->op) {
        case OSU_RMA_PUT:
            for (size_t j = 0; j < slots; j++)
                bench_fill(obuf + j * size, size, (int)j);
            break;
        case OSU_RMA_GET:
            memset(obuf, 0, size * slots);
            break;
        case OSU_RMA_ACC:
            for (size_t j = 0; j < slots; j++)
                for (size_t k = 0; k < size / sizeof(int); k++)
                    ((int *)(obuf + j * size))[k] = acc_value(j, k);
            break;
        case OSU_RMA_FOP:
            operand = 1;
            fetched = -1;
            break;
        case OSU_RMA_CAS:
            expect = 0;
            fetched = -1;
            break;
        }
    }
    if (fence) {
        MPI_Win_fence(0, win);
    } else {
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    cur_size = size;
    iters_done = 0;
}

/* Operation j of an iteration, from rank 0. */
static void issue(size_t size, size_t j)
{
    size_t slot = j % slots_of(size);
    unsigned char *o = obuf + slot * size;
    MPI_Aint disp = (MPI_Aint)(slot * size);

    switch (rma->op) {
    case OSU_RMA_PUT:
        MPI_Put(o, (int)size, MPI_BYTE, 1, disp, (int)size, MPI_BYTE, win);
        break;
    case OSU_RMA_GET:
        MPI_Get(o, (int)size, MPI_BYTE, 1, disp, (int)size, MPI_BYTE, win);
        break;
    case OSU_RMA_ACC:
        MPI_Accumulate(o, (int)(size / sizeof(int)), MPI_INT, 1, disp,
                       (int)(size / sizeof(int)), MPI_INT, MPI_SUM, win);
        break;
    case OSU_RMA_FOP:
        MPI_Fetch_and_op(&operand, &fetched, MPI_INT64_T, 1, 0, MPI_SUM, win);
        break;
    case OSU_RMA_CAS:
        operand = expect + 1;
        MPI_Compare_and_swap(&operand, &expect, &fetched, MPI_INT64_T, 1, 0, win);
        break;
    }
}

static void run(size_t size, int n)
{
    if (size != cur_size)
        prepare(size);
    for (int i = 0; i < n; i++) {
        if (bench_rank == 0) {
            for (int j = 0; j < ops_per_iter; j++)
                issue(size, (size_t)j);
        }
        if (fence)
            MPI_Win_fence(0, win);
        else if (bench_rank == 0)
            MPI_Win_flush(1, win);
        /* The swap succeeded (the origin alone writes the counter): the next
         * one expects what this one wrote. A failure shows in the check. */
        if (rma->op == OSU_RMA_CAS && bench_rank == 0)
            expect = fetched == expect ? operand : fetched;
    }
    iters_done += n;
}

/* After the size's last batch (and a barrier): what every operation since
 * prepare must have left. Returns the wrong bytes or elements. */
static long check(size_t size)
{
    size_t slots = slots_of(size);
    size_t used = slots < (size_t)ops_per_iter ? slots : (size_t)ops_per_iter;
    long wrong = 0;

    if (!fence)
        MPI_Win_sync(win); /* the origin's flushed operations, to our loads */
    if (bench_rank == 1) {
        switch (rma->op) {
        case OSU_RMA_PUT:
            for (size_t j = 0; j < used; j++)
                wrong += bench_count_wrong(wmem + j * size, size, (int)j);
            break;
        case OSU_RMA_ACC:
            for (size_t j = 0; j < used; j++) {
                long times = slot_ops(j, slots, iters_done);
                for (size_t k = 0; k < size / sizeof(int); k++)
                    wrong += ((int *)(wmem + j * size))[k] != times * acc_value(j, k);
            }
            break;
        case OSU_RMA_FOP:
        case OSU_RMA_CAS:
            wrong += *(int64_t *)wmem != iters_done;
            break;
        default:
            break;
        }
    } else if (bench_rank == 0) {
        switch (rma->op) {
        case OSU_RMA_GET:
            for (size_t j = 0; j < used; j++)
                wrong += bench_count_wrong(obuf + j * size, size, (int)j);
            break;
        case OSU_RMA_FOP: /* the last add fetched the count before it */
        case OSU_RMA_CAS: /* the last swap fetched what the one before wrote */
            wrong += iters_done > 0 && fetched != iters_done - 1;
            break;
        default:
            break;
        }
    }
    return wrong;
}

static int option(int c, const char *arg)
{
    if (c == 's' && (strcmp(arg, "flush") == 0 || strcmp(arg, "fence") == 0)) {
        fence = strcmp(arg, "fence") == 0;
        return 0;
    }
    if (c == 'w' && (strcmp(arg, "allocate") == 0 || strcmp(arg, "create") == 0)) {
        win_create = strcmp(arg, "create") == 0;
        return 0;
    }
    return -1;
}

static void teardown(void)
{
    if (!fence)
        MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

int osu_rma_main(const struct osu_rma *r, int argc, char **argv)
{
    int atomic = r->op == OSU_RMA_FOP || r->op == OSU_RMA_CAS;
    static char what[400];
    struct bench b = {
        .name = r->name, .what = r->what,
        .metric = r->bandwidth ? BENCH_BANDWIDTH : BENCH_LATENCY,
        .min_ranks = 2, .sized = !atomic, .fixed_size = atomic ? sizeof(int64_t) : 0,
        .has_window = r->bandwidth,
        .opts = { .min_size = 1, .max_size = 1 << 20, .iters = r->bandwidth ? 100 : 1000,
                  .large_iters = r->bandwidth ? 20 : 100, .warmup = r->bandwidth ? 10 : 100,
                  .batches = 5, .window = 64, .batch_bytes = 512 << 20, .check = 1 },
        .run = run, .check = check, .teardown = teardown,
        .extra_opts = "s:w:",
        .extra_usage =
            "  -s SYNC     flush: passive target, MPI_Win_lock_all once on every rank, then\n"
            "              MPI_Win_flush after each operation (bandwidth: each window of -W);\n"
            "              fence: MPI_Win_fence on every rank after each operation (window)\n"
            "              (default flush)\n"
            "  -w WIN      allocate: window memory from MPI_Win_allocate; create: the\n"
            "              program's own (page-aligned) with MPI_Win_create (default allocate)\n"
            "              the data is always checked once per size (-c changes nothing)\n",
        .option = option,
    };
    /* At least a page: in an MPI_Win_allocate window of 8 bytes MPICH
     * 4.0.2's atomics never reached the target's memory (README.md). */
    size_t max_bytes = 4096;

    rma = r;
    bench_init(&b, &argc, &argv);
    ops_per_iter = r->bandwidth ? b.opts.window : 1;
    b.msgs_per_iter = ops_per_iter;
    if (r->op == OSU_RMA_ACC)
        b.size_min = sizeof(int); /* less than one element: skipped */
    /* The most any size needs: size x its slots, over the sizes swept. */
    if (!atomic) {
        for (size_t s = b.opts.min_size;; s = s ? 2 * s : 1) {
            if (s * slots_of(s) > max_bytes)
                max_bytes = s * slots_of(s);
            if (s >= b.opts.max_size)
                break;
        }
    }
    wbytes = max_bytes;
    if (win_create) {
        wmem = bench_alloc(wbytes);
        MPI_Win_create(wmem, (MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate((MPI_Aint)wbytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
        memset(wmem, 0, wbytes); /* every page touched before the timing */
    }
    obuf = bench_buffer(wbytes); /* -M: from malloc */
    if (!fence)
        MPI_Win_lock_all(0, win);
    snprintf(what, sizeof what, "%s; %s after each %s; window from %s", r->what,
             fence ? "fence: MPI_Win_fence on every rank"
                   : "passive target: MPI_Win_lock_all once, MPI_Win_flush",
             r->bandwidth ? "window of -W operations" : "operation",
             win_create ? "MPI_Win_create" : "MPI_Win_allocate");
    b.what = what;
    return bench_sweep(&b);
}
