/* coll_perf: collective bandwidth in the style of nccl-tests: one collective
 * (-C allreduce|allgather|reduce_scatter|bcast|alltoall) over sizes -b to -e
 * growing by -f, any predefined type (-d) and reduction (-o), optionally on
 * device buffers (--device, through the CUDA driver opened at run time).
 * Columns: size, count, type, redop, time, algbw, busbw, #wrong, where
 * algbw = size / time and busbw = algbw x the factor that makes it comparable
 * to the link bandwidth (nccl-tests' PERFORMANCE.md): 2(n-1)/n for allreduce,
 * (n-1)/n for allgather, reduce_scatter and alltoall, 1 for bcast. size is the
 * largest buffer of a rank: the vector (allreduce, bcast), the gathered
 * result (allgather), the input (reduce_scatter), all blocks (alltoall). The
 * time is the median over -r batches of -n calls of the slowest rank's time
 * per call. One call per size is checked (#wrong) unless -c 0.
 *
 * The library measured is behind coll_perf.h: MPI (coll_mpi.c, the program
 * coll_perf) or NCCL (coll_nccl.c, coll_perf_nccl). */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "coll_perf.h"
#include "devmem.h"

static const char *const coll_names[] = { "allreduce", "allgather", "reduce_scatter", "bcast",
                                          "alltoall" };

static const struct { const char *name; size_t size; } types[] = {
    [F32] = { "float", 4 }, [F64] = { "double", 8 }, [I8] = { "int8", 1 },  [U8] = { "uint8", 1 },
    [I32] = { "int32", 4 }, [U32] = { "uint32", 4 }, [I64] = { "int64", 8 }, [U64] = { "uint64", 8 },
};
static const char *const op_names[] = { "sum", "prod", "max", "min" };

static struct {
    enum coll coll;
    enum type type;
    enum op op;
    size_t min_bytes, max_bytes;
    double factor;
    int iters, warmup, batches, check, device;
} opt = { ALLREDUCE, F32, SUM, 8, 32 << 20, 2, 20, 5, 5, 1, 0 }; /* checked, as nccl-tests */

/* Element i of buf, as a double, and back: the check works on small
 * integers, exact in every type. */
static void put(void *buf, size_t i, double v)
{
    switch (opt.type) {
    case F32: ((float *)buf)[i] = (float)v; break;
    case F64: ((double *)buf)[i] = v; break;
    case I8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    }
}

static double get(const void *buf, size_t i)
{
    switch (opt.type) {
    case F32: return ((const float *)buf)[i];
    case F64: return ((const double *)buf)[i];
    case I8: return ((const int8_t *)buf)[i];
    case U8: return ((const uint8_t *)buf)[i];
    case I32: return ((const int32_t *)buf)[i];
    case U32: return ((const uint32_t *)buf)[i];
    case I64: return (double)((const int64_t *)buf)[i];
    default: return (double)((const uint64_t *)buf)[i];
    }
}

/* Element k of rank r's input. For prod, one rank in n contributes 2 and the
 * others 1, so that products do not overflow small types. */
static int reduces(void)
{
    return opt.coll == ALLREDUCE || opt.coll == REDUCE_SCATTER;
}

static double value(int r, size_t k)
{
    if (opt.op == PROD && reduces())
        return 1 + (((size_t)r + k) % (size_t)bench_size == 0);
    return (double)(((size_t)r + 3 * k) % 5);
}

static double reduce_all(size_t k)
{
    double acc = value(0, k);
    for (int r = 1; r < bench_size; r++) {
        double v = value(r, k);
        switch (opt.op) {
        case SUM: acc += v; break;
        case PROD: acc *= v; break;
        case MAX: acc = v > acc ? v : acc; break;
        case MIN: acc = v < acc ? v : acc; break;
        }
    }
    return acc;
}

/* Element counts of one call at `bytes`: per-rank block, send and receive. */
struct counts { size_t block, nsend, nrecv; };

