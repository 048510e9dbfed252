/* Shared by the OSU-style benchmarks of test/bench/ (see README.md): option
 * parsing, page-aligned buffers, the sweep over message sizes with warm-up
 * and timed batches, statistics and the output rows. Plain MPI only, so the
 * same sources build against any MPI; the only collectives used here are
 * MPI_Barrier and, with -d or -g, one MPI_Allreduce on host memory (times and
 * error counts reach rank 0 by point-to-point).
 *
 * Device memory: programs built with bench_device.c and -DBENCH_DEVICE
 * (osu_latency and osu_bw here; not in contrib/compare.sh's builds) set
 * bench.open_device, and then take -d cuda (buffers in GPU memory) and -g
 * (a CUDA context opened on the GPU, buffers on the host). Elsewhere these
 * options say the program was built without device support. */
#ifndef OL_BENCH_H
#define OL_BENCH_H

#include <mpi.h>
#include <stddef.h>

/* Messages above this size are "large": they use -I iterations, not -i. */
#define BENCH_LARGE 8192
/* -M: message buffers are malloc blocks of at least this many bytes (which
 * glibc maps outside the brk heap), used from this offset on. */
#define BENCH_MALLOC_MIN (1 << 20)
#define BENCH_MALLOC_OFFSET 64

struct bench_opts {
    size_t min_size, max_size; /* -m MIN:MAX, bytes */
    int iters;                 /* -i: timed iterations per batch, small messages */
    int large_iters;           /* -I: the same for messages above BENCH_LARGE */
    int warmup;                /* -x: untimed iterations before each size */
    int batches;               /* -n: timed batches per size; median/min/max over them */
    int window;                /* -W: outstanding messages (bandwidth benchmarks) */
    size_t batch_bytes;        /* -B: cap on the bytes of one batch (large sizes) */
    int min_batch_ms;          /* -T: a batch lasts at least this long (0: no minimum) */
    int check;                 /* -c: check the data once per size */
    int device;                /* -d cuda: buffers in GPU memory */
    int cuda_context;          /* -g: a CUDA context open, buffers on the host */
    int malloc_buffers;        /* -M: host buffers from malloc, 1 MiB or more, at an offset */
};

/* What a benchmark reports per size: a latency in microseconds, or a
 * bandwidth in MB/s (10^6 bytes per second, as OSU). */
enum bench_metric { BENCH_LATENCY, BENCH_BANDWIDTH };

struct bench {
    const char *name;
    const char *what;        /* one line for the header and -h */
    enum bench_metric metric;
    int min_ranks, even_ranks;
    int sized;               /* 0: one row of size fixed_size (barrier: 0), -m ignored */
    size_t fixed_size;       /* the size of that row: one atomic's element */
    int has_window;          /* -W applies */
    struct bench_opts opts;  /* defaults, then what the command line says */
    /* Set by the benchmark after bench_init, before bench_sweep: */
    double time_scale;       /* reported latency = time of one iteration x this */
    double msgs_per_iter;    /* messages of `size` bytes per iteration: bandwidth
                                = size x msgs_per_iter / time; caps large batches */
    size_t size_min;         /* smaller sizes are skipped (less than an element) */
    /* run(size, n): n iterations at this size; every rank calls it. */
    void (*run)(size_t size, int n);
    /* check(size): one checked exchange at this size; returns the wrong
     * bytes or elements this rank received. NULL: nothing to check. */
    long (*check)(size_t size);
    /* Set before bench_init where the program is built with device support
     * (bench_device_open): opens the GPU of this rank for -d or -g, and
     * with device_buffers makes bench_buffer return device memory. Returns
     * 0, or -1 with the reason in why. */
    int (*open_device)(int device_buffers, char *why, size_t why_len);
    /* Options of this program only (the RMA benchmarks' -w, -s): their
     * getopt letters ("w:s:"), their lines for -h, and option(c, optarg),
     * which returns 0, or -1 for a bad value. NULL: none. */
    const char *extra_opts, *extra_usage;
    int (*option)(int c, const char *arg);
    /* Called by bench_sweep on every rank before MPI_Finalize (frees what
     * MPI must see freed: windows). NULL: nothing. */
    void (*teardown)(void);
};

extern int bench_rank, bench_size;

/* MPI_Init and the options; exits after -h, a bad option, or a rank count
 * that does not fit. */
void bench_init(struct bench *b, int *argc, char ***argv);
/* Prints the header, runs every size and prints a row per size on rank 0,
 * then MPI_Finalize. Returns the exit status: 1 if a check found wrong data. */
int bench_sweep(struct bench *b);

/* Page-aligned buffer of `bytes` (at least one page), every page touched. */
void *bench_alloc(size_t bytes);

/* A buffer for the messages: device memory with -d cuda, else bench_alloc.
 * Its data is written and read only through bench_upload and
 * bench_download (plain copies for host memory). */
void *bench_buffer(size_t bytes);
void bench_upload(void *buf, const void *host, size_t bytes);
void bench_download(void *host, const void *buf, size_t bytes);

/* What bench_buffer and its copies use; bench_device_open replaces it. */
struct bench_memory {
    const char *name;  /* "host", or the GPU's name */
    void *(*alloc)(size_t bytes);
    void (*upload)(void *buf, const void *host, size_t bytes);
    void (*download)(void *host, const void *buf, size_t bytes);
};
extern struct bench_memory bench_memory;
/* In bench_device.c: the open_device of programs with device support. */
int bench_device_open(int device_buffers, char *why, size_t why_len);

/* -c for point-to-point: byte i of message `msg` at `size` bytes. */
void bench_fill(unsigned char *buf, size_t size, int msg);
long bench_count_wrong(const unsigned char *buf, size_t size, int msg);
/* -c for collectives: element k of rank r's send buffer. Small integers, so
 * float sums over a few thousand ranks stay exact. */
float bench_value(int r, size_t k);

/* Over all ranks, result on rank 0, by point-to-point (no collectives). */
double bench_max(double v);
long bench_sum(long v);

/* Median, min and max of v[0..n-1] (sorts v). */
void bench_stats(double *v, int n, double *med, double *min, double *max);
/* "4K" -> 4096 (K, M, G: powers of 1024); 0 on success. */
int bench_parse_size(const char *s, size_t *out);

#endif
