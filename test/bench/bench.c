/* The OSU-style sweep shared by test/bench/osu_*.c; see bench.h. */
#include "bench.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bench_rank, bench_size;
static int malloc_buffers; /* -M */

static void usage(const struct bench *b, FILE *f)
{
    const struct bench_opts *o = &b->opts;
    fprintf(f, "usage: %s [options]\n%s\n", b->name, b->what);
    if (b->sized)
        fprintf(f, "  -m MIN:MAX  message sizes in bytes, doubling (default %zu:%zu; K M G suffixes)\n",
                o->min_size, o->max_size);
    else
        fprintf(f, "  -m MIN:MAX  ignored (no message size)\n");
    fprintf(f,
            "  -i N        timed iterations per batch (default %d%s)\n"
            "  -I N        the same above %d bytes (default %d)\n"
            "  -x N        warm-up iterations before each size (default %d)\n"
            "  -n N        timed batches per size: median, min and max over them (default %d)\n"
            "  -B BYTES    at most this many bytes per batch at large sizes (default %zu)\n"
            "  -T MS       more iterations where a batch would take less than MS milliseconds\n"
            "              (default 0: none). Beside busy processes, a batch shorter than the\n"
            "              scheduler's time slices measures whether one of theirs fell into it\n",
            o->iters, b->sized ? ", up to 8 KiB" : "", BENCH_LARGE, o->large_iters, o->warmup,
            o->batches, o->batch_bytes);
    if (b->has_window)
        fprintf(f, "  -W N        messages in flight per window (default %d)\n", o->window);
    if (b->extra_usage)
        fprintf(f, "%s", b->extra_usage);
    fprintf(f, "  -c          check the received data once per size (adds a #wrong column)\n"
               "  -M          message buffers from malloc, at least 1 MiB each, %d bytes in (glibc\n"
               "              maps blocks this big outside the heap: the memory-type check an\n"
               "              MPI makes per call on host buffers is not the cheap one)\n",
            BENCH_MALLOC_OFFSET);
    if (b->open_device)
        fprintf(f, "  -d cuda     buffers in GPU memory (exit 77 when no GPU is usable)\n"
                   "  -g          open a CUDA context on the GPU first; buffers stay on the host\n");
    fprintf(f, "  -h          this help\n");
}

/* Only rank 0 prints; every rank leaves. */
static void leave(int status, const char *msg)
{
    if (msg && bench_rank == 0)
        fprintf(stderr, "%s\n", msg);
    MPI_Finalize();
    exit(status);
}

static int parse_int(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0 || v > 1000000000)
        return -1;
    *out = (int)v;
    return 0;
}

int bench_parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return -1;
    switch (*end) {
    case 'G': case 'g': v <<= 10; /* fall through */
    case 'M': case 'm': v <<= 10; /* fall through */
    case 'K': case 'k': v <<= 10; end++; break;
    }
    if (*end != '\0')
        return -1;
    *out = (size_t)v;
    return 0;
}

/* -d cuda|host */
static int parse_memory(const char *s, int *device)
{
    if (strcmp(s, "cuda") != 0 && strcmp(s, "host") != 0)
        return -1;
    *device = strcmp(s, "cuda") == 0;
    return 0;
}

static int parse_range(const char *s, size_t *min, size_t *max)
{
    char buf[64];
    char *colon;
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    colon = strchr(buf, ':');
    if (!colon)  /* -m MAX, as OSU */
        return bench_parse_size(buf, max);
    *colon = '\0';
    if ((buf[0] && bench_parse_size(buf, min)) || bench_parse_size(colon + 1, max))
        return -1;
    return *min <= *max ? 0 : -1;
}

/* -d cuda or -g: every rank opens its GPU, or all leave (77: skipped). */
static void open_device(const struct bench *b)
{
    char why[200] = "built without device support (no -d, no -g)";
    int failed, any_failed;

    failed = !b->open_device || b->open_device(b->opts.device, why, sizeof why) != 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any_failed)
        return;
    if (failed)
        fprintf(stderr, "%s: rank %d: skipped: %s\n", b->name, bench_rank, why);
    MPI_Finalize();
    exit(b->open_device ? 77 : 2);
}