static struct counts counts_for(size_t bytes)
{
    size_t count = bytes / types[opt.type].size, n = (size_t)bench_size;
    switch (opt.coll) {
    case ALLREDUCE: return (struct counts){ count, count, count };
    case BCAST: return (struct counts){ count, 0, count };
    case ALLGATHER: return (struct counts){ count / n, count / n, count / n * n };
    case REDUCE_SCATTER: return (struct counts){ count / n, count / n * n, count / n };
    default: return (struct counts){ count / n, count / n * n, count / n * n };
    }
}

static double bus_factor(void)
{
    double n = bench_size;
    switch (opt.coll) {
    case ALLREDUCE: return 2 * (n - 1) / n;
    case BCAST: return 1;
    default: return (n - 1) / n;
    }
}

static void call(void *send, void *recv, const struct counts *c)
{
    struct coll_call one = { opt.coll, opt.type, opt.op, c->block, types[opt.type].size, send, recv };
    coll_lib_call(&one);
}

static double expected(size_t k, size_t block)
{
    int me = bench_rank;
    switch (opt.coll) {
    case ALLREDUCE: return reduce_all(k);
    case BCAST: return value(0, k);
    case ALLGATHER: return value((int)(k / block), k % block);
    case REDUCE_SCATTER: return reduce_all((size_t)me * block + k);
    default: return value((int)(k / block), (size_t)me * block + k % block);
    }
}

