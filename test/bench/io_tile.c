/* io_tile: MPI-IO bandwidth in the style of IOR and mpi-tile-io. The ranks
 * form a 3-D grid (MPI_Dims_create, or -g) and own one block each of a 3-D
 * array of doubles stored in C order in one file. Each iteration writes the
 * whole array, each rank its block through a subarray filetype view
 * (MPI_File_set_view), calls MPI_File_sync so that the time includes
 * reaching the file system, then reads it back through the same view:
 * collectively (MPI_File_write_all / read_all) and independently
 * (MPI_File_write / read), -m. A row per total size (-b to -e, growing by
 * -f): write and read MB/s of each mode, the median over -i iterations of
 * (bytes / the slowest rank's time), and a dd-like reference: rank 0 alone
 * writes the same bytes with write() in 4 MiB blocks and fsync, and reads
 * them back with read(), into a file of the same directory.
 *
 * #wrong counts the doubles that came back wrong from every read, plus
 * those the file holds wrongly after the last write of each mode, read with
 * plain pread() (a round trip through a wrong view could look right), plus
 * one if the file's size is not the array's. Exit status 1 if any is wrong.
 * See test/bench/README.md. */
#define _GNU_SOURCE /* posix_fadvise, O_CLOEXEC with older headers */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define DD_BLOCK ((size_t)4 << 20) /* dd bs=4M */
#define CHECK_CHUNK ((size_t)4 << 20)
#define MODES 2 /* collective, independent */

static struct {
    size_t min_bytes, max_bytes;
    double factor;
    const char *dir;
    int modes[MODES]; /* which modes run */
    int iters;
    int grid[3];      /* -g; zeros: MPI_Dims_create chooses */
    int cold;         /* -C: drop the file's cached pages before each read */
} opt = { 1 << 20, 1 << 30, 4, ".", { 1, 1 }, 5, { 0, 0, 0 }, 0 };

/* The array at one size: global extents, this rank's block and its start. */
struct layout {
    int gsizes[3], lsizes[3], starts[3];
    size_t count;      /* doubles in this rank's block */
    size_t total;      /* doubles in the array */
};