void bench_init(struct bench *b, int *argc, char ***argv)
{
    struct bench_opts *o = &b->opts;
    int c, bad = 0;
    char msg[160], optstring[64] = "m:i:I:x:n:B:T:W:cd:gMh";

    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_size);
    if (b->extra_opts && strlen(optstring) + strlen(b->extra_opts) < sizeof optstring)
        strcat(optstring, b->extra_opts);
    opterr = 0;
    while ((c = getopt(*argc, *argv, optstring)) != -1) {
        switch (c) {
        case 'm': bad |= parse_range(optarg, &o->min_size, &o->max_size); break;
        case 'i': bad |= parse_int(optarg, &o->iters) || o->iters < 1; break;
        case 'I': bad |= parse_int(optarg, &o->large_iters) || o->large_iters < 1; break;
        case 'x': bad |= parse_int(optarg, &o->warmup); break;
        case 'n': bad |= parse_int(optarg, &o->batches) || o->batches < 1; break;
        case 'B': bad |= bench_parse_size(optarg, &o->batch_bytes); break;
        case 'T': bad |= parse_int(optarg, &o->min_batch_ms) || o->min_batch_ms < 0; break;
        case 'W': bad |= !b->has_window || parse_int(optarg, &o->window) || o->window < 1; break;
        case 'c': o->check = 1; break;
        case 'd': bad |= parse_memory(optarg, &o->device); break;
        case 'g': o->cuda_context = 1; break;
        case 'M': o->malloc_buffers = 1; break;
        case 'h':
            if (bench_rank == 0)
                usage(b, stdout);
            leave(0, NULL);
            break;
        default:
            if (c != '?' && c != ':' && b->option && b->extra_opts && strchr(b->extra_opts, c))
                bad |= b->option(c, optarg) != 0;
            else
                bad = 1;
            break;
        }
    }
    if (o->max_size > ((size_t)1 << 30))  /* counts are int; windows multiply it */
        bad = 1;
    if (o->malloc_buffers && o->device)
        bad = 1;
    if (bad || optind != *argc) {
        if (bench_rank == 0)
            usage(b, stderr);
        leave(2, NULL);
    }
    if (bench_size < b->min_ranks || (b->even_ranks && bench_size % 2)) {
        snprintf(msg, sizeof msg, "%s: needs %s%d ranks or more, not %d", b->name,
                 b->even_ranks ? "an even number of, " : "", b->min_ranks, bench_size);
        leave(2, msg);
    }
    malloc_buffers = o->malloc_buffers;
    if (o->device || o->cuda_context)
        open_device(b);
    b->time_scale = 1.0;
    b->msgs_per_iter = 1.0;
    b->size_min = 0;
}

void *bench_alloc(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = NULL;
    if (bytes < page)
        bytes = page;
    if (posix_memalign(&p, page, bytes) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0xa5, bytes); /* fault every page in now, not in the timed loop */
    return p;
}

static void host_upload(void *buf, const void *host, size_t bytes)
{
    memcpy(buf, host, bytes);
}

static void host_download(void *host, const void *buf, size_t bytes)
{
    memcpy(host, buf, bytes);
}

struct bench_memory bench_memory = { "host", bench_alloc, host_upload, host_download };

/* -M: never freed, like bench_alloc's buffers. */
static void *malloc_buffer(size_t bytes)
{
    size_t block = bytes + BENCH_MALLOC_OFFSET;
    if (block < BENCH_MALLOC_MIN)
        block = BENCH_MALLOC_MIN;
    char *p = malloc(block);
    if (!p) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", block);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, 0xa5, block); /* fault every page in now, not in the timed loop */
    return p + BENCH_MALLOC_OFFSET;
}

void *bench_buffer(size_t bytes)
{
    return malloc_buffers ? malloc_buffer(bytes) : bench_memory.alloc(bytes);
}