static void device_copy_failed(const char *what)
{
    fprintf(stderr, "%s: rank %d: copying %s failed\n", coll_lib_program, bench_rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Copies from the host staging buffer into a buffer of the collective. */
static void upload(void *buf, const void *host, size_t bytes)
{
    if (!opt.device) {
        memcpy(buf, host, bytes);
        return;
    }
    /* From pageable memory the copy may still be in flight on return, and
     * NCCL's stream does not wait for the legacy stream that runs it. */
    if (devmem_to_device(buf, host, bytes) != 0 || devmem_sync() != 0)
        device_copy_failed("the input to the GPU");
}

static void download(void *host, const void *buf, size_t bytes)
{
    if (!opt.device)
        memcpy(host, buf, bytes);
    else if (devmem_to_host(host, buf, bytes) != 0)
        device_copy_failed("the result from the GPU");
}

/* host: staging buffer; send, recv: the buffers the collective uses (device
 * or host). Returns this rank's wrong elements. */
static long check(void *host, void *send, void *recv, const struct counts *c)
{
    size_t tsize = types[opt.type].size;
    long wrong = 0;
    unsigned char one[8];

    for (size_t k = 0; k < c->nsend; k++)
        put(host, k, value(bench_rank, k));
    upload(send, host, c->nsend * tsize);
    for (size_t k = 0; k < c->nrecv; k++)
        put(host, k, opt.coll == BCAST && bench_rank == 0 ? value(0, k) : 111);
    upload(recv, host, c->nrecv * tsize);
    call(send, recv, c);
    coll_lib_wait();
    download(host, recv, c->nrecv * tsize);
    for (size_t k = 0; k < c->nrecv; k++) {
        put(one, 0, expected(k, c->block)); /* in the type, as the library computes it */
        wrong += get(host, k) != get(one, 0);
    }
    return wrong;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: %s [options]  (nccl-tests style; see test/bench/README.md)\n",
            coll_lib_program);
    fprintf(f,
            "  -C, --coll NAME   allreduce (default), allgather, reduce_scatter, bcast, alltoall\n"
            "  -b, --minbytes N  smallest size (default 8; K M G suffixes)\n"
            "  -e, --maxbytes N  largest size (default 32M)\n"
            "  -f, --stepfactor F  size multiplier (default 2)\n"
            "  -d, --datatype T  float double int int8 uint8 int32 uint32 int64 uint64 (default float)\n"
            "  -o, --op OP       sum prod max min (default sum; reductions only)\n"
            "  -n, --iters N     timed calls per batch (default 20)\n"
            "  -w, --warmup_iters N  untimed calls before each size (default 5)\n"
            "  -r, --batches N   timed batches per size, the time is their median (default 5)\n"
            "  -c, --check [0|1] check the result of one call per size (#wrong column; default 1)\n"
            "      --device      device buffers (cudaMalloc'd through the CUDA driver); exits 77\n"
            "                    when no GPU is found. The MPI must accept device pointers.\n"
            "  -h, --help        this help\n");
    if (coll_lib_device_only)
        fprintf(f, "%s: device buffers always (--device is implied)\n", coll_lib_program);
}

static int lookup(const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int parse(int argc, char **argv)
{
    static const struct option longs[] = {
        { "coll", 1, 0, 'C' },  { "minbytes", 1, 0, 'b' },     { "maxbytes", 1, 0, 'e' },
        { "stepfactor", 1, 0, 'f' }, { "datatype", 1, 0, 'd' }, { "op", 1, 0, 'o' },
        { "iters", 1, 0, 'n' }, { "warmup_iters", 1, 0, 'w' }, { "batches", 1, 0, 'r' },
        { "check", 2, 0, 'c' }, { "device", 0, 0, 'D' },        { "help", 0, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    static const char *const tnames[] = { "float", "double", "int8", "uint8", "int32", "uint32",
                                          "int64", "uint64" };
    int c, i;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "C:b:e:f:d:o:n:w:r:c::h", longs, NULL)) != -1) {
        switch (c) {
        case 'C': if ((i = lookup(optarg, coll_names, 5)) < 0) return -1; opt.coll = i; break;
        case 'b': if (bench_parse_size(optarg, &opt.min_bytes)) return -1; break;
        case 'e': if (bench_parse_size(optarg, &opt.max_bytes)) return -1; break;
        case 'f': opt.factor = atof(optarg); if (opt.factor <= 1) return -1; break;
        case 'd':
            if (strcmp(optarg, "int") == 0) { opt.type = I32; break; }
            if ((i = lookup(optarg, tnames, 8)) < 0) return -1;
            opt.type = i;
            break;
        case 'o': if ((i = lookup(optarg, op_names, 4)) < 0) return -1; opt.op = i; break;
        case 'n': if ((opt.iters = atoi(optarg)) < 1) return -1; break;
        case 'w': if ((opt.warmup = atoi(optarg)) < 0) return -1; break;
        case 'r': if ((opt.batches = atoi(optarg)) < 1) return -1; break;
        case 'c':
            /* -c, -c1, and also "-c 1" / "-c 0" as nccl-tests takes them */
            if (!optarg && optind < argc && (!strcmp(argv[optind], "0") || !strcmp(argv[optind], "1")))
                optarg = argv[optind++];
            opt.check = optarg ? atoi(optarg) != 0 : 1;
            break;
        case 'D': opt.device = 1; break;
        case 'h': return 1;
        default: return -1;
        }
    }
    if (optind != argc || opt.min_bytes > opt.max_bytes || opt.max_bytes > ((size_t)1 << 31))
        return -1;
    return 0;
}

void coll_skip_unless_all_ok(int bad, const char *why, int local_rank)
{
    int any_bad;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any_bad)
        return;
    if (bad && (bench_rank == 0 || local_rank == 0)) /* one line per host */
        fprintf(stderr, "%s: rank %d: %s\n", coll_lib_program, bench_rank, why);
    MPI_Finalize();
    exit(77);
}

/* This rank's place among the ranks of its host. */
static void local_place(int *local_rank, int *local_size)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, local_rank);
    MPI_Comm_size(node, local_size);
    MPI_Comm_free(&node);
}

/* Every rank gets a device or all leave with 77. */
static void open_device(int local_rank)
{
    char why[160] = "--device: ";
    size_t used = strlen(why);
    int bad = devmem_init(local_rank, why + used, sizeof why - used) != 0;
    coll_skip_unless_all_ok(bad, why, local_rank);
}