static void die(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "io_tile: rank %d: %s failed: %s\n", bench_rank, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* File handles return their errors by default (MPI_ERRORS_RETURN): every
 * call is checked, so that a failed write cannot pass for a fast one. */
#define MPI_CHECK(call)                        \
    do {                                       \
        int rc_ = (call);                      \
        if (rc_ != MPI_SUCCESS)                \
            die(#call, rc_);                   \
    } while (0)

static void sys_die(const char *what, const char *path)
{
    fprintf(stderr, "io_tile: rank %d: %s %s: %s\n", bench_rank, what, path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The value of global element g after iteration `it` of mode `mode`: an
 * integer (exact in a double below 2^53), never 0, different from one
 * iteration or mode to the next, so that stale or unread data shows. */
static double value(size_t g, int it, int mode)
{
    return (double)(g * 64 + (size_t)(it * MODES + mode) % 63 + 1);
}

/* Splits n into three factors as close to a cube as divisors allow, the
 * largest first (slowest dimension). */
static void near_cube(size_t n, size_t f[3])
{
    size_t a = 1, b = 1, m;
    for (size_t d = 1; d * d * d <= n; d++)
        if (n % d == 0)
            a = d;
    m = n / a;
    for (size_t d = 1; d * d <= m; d++)
        if (m % d == 0)
            b = d;
    f[0] = m / b;
    f[1] = b;
    f[2] = a;
}

/* The layout of `bytes` in all: each rank a block of bytes / 8 / ranks
 * doubles (the array is that times the ranks, which may be a little less). */
static int make_layout(size_t bytes, struct layout *l)
{
    size_t per_rank = bytes / sizeof(double) / (size_t)bench_size, f[3];
    int coords[3], r = bench_rank;

    if (per_rank == 0 || per_rank > INT_MAX)
        return -1;
    near_cube(per_rank, f);
    /* C order, as MPI_Cart_create numbers a grid: the last coordinate varies fastest. */
    coords[2] = r % opt.grid[2];
    coords[1] = r / opt.grid[2] % opt.grid[1];
    coords[0] = r / opt.grid[2] / opt.grid[1];
    for (int d = 0; d < 3; d++) {
        if (f[d] * (size_t)opt.grid[d] > INT_MAX)
            return -1;
        l->lsizes[d] = (int)f[d];
        l->gsizes[d] = (int)f[d] * opt.grid[d];
        l->starts[d] = (int)f[d] * coords[d];
    }
    l->count = per_rank;
    l->total = per_rank * (size_t)bench_size;
    return 0;
}

/* Runs `body` for each element of the block in memory order, with k its
 * index in the buffer and g its index in the array (its place in the file). */
#define FOR_BLOCK(l, k, g, body)                                                           \
    do {                                                                                   \
        size_t k = 0;                                                                      \
        for (size_t i0 = 0; i0 < (size_t)(l)->lsizes[0]; i0++)                            \
            for (size_t i1 = 0; i1 < (size_t)(l)->lsizes[1]; i1++) {                       \
                size_t row = (((size_t)(l)->starts[0] + i0) * (size_t)(l)->gsizes[1] +     \
                              (size_t)(l)->starts[1] + i1) * (size_t)(l)->gsizes[2] +      \
                             (size_t)(l)->starts[2];                                       \
                for (size_t i2 = 0; i2 < (size_t)(l)->lsizes[2]; i2++, k++) {              \
                    size_t g = row + i2;                                                   \
                    body;                                                                  \
                }                                                                          \
            }                                                                              \
    } while (0)

static void fill(double *buf, const struct layout *l, int it, int mode)
{
    FOR_BLOCK(l, k, g, buf[k] = value(g, it, mode));
}

static long count_wrong(const double *buf, const struct layout *l, int it, int mode)
{
    long wrong = 0;
    FOR_BLOCK(l, k, g, wrong += buf[k] != value(g, it, mode));
    return wrong;
}

/* The file as written by the last iteration, read with pread(): each rank
 * checks a slice of it, in file order, and rank 0 its size. */
static long check_file(const char *path, const struct layout *l, int it, int mode, double *scratch)
{
    size_t first = l->total / (size_t)bench_size * (size_t)bench_rank;
    size_t end = bench_rank == bench_size - 1 ? l->total : first + l->total / (size_t)bench_size;
    size_t per_chunk = CHECK_CHUNK / sizeof(double);
    long wrong = 0;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        sys_die("open", path);
    if (bench_rank == 0 && (fstat(fd, &st) != 0 || (size_t)st.st_size != l->total * sizeof(double))) {
        fprintf(stderr, "io_tile: %s holds %lld bytes, expected %zu\n", path, (long long)st.st_size,
                l->total * sizeof(double));
        wrong++;
    }
    for (size_t g = first; g < end; g += per_chunk) {
        size_t n = end - g < per_chunk ? end - g : per_chunk;
        ssize_t got = pread(fd, scratch, n * sizeof(double), (off_t)(g * sizeof(double)));
        size_t whole = got > 0 ? (size_t)got / sizeof(double) : 0;
        for (size_t k = 0; k < whole; k++)
            wrong += scratch[k] != value(g + k, it, mode);
        wrong += (long)(n - whole); /* missing from the file */
    }
    close(fd);
    return wrong;
}

/* -C: rank 0 asks the kernel to drop the file's cached pages (they are
 * clean after the sync), so that the read comes from the device. */
static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        sys_die("open", path);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

static double slowest_since(double t0)
{
    return bench_max(MPI_Wtime() - t0);
}

/* One mode at one size: -i iterations of write + sync, then read, into a
 * new file. Times (rank 0: the slowest rank's) into tw and tr. Returns this
 * rank's wrong doubles. */
static long run_mode(int mode, const struct layout *l, const char *path, double *buf, double *tw,
                     double *tr)
{
    MPI_Datatype filetype;
    MPI_File fh;
    MPI_Status st;
    int count = (int)l->count;
    long wrong = 0;

    MPI_CHECK(MPI_Type_create_subarray(3, l->gsizes, l->lsizes, l->starts, MPI_ORDER_C, MPI_DOUBLE,
                                       &filetype));
    MPI_CHECK(MPI_Type_commit(&filetype));
    MPI_CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh));
    MPI_CHECK(MPI_File_set_view(fh, 0, MPI_DOUBLE, filetype, "native", MPI_INFO_NULL));
    for (int it = 0; it < opt.iters; it++) {
        double t0;
        fill(buf, l, it, mode);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        if (mode == 0)
            MPI_CHECK(MPI_File_write_all(fh, buf, count, MPI_DOUBLE, &st));
        else
            MPI_CHECK(MPI_File_write(fh, buf, count, MPI_DOUBLE, &st));
        MPI_CHECK(MPI_File_sync(fh));
        tw[it] = slowest_since(t0);

        memset(buf, 0, l->count * sizeof(double));
        if (opt.cold) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (bench_rank == 0)
                drop_cache(path);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        MPI_CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        if (mode == 0)
            MPI_CHECK(MPI_File_read_all(fh, buf, count, MPI_DOUBLE, &st));
        else
            MPI_CHECK(MPI_File_read(fh, buf, count, MPI_DOUBLE, &st));
        tr[it] = slowest_since(t0);
        wrong += count_wrong(buf, l, it, mode);
    }
    MPI_CHECK(MPI_File_close(&fh));
    MPI_CHECK(MPI_Type_free(&filetype));
    MPI_Barrier(MPI_COMM_WORLD); /* every rank closed: the file is complete */
    wrong += check_file(path, l, opt.iters - 1, mode, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_rank == 0)
        unlink(path);
    return wrong;
}

/* The dd reference on rank 0: `bytes` written with write() in DD_BLOCK
 * blocks and fsync (dd bs=4M conv=fsync, into an existing file after the
 * first iteration, as the MPI iterations), then read back with read(). */
static void dd_once(const char *path, size_t bytes, unsigned char *block, double *tw, double *tr)
{
    double t0 = MPI_Wtime();
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        sys_die("open", path);
    for (size_t done = 0; done < bytes;) {
        size_t n = bytes - done < DD_BLOCK ? bytes - done : DD_BLOCK;
        ssize_t w = write(fd, block, n);
        if (w < 0 && errno != EINTR)
            sys_die("write", path);
        done += w > 0 ? (size_t)w : 0;
    }
    if (fsync(fd) != 0)
        sys_die("fsync", path);
    close(fd);
    *tw = MPI_Wtime() - t0;

    if (opt.cold)
        drop_cache(path);
    t0 = MPI_Wtime();
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        sys_die("open", path);
    for (;;) {
        ssize_t r = read(fd, block, DD_BLOCK);
        if (r == 0)
            break;
        if (r < 0 && errno != EINTR)
            sys_die("read", path);
    }
    close(fd);
    *tr = MPI_Wtime() - t0;
}

static double median(double *t)
{
    double med, min, max;
    bench_stats(t, opt.iters, &med, &min, &max);
    return med;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: io_tile [options]  (MPI-IO, IOR / mpi-tile-io style; see test/bench/README.md)\n"
            "  -b BYTES  smallest total size (default 1M; K M G suffixes)\n"
            "  -e BYTES  largest total size (default 1G)\n"
            "  -f F      size multiplier (default 4)\n"
            "  -d DIR    directory of the file (default: the current one)\n"
            "  -m MODE   collective, independent or both (default both)\n"
            "  -i N      iterations per size and mode; rates are medians (default 5)\n"
            "  -g AxBxC  the ranks' grid, A slowest (default: MPI_Dims_create)\n"
            "  -C        drop the file's cached pages before each read (posix_fadvise)\n"
            "  -c        accepted for the test scripts; the data is always checked\n"
            "  -h        this help\n");
}

static int parse_grid(const char *s)
{
    return sscanf(s, "%dx%dx%d", &opt.grid[0], &opt.grid[1], &opt.grid[2]) == 3 &&
                   opt.grid[0] > 0 && opt.grid[1] > 0 && opt.grid[2] > 0 &&
                   opt.grid[0] * opt.grid[1] * opt.grid[2] == bench_size
               ? 0
               : -1;
}

static int parse(int argc, char **argv)
{
    int c;
    opterr = 0;
    while ((c = getopt(argc, argv, "b:e:f:d:m:i:g:Cch")) != -1) {
        switch (c) {
        case 'b': if (bench_parse_size(optarg, &opt.min_bytes)) return -1; break;
        case 'e': if (bench_parse_size(optarg, &opt.max_bytes)) return -1; break;
        case 'f': if ((opt.factor = atof(optarg)) <= 1) return -1; break;
        case 'd': opt.dir = optarg; break;
        case 'm':
            opt.modes[0] = !strcmp(optarg, "collective") || !strcmp(optarg, "both");
            opt.modes[1] = !strcmp(optarg, "independent") || !strcmp(optarg, "both");
            if (!opt.modes[0] && !opt.modes[1])
                return -1;
            break;
        case 'i': if ((opt.iters = atoi(optarg)) < 1) return -1; break;
        case 'g': if (parse_grid(optarg)) return -1; break;
        case 'C': opt.cold = 1; break;
        case 'c': break;
        case 'h': return 1;
        default: return -1;
        }
    }
    if (optind != argc || opt.min_bytes < 1 || opt.min_bytes > opt.max_bytes)
        return -1;
    if (opt.grid[0] == 0)
        MPI_Dims_create(bench_size, 3, opt.grid);
    return 0;
}

static void header(const char *path)
{
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(ver, &len);
    ver[strcspn(ver, "\n")] = '\0';
    printf("# io_tile: 3-D array of doubles in blocks, written (+ MPI_File_sync) and read through a subarray view\n");
    printf("# %d ranks as a %d x %d x %d grid; %s\n", bench_size, opt.grid[0], opt.grid[1],
           opt.grid[2], ver);
    printf("# file %s; %d iterations per size and mode%s\n", path, opt.iters,
           opt.cold ? "; cached pages dropped before each read (-C)" : "");
    printf("# MB/s = 10^6 B/s: bytes / median over iterations of the slowest rank's time; '-': mode not run\n");
    printf("# dd: rank 0 alone, write() of %zu KiB blocks + fsync, then read(), same bytes and directory\n",
           DD_BLOCK >> 10);
    printf("%-12s %10s %10s %10s %10s %10s %10s %8s\n", "# Size(B)", "coll_wr", "coll_rd",
           "indep_wr", "indep_rd", "dd_wr", "dd_rd", "#wrong");
    fflush(stdout);
}

static void print_rate(size_t bytes, double t, int ran)
{
    if (ran)
        printf(" %10.1f", (double)bytes / t / 1e6);
    else
        printf(" %10s", "-");
}

int main(int argc, char **argv)
{
    char path[4096], dd_path[4096];
    int status, id;
    long total_wrong = 0;
    size_t last = 0, max_count;
    double *buf, *tw, *tr, dw[MODES], dr[MODES], dd_w = 0, dd_r = 0;
    unsigned char *block;
    struct layout l;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_size);
    if ((status = parse(argc, argv)) != 0) {
        if (bench_rank == 0)
            usage(status > 0 ? stdout : stderr);
        MPI_Finalize();
        return status > 0 ? 0 : 2;
    }
    if (make_layout(opt.max_bytes, &l) != 0) {
        if (bench_rank == 0)
            fprintf(stderr, "io_tile: -b/-e: each rank's block must hold 1 to 2^31-1 doubles\n");
        MPI_Finalize();
        return 2;
    }
    /* Names of this job's own (rank 0's process id), so that jobs side by side do not meet. */
    id = (int)getpid();
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/io_tile.%d.dat", opt.dir, id);
    snprintf(dd_path, sizeof dd_path, "%s/io_tile.%d.dd", opt.dir, id);
    max_count = l.count > CHECK_CHUNK / sizeof(double) ? l.count : CHECK_CHUNK / sizeof(double);
    buf = bench_alloc(max_count * sizeof(double));
    block = bench_rank == 0 ? bench_alloc(DD_BLOCK) : NULL;
    tw = malloc((size_t)opt.iters * sizeof *tw);
    tr = malloc((size_t)opt.iters * sizeof *tr);
    if (!tw || !tr)
        die("malloc", MPI_ERR_NO_MEM);
    if (bench_rank == 0)
        header(path);

    for (double s = (double)opt.min_bytes; s <= (double)opt.max_bytes * 1.0000001; s *= opt.factor) {
        long wrong = 0;
        size_t bytes;
        if (make_layout((size_t)s, &l) != 0 || l.total == last)
            continue;
        last = l.total;
        bytes = l.total * sizeof(double);
        for (int m = 0; m < MODES; m++) {
            if (!opt.modes[m])
                continue;
            wrong += run_mode(m, &l, path, buf, tw, tr);
            dw[m] = median(tw);
            dr[m] = median(tr);
        }
        /* dd after the MPI modes, the other ranks waiting. */
        if (bench_rank == 0) {
            memset(block, 0x5a, DD_BLOCK);
            for (int it = 0; it < opt.iters; it++)
                dd_once(dd_path, bytes, block, &tw[it], &tr[it]);
            unlink(dd_path);
            dd_w = median(tw);
            dd_r = median(tr);
        }
        wrong = bench_sum(wrong);
        MPI_Barrier(MPI_COMM_WORLD);
        if (bench_rank != 0)
            continue;
        total_wrong += wrong;
        printf("%-12zu", bytes);
        for (int m = 0; m < MODES; m++) {
            print_rate(bytes, dw[m], opt.modes[m]);
            print_rate(bytes, dr[m], opt.modes[m]);
        }
        print_rate(bytes, dd_w, 1);
        print_rate(bytes, dd_r, 1);
        printf(" %8ld\n", wrong);
        fflush(stdout);
    }
    if (bench_rank == 0 && total_wrong)
        fprintf(stderr, "io_tile: %ld wrong doubles\n", total_wrong);
    MPI_Finalize();
    return total_wrong ? 1 : 0;
}