void bench_upload(void *buf, const void *host, size_t bytes)
{
    bench_memory.upload(buf, host, bytes);
}

void bench_download(void *host, const void *buf, size_t bytes)
{
    bench_memory.download(host, buf, bytes);
}

static unsigned char pattern(size_t size, int msg, size_t i)
{
    return (unsigned char)(i * 7 + size * 13 + (size_t)msg * 29 + 1);
}

void bench_fill(unsigned char *buf, size_t size, int msg)
{
    for (size_t i = 0; i < size; i++)
        buf[i] = pattern(size, msg, i);
}

long bench_count_wrong(const unsigned char *buf, size_t size, int msg)
{
    long wrong = 0;
    for (size_t i = 0; i < size; i++)
        wrong += buf[i] != pattern(size, msg, i);
    return wrong;
}

float bench_value(int r, size_t k)
{
    return (float)((r * 3 + (int)(k % 61)) % 8 + 1);
}

#define TAG_REDUCE 7001
#define TAG_SHARE 7002

double bench_max(double v)
{
    if (bench_rank != 0) {
        MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_REDUCE, MPI_COMM_WORLD);
        return v;
    }
    for (int r = 1; r < bench_size; r++) {
        double x;
        MPI_Recv(&x, 1, MPI_DOUBLE, r, TAG_REDUCE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (x > v)
            v = x;
    }
    return v;
}