static void *buffer(size_t bytes)
{
    void *p = opt.device ? devmem_alloc(bytes) : bench_alloc(bytes);
    if (!p) {
        fprintf(stderr, "%s: cannot allocate %zu bytes of %s memory\n", coll_lib_program, bytes,
                opt.device ? "device" : "host");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static void header(void)
{
    char ver[256];
    coll_lib_version(ver, sizeof ver);
    printf("# %s %s: %d ranks, %s memory; %s\n", coll_lib_program, coll_names[opt.coll], bench_size,
           opt.device ? "device" : "host", ver);
    printf("# minBytes %zu maxBytes %zu step: %g(factor) warmup iters: %d iters: %d batches: %d validation: %d\n",
           opt.min_bytes, opt.max_bytes, opt.factor, opt.warmup, opt.iters, opt.batches, opt.check);
    printf("#%11s %13s %9s %7s %10s %8s %8s %7s\n", "size", "count", "type", "redop", "time",
           "algbw", "busbw", "#wrong");
    printf("#%11s %13s %9s %7s %10s %8s %8s %7s\n", "(B)", "(elements)", "", "", "(us)", "(GB/s)",
           "(GB/s)", "");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int status = 0, rows = 0, local_rank, local_size;
    long total_wrong = 0;
    double busbw_sum = 0, *t;
    void *send, *recv, *host;
    size_t tsize, last = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_size);
    if ((status = parse(argc, argv)) != 0) {
        if (bench_rank == 0)
            usage(status > 0 ? stdout : stderr);
        MPI_Finalize();
        return status > 0 ? 0 : 2;
    }
    opt.device |= coll_lib_device_only;
    local_place(&local_rank, &local_size);
    if (opt.device)
        open_device(local_rank);
    coll_lib_open(local_rank, local_size);
    tsize = types[opt.type].size;
    send = buffer(opt.max_bytes);
    recv = buffer(opt.max_bytes);
    host = bench_alloc(opt.max_bytes);
    t = malloc((size_t)opt.batches * sizeof *t);
    if (bench_rank == 0)
        header();

    for (double s = (double)opt.min_bytes; s <= (double)opt.max_bytes; s *= opt.factor) {
        size_t bytes = (size_t)s;
        struct counts c = counts_for(bytes);
        size_t size = (c.nsend > c.nrecv ? c.nsend : c.nrecv) * tsize;
        double med, min, max, algbw;
        long wrong = 0;

        if (c.block == 0 || size == last)
            continue;
        last = size;
        for (int i = 0; i < opt.warmup; i++)
            call(send, recv, &c);
        coll_lib_wait();
        for (int b = 0; b < opt.batches; b++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < opt.iters; i++)
                call(send, recv, &c);
            coll_lib_wait();
            t[b] = bench_max((MPI_Wtime() - t0) / opt.iters);
        }
        if (opt.check) {
            wrong = bench_sum(check(host, send, recv, &c));
            total_wrong += wrong;
        }
        if (bench_rank != 0)
            continue;
        bench_stats(t, opt.batches, &med, &min, &max);
        algbw = (double)size / med / 1e9;
        busbw_sum += algbw * bus_factor();
        rows++;
        printf("%12zu %13zu %9s %7s %10.2f %8.2f %8.2f", size, size / tsize, types[opt.type].name,
               reduces() ? op_names[opt.op] : "none", med * 1e6, algbw, algbw * bus_factor());
        if (opt.check)
            printf(" %7ld\n", wrong);
        else
            printf(" %7s\n", "N/A");
        fflush(stdout);
    }
    if (bench_rank == 0) {
        printf("# Avg bus bandwidth    : %g\n", rows ? busbw_sum / rows : 0.0);
        if (total_wrong)
            fprintf(stderr, "%s: %ld wrong elements\n", coll_lib_program, total_wrong);
    }
    coll_lib_close();
    MPI_Finalize();
    return total_wrong ? 1 : 0;
}