long bench_sum(long v)
{
    if (bench_rank != 0) {
        MPI_Send(&v, 1, MPI_LONG, 0, TAG_REDUCE, MPI_COMM_WORLD);
        return v;
    }
    for (int r = 1; r < bench_size; r++) {
        long x;
        MPI_Recv(&x, 1, MPI_LONG, r, TAG_REDUCE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        v += x;
    }
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_stats(double *v, int n, double *med, double *min, double *max)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *min = v[0];
    *max = v[n - 1];
}

/* The most iterations of one batch at `size` that move at most -B bytes. */
static double iterations_in_bytes(const struct bench *b, size_t size)
{
    double bytes = (double)size * b->msgs_per_iter;
    return bytes > 0 ? (double)b->opts.batch_bytes / bytes : (double)INT_MAX;
}

/* Iterations of one batch at `size`: -i or -I, fewer when a batch would move
 * more than -B bytes, but at least one. */
static int iterations(const struct bench *b, size_t size)
{
    const struct bench_opts *o = &b->opts;
    int n = size <= BENCH_LARGE ? o->iters : o->large_iters;
    if (n > iterations_in_bytes(b, size))
        n = (int)iterations_in_bytes(b, size);
    return n < 1 ? 1 : n;
}

/* Rank 0's v on every rank, by point-to-point. */
static int from_rank0(int v)
{
    if (bench_rank != 0) {
        MPI_Recv(&v, 1, MPI_INT, 0, TAG_SHARE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        return v;
    }
    for (int r = 1; r < bench_size; r++)
        MPI_Send(&v, 1, MPI_INT, r, TAG_SHARE, MPI_COMM_WORLD);
    return v;
}

/* Seconds the slowest rank takes for n iterations, on rank 0 (started
 * together). */
static double timed_run(const struct bench *b, size_t size, int n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    b->run(size, n);
    return bench_max(MPI_Wtime() - t0);
}

/* The warm-up of `size`, and with -T the iterations of a batch raised so
 * that it lasts at least -T ms (within -B), the same on every rank. The
 * pace comes from runs of 4 times as many iterations each until one lasts
 * a quarter of -T: beside busy processes a short run that lost one time
 * slice (4 ms) gives a pace many times too slow. */
static int warm_up(const struct bench *b, size_t size, int n)
{
    const struct bench_opts *o = &b->opts;
    int warm = o->warmup < n ? o->warmup : n;
    if (o->min_batch_ms == 0) {
        b->run(size, warm);
        return n;
    }
    double goal = o->min_batch_ms * 1e-3, most = iterations_in_bytes(b, size), need = n;
    double probe = warm > 0 ? warm : 1;
    for (int done = 0; !done;) {
        double t = timed_run(b, size, (int)probe);
        done = from_rank0(t >= goal / 4 || probe >= most || probe >= INT_MAX / 8);
        if (done && bench_rank == 0)
            need = probe * goal / (t > 0 ? t : 1e-9);
        probe *= 4;
    }
    if (need > most)
        need = most;
    if (need > INT_MAX / 2)
        need = INT_MAX / 2;
    return from_rank0(need > n ? (int)need : n);
}

static void header(const struct bench *b)
{
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n")] = '\0';
    printf("# %s: %s\n# %d ranks; %s\n", b->name, b->what, bench_size, ver);
    if (b->opts.device || b->opts.cuda_context)
        printf("# buffers in %s memory%s\n", bench_memory.name,
               b->opts.cuda_context ? "; a CUDA context is open (-g)" : "");
    if (b->opts.malloc_buffers)
        printf("# message buffers from malloc (at least %d bytes), %d bytes in (-M)\n",
               BENCH_MALLOC_MIN, BENCH_MALLOC_OFFSET);
    printf("# median, min and max over %d batches; iterations per batch -i %d, -I %d; warm-up %d",
           b->opts.batches, b->opts.iters, b->opts.large_iters, b->opts.warmup);
    if (b->opts.min_batch_ms)
        printf("; batches of %d ms at least (-T)", b->opts.min_batch_ms);
    printf("\n");
    if (b->metric == BENCH_LATENCY)
        printf("%-10s %12s %12s %12s", "# Size", "Median(us)", "Min(us)", "Max(us)");
    else
        printf("%-10s %12s %12s %12s", "# Size", "MB/s", "Min(MB/s)", "Max(MB/s)");
    printf(b->opts.check ? " %8s\n" : "\n", "#wrong");
    fflush(stdout);
}

static void row(const struct bench *b, size_t size, double *t, long wrong)
{
    double med, min, max;
    bench_stats(t, b->opts.batches, &med, &min, &max);
    if (b->metric == BENCH_LATENCY) {
        /* Nanoseconds: a put into shared memory takes 40-50 of them, and
         * two decimals of a microsecond made 0.04 against 0.05 a ratio of 1.25. */
        double s = 1e6 * b->time_scale;
        printf("%-10zu %12.3f %12.3f %12.3f", size, med * s, min * s, max * s);
    } else {
        double mb = (double)size * b->msgs_per_iter / 1e6;
        printf("%-10zu %12.2f %12.2f %12.2f", size, mb / med, mb / max, mb / min);
    }
    if (b->opts.check)
        printf(" %8ld", wrong);
    printf("\n");
    fflush(stdout);
}

static size_t next_size(size_t s)
{
    return s ? 2 * s : 1;
}

int bench_sweep(struct bench *b)
{
    const struct bench_opts *o = &b->opts;
    double *t = malloc((size_t)o->batches * sizeof *t);
    long total_wrong = 0;
    size_t size = b->sized ? o->min_size : b->fixed_size;
    size_t max = b->sized ? o->max_size : b->fixed_size;

    if (bench_rank == 0)
        header(b);
    for (;; size = next_size(size)) {
        int n = iterations(b, size);
        long wrong = 0;
        if (size >= b->size_min) {
            n = warm_up(b, size, n);
            for (int i = 0; i < o->batches; i++)
                t[i] = timed_run(b, size, n) / n;
            if (o->check && b->check) {
                MPI_Barrier(MPI_COMM_WORLD);
                wrong = bench_sum(b->check(size));
                total_wrong += wrong;
            }
            if (bench_rank == 0)
                row(b, size, t, wrong);
        }
        if (size >= max)
            break;
    }
    free(t);
    if (bench_rank == 0 && total_wrong)
        fprintf(stderr, "%s: %ld wrong bytes or elements received\n", b->name, total_wrong);
    if (b->teardown)
        b->teardown();
    MPI_Finalize();
    return total_wrong ? 1 : 0;
}
