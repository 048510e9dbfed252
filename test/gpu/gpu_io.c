/* gpu_io: MPI-IO on device buffers. Every rank writes from a buffer and
 * reads back into one, in device memory and (as the reference run) in host
 * memory, laid out contiguously or as a vector of ints with gaps:
 *   at:     MPI_File_write_at / MPI_File_read_at, each rank its own block;
 *   all:    MPI_File_write_all / MPI_File_read_all through a subarray view
 *           (each rank a stripe of columns of a 2-D array: the ranks' ranges
 *           interleave, so two-phase I/O runs);
 *   iall:   MPI_File_iwrite_at_all / MPI_File_iread_at_all through a vector
 *           view, at an offset into it that leaves a hole at the start;
 *   shared: MPI_File_write_shared / MPI_File_read_shared (blocks in any
 *           order, each exactly once);
 *   eof:    MPI_File_read_at and MPI_File_read_at_all asking for more than
 *           the file holds: the status counts what arrived, the rest of the
 *           buffer (and the gaps of a vector) keep their old bytes.
 * The data read back is checked on the host (driver copies: the CPU never
 * touches device memory), gaps included, and rank 0 compares every file
 * byte for byte with the one a serial host writer would have made.
 *
 * Usage: gpu_io DIR [host]   (files go to DIR; "host" runs the host-memory
 * half only, to check the test itself against another MPI). */
#include "gpu_test.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
    INTS = 3000,     /* ints each rank writes in a case */
    ROWS = 50,       /* the subarray: ROWS x COLS ints per rank */
    COLS = 60,
    BLOCK = 100,     /* the vector view: blocks of BLOCK ints per rank */
    VIEW_OFFSET = 2 * BLOCK, /* where iwrite_at_all starts, in ints */
    EOF_INTS = 1000, /* the file the eof case reads */
    EOF_ASK = 300,   /* ints an eof read asks for */
};
/* Bytes the program writes into gaps of a buffer it writes from, and that
 * a buffer to read into holds before the read. */
enum { GAP_BYTE = 0x5a, OLD_BYTE = 0xee };

static const char *dir;

/* ---- memory layouts: contiguous ints, or a vector of 3 ints every 5 --------- */

struct layout {
    const char *name;
    int vector;
    int ints;           /* data ints */
    MPI_Datatype type;  /* what the calls are given: count x type */
    int count;
    size_t span;        /* bytes the buffer spans */
};

static struct layout layout_make(int vector, int ints)
{
    struct layout l = {.name = vector ? "vector" : "contiguous", .vector = vector, .ints = ints};
    if (vector) {
        MPI_Type_vector(ints / 3, 3, 5, MPI_INT, &l.type);
        MPI_Type_commit(&l.type);
        l.count = 1;
        l.span = (size_t)((ints / 3 - 1) * 5 + 3) * sizeof(int);
    } else {
        l.type = MPI_INT;
        l.count = ints;
        l.span = (size_t)ints * sizeof(int);
    }
    return l;
}

static void layout_free(struct layout *l)
{
    if (l->vector)
        MPI_Type_free(&l->type);
}

/* Byte offset in the buffer of data int k. */
static size_t int_offset(const struct layout *l, int k)
{
    return (l->vector ? (size_t)(k / 3 * 5 + k % 3) : (size_t)k) * sizeof(int);
}

/* The buffer's bytes: `fill` everywhere, the first `ints` ints of the data
 * stream at their places. */
static void image_make(const struct layout *l, const unsigned char *stream, int ints,
                       unsigned char fill, unsigned char *image)
{
    memset(image, fill, l->span);
    for (int k = 0; k < ints; k++)
        memcpy(image + int_offset(l, k), stream + (size_t)k * sizeof(int), sizeof(int));
}

static void image_extract(const struct layout *l, const unsigned char *image,
                          unsigned char *stream)
{
    for (int k = 0; k < l->ints; k++)
        memcpy(stream + (size_t)k * sizeof(int), image + int_offset(l, k), sizeof(int));
}

/* ---- buffers, data and checks ------------------------------------------------ */

static void *xmalloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        gt_die("out of memory for %zu bytes", bytes);
    return p;
}

/* The data stream of `rank` in case `id`: the same for host and device runs. */
static unsigned char *stream_of(int id, int rank, int ints)
{
    unsigned char *s = xmalloc((size_t)ints * sizeof(int));
    gt_fill(s, (size_t)ints * sizeof(int), (unsigned)(id * 100 + rank + 1));
    return s;
}

/* A buffer holding `stream` (gaps GAP_BYTE), to write from. */
static void *buffer_with(enum gt_mem mem, const struct layout *l, const unsigned char *stream)
{
    unsigned char *image = xmalloc(l->span);
    image_make(l, stream, l->ints, GAP_BYTE, image);
    void *buf = gt_alloc(mem, l->span);
    gt_put(mem, buf, image, l->span);
    free(image);
    return buf;
}

/* A buffer of OLD_BYTE, to read into. */
static void *buffer_blank(enum gt_mem mem, const struct layout *l)
{
    void *buf = gt_alloc(mem, l->span);
    gt_set(mem, buf, OLD_BYTE, l->span);
    return buf;
}

/* The buffer read into holds the first `ints` ints of `stream` at their
 * places and OLD_BYTE everywhere else. */
static void check_read(const char *what, enum gt_mem mem, const void *buf,
                       const struct layout *l, const unsigned char *stream, int ints)
{
    unsigned char *got = xmalloc(l->span), *want = xmalloc(l->span);
    gt_get(mem, got, buf, l->span);
    image_make(l, stream, ints, OLD_BYTE, want);
    gt_check_bytes(what, got, want, l->span);
    free(got);
    free(want);
}

/* The status says `ints` ints arrived (and, for a whole access, one count of
 * the type per call element). */
static void check_status(const char *what, MPI_Status *st, const struct layout *l, int ints)
{
    MPI_Count elements = -1;
    gt_check_rc("MPI_Get_elements_x", MPI_Get_elements_x(st, l->type, &elements));
    if (elements != ints)
        gt_fail("%s: the status counts %lld ints, expected %d", what, (long long)elements, ints);
    if (ints == l->ints) {
        int count = -1;
        gt_check_rc("MPI_Get_count", MPI_Get_count(st, l->type, &count));
        if (count != l->count)
            gt_fail("%s: MPI_Get_count says %d, expected %d", what, count, l->count);
    } else if (!l->vector) {
        int count = -1;
        gt_check_rc("MPI_Get_count", MPI_Get_count(st, MPI_INT, &count));
        if (count != ints)
            gt_fail("%s: MPI_Get_count says %d ints, expected %d", what, count, ints);
    }
}

/* Rank 0: the file holds exactly `bytes` bytes equal to `want`. */
static void check_file(const char *what, const char *path, const unsigned char *want,
                       size_t bytes)
{
    if (gt_rank != 0)
        return;
    int fd = open(path, O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        gt_fail("%s: cannot open %s", what, path);
        if (fd >= 0)
            close(fd);
        return;
    }
    if ((size_t)sb.st_size != bytes)
        gt_fail("%s: the file holds %lld bytes, a host writer's %zu", what,
                (long long)sb.st_size, bytes);
    unsigned char *got = xmalloc(bytes);
    ssize_t n = pread(fd, got, bytes, 0);
    close(fd);
    if (n == (ssize_t)bytes) {
        char text[160];
        snprintf(text, sizeof text, "%s: the file against a host writer's", what);
        gt_check_bytes(text, got, want, bytes);
    } else if ((size_t)sb.st_size >= bytes) {
        gt_fail("%s: reading %s back failed", what, path);
    }
    free(got);
}

static const char *file_path(const char *name, enum gt_mem mem, const struct layout *l)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s_%s", dir, name, gt_mem_name(mem), l->name);
    return path;
}

/* Collective buffering forced on, so that two-phase I/O runs even where
 * the ranks' ranges do not interleave (one rank). */
static MPI_File open_file(const char *path, int amode)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_File fh = MPI_FILE_NULL;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        gt_die("MPI_File_open %s failed (%d)", path, rc);
    return fh;
}

static void close_file(MPI_File *fh)
{
    gt_check_rc("MPI_File_close", MPI_File_close(fh));
}

static const int WRITE_MODE = MPI_MODE_CREATE | MPI_MODE_WRONLY;

/* ---- the cases ---------------------------------------------------------------- */

enum { CASE_AT = 1, CASE_ALL, CASE_IALL, CASE_SHARED, CASE_EOF };

/* Each rank its block at offset rank x INTS ints, default view. */
static void case_at(enum gt_mem mem, const struct layout *l)
{
    char what[96];
    snprintf(what, sizeof what, "write_at/read_at, %s %s", gt_mem_name(mem), l->name);
    const char *path = file_path("at", mem, l);
    size_t block = (size_t)INTS * sizeof(int);
    MPI_Offset at = (MPI_Offset)gt_rank * (MPI_Offset)block;
    unsigned char *mine = stream_of(CASE_AT, gt_rank, INTS);
    void *buf = buffer_with(mem, l, mine);
    MPI_Status st;
    MPI_File fh = open_file(path, WRITE_MODE);
    gt_check_rc("MPI_File_write_at", MPI_File_write_at(fh, at, buf, l->count, l->type, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);

    unsigned char *want = xmalloc(block * (size_t)gt_size);
    for (int r = 0; r < gt_size; r++) {
        unsigned char *s = stream_of(CASE_AT, r, INTS);
        memcpy(want + (size_t)r * block, s, block);
        free(s);
    }
    check_file(what, path, want, block * (size_t)gt_size);

    void *into = buffer_blank(mem, l);
    fh = open_file(path, MPI_MODE_RDONLY);
    gt_check_rc("MPI_File_read_at", MPI_File_read_at(fh, at, into, l->count, l->type, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);
    check_read(what, mem, into, l, mine, INTS);
    gt_free(mem, into);
    gt_free(mem, buf);
    free(want);
    free(mine);
}

/* A ROWS x (size x COLS) array of ints, each rank a stripe of COLS columns. */
static void case_all(enum gt_mem mem, const struct layout *l)
{
    char what[96];
    snprintf(what, sizeof what, "write_all/read_all (subarray view), %s %s", gt_mem_name(mem),
             l->name);
    const char *path = file_path("all", mem, l);
    int sizes[2] = {ROWS, gt_size * COLS}, subsizes[2] = {ROWS, COLS},
        starts[2] = {0, gt_rank * COLS};
    MPI_Datatype stripe;
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &stripe);
    MPI_Type_commit(&stripe);
    unsigned char *mine = stream_of(CASE_ALL, gt_rank, INTS);
    void *buf = buffer_with(mem, l, mine);
    MPI_Status st;
    MPI_File fh = open_file(path, WRITE_MODE);
    gt_check_rc("MPI_File_set_view", MPI_File_set_view(fh, 0, MPI_INT, stripe, "native",
                                                       MPI_INFO_NULL));
    gt_check_rc("MPI_File_write_all", MPI_File_write_all(fh, buf, l->count, l->type, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);

    size_t row = (size_t)gt_size * COLS * sizeof(int), piece = COLS * sizeof(int);
    unsigned char *want = xmalloc(row * ROWS);
    for (int r = 0; r < gt_size; r++) {
        unsigned char *s = stream_of(CASE_ALL, r, INTS);
        for (int i = 0; i < ROWS; i++)
            memcpy(want + i * row + (size_t)r * piece, s + i * piece, piece);
        free(s);
    }
    check_file(what, path, want, row * ROWS);

    void *into = buffer_blank(mem, l);
    fh = open_file(path, MPI_MODE_RDONLY);
    gt_check_rc("MPI_File_set_view", MPI_File_set_view(fh, 0, MPI_INT, stripe, "native",
                                                       MPI_INFO_NULL));
    gt_check_rc("MPI_File_read_all", MPI_File_read_all(fh, into, l->count, l->type, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);
    check_read(what, mem, into, l, mine, INTS);
    gt_free(mem, into);
    gt_free(mem, buf);
    free(want);
    free(mine);
    MPI_Type_free(&stripe);
}

/* The file int that data int k of `rank` lands on in the vector view: the
 * view's position p = VIEW_OFFSET + k is in block p / BLOCK of the rank. */
static size_t vector_view_int(int rank, int k)
{
    int p = VIEW_OFFSET + k;
    return (size_t)(p / BLOCK) * BLOCK * (size_t)gt_size + (size_t)rank * BLOCK + p % BLOCK;
}

/* Blocks of BLOCK ints dealt round the ranks (a vector of two blocks,
 * resized so that it tiles), written from VIEW_OFFSET ints into the view:
 * the first blocks of the file are a hole and read as zeros. */
static void case_iall(enum gt_mem mem, const struct layout *l)
{
    char what[96];
    snprintf(what, sizeof what, "iwrite_at_all/iread_at_all (vector view), %s %s",
             gt_mem_name(mem), l->name);
    const char *path = file_path("iall", mem, l);
    MPI_Datatype two, tile;
    MPI_Type_vector(2, BLOCK, BLOCK * gt_size, MPI_INT, &two);
    MPI_Type_create_resized(two, 0, (MPI_Aint)2 * BLOCK * gt_size * (MPI_Aint)sizeof(int),
                            &tile);
    MPI_Type_commit(&tile);
    MPI_Type_free(&two);
    MPI_Offset disp = (MPI_Offset)gt_rank * BLOCK * (MPI_Offset)sizeof(int);
    unsigned char *mine = stream_of(CASE_IALL, gt_rank, INTS);
    void *buf = buffer_with(mem, l, mine);
    MPI_Request req;
    MPI_Status st;
    MPI_File fh = open_file(path, WRITE_MODE);
    gt_check_rc("MPI_File_set_view", MPI_File_set_view(fh, disp, MPI_INT, tile, "native",
                                                       MPI_INFO_NULL));
    gt_check_rc("MPI_File_iwrite_at_all",
                MPI_File_iwrite_at_all(fh, VIEW_OFFSET, buf, l->count, l->type, &req));
    gt_check_rc("MPI_Wait", MPI_Wait(&req, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);

    size_t file_ints = vector_view_int(gt_size - 1, INTS - 1) + 1;
    unsigned char *want = xmalloc(file_ints * sizeof(int));
    for (int r = 0; r < gt_size; r++) {
        unsigned char *s = stream_of(CASE_IALL, r, INTS);
        for (int k = 0; k < INTS; k++)
            memcpy(want + vector_view_int(r, k) * sizeof(int), s + (size_t)k * sizeof(int),
                   sizeof(int));
        free(s);
    }
    check_file(what, path, want, file_ints * sizeof(int));

    void *into = buffer_blank(mem, l);
    fh = open_file(path, MPI_MODE_RDONLY);
    gt_check_rc("MPI_File_set_view", MPI_File_set_view(fh, disp, MPI_INT, tile, "native",
                                                       MPI_INFO_NULL));
    gt_check_rc("MPI_File_iread_at_all",
                MPI_File_iread_at_all(fh, VIEW_OFFSET, into, l->count, l->type, &req));
    gt_check_rc("MPI_Wait", MPI_Wait(&req, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);
    check_read(what, mem, into, l, mine, INTS);

    /* The hole before VIEW_OFFSET reads as zeros. */
    struct layout hole = layout_make(0, VIEW_OFFSET);
    unsigned char *zeros = xmalloc(hole.span);
    void *hole_buf = buffer_blank(mem, &hole);
    fh = open_file(path, MPI_MODE_RDONLY);
    gt_check_rc("MPI_File_set_view", MPI_File_set_view(fh, disp, MPI_INT, tile, "native",
                                                       MPI_INFO_NULL));
    gt_check_rc("MPI_File_iread_at_all",
                MPI_File_iread_at_all(fh, 0, hole_buf, hole.count, hole.type, &req));
    gt_check_rc("MPI_Wait", MPI_Wait(&req, &st));
    close_file(&fh);
    snprintf(what, sizeof what, "iread_at_all of the hole, %s", gt_mem_name(mem));
    check_status(what, &st, &hole, VIEW_OFFSET);
    check_read(what, mem, hole_buf, &hole, zeros, VIEW_OFFSET);
    gt_free(mem, hole_buf);
    free(zeros);

    gt_free(mem, into);
    gt_free(mem, buf);
    free(want);
    free(mine);
    MPI_Type_free(&tile);
}

/* The rank whose stream `block` is, or -1. */
static int writer_of(const unsigned char *block)
{
    size_t bytes = (size_t)INTS * sizeof(int);
    for (int r = 0; r < gt_size; r++) {
        unsigned char *s = stream_of(CASE_SHARED, r, INTS);
        int same = memcmp(s, block, bytes) == 0;
        free(s);
        if (same)
            return r;
    }
    return -1;
}

/* Each rank appends its block through the shared pointer: the file holds
 * every rank's block once, in some order; read back through the shared
 * pointer, every rank gets a different block, whole. */
static void case_shared(enum gt_mem mem, const struct layout *l)
{
    char what[96];
    snprintf(what, sizeof what, "write_shared/read_shared, %s %s", gt_mem_name(mem), l->name);
    const char *path = file_path("shared", mem, l);
    size_t block = (size_t)INTS * sizeof(int);
    unsigned char *mine = stream_of(CASE_SHARED, gt_rank, INTS);
    void *buf = buffer_with(mem, l, mine);
    MPI_Status st;
    MPI_File fh = open_file(path, WRITE_MODE);
    gt_check_rc("MPI_File_write_shared", MPI_File_write_shared(fh, buf, l->count, l->type, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);

    if (gt_rank == 0) {
        /* The host writer's file, in the order the blocks were found. */
        unsigned char *file = xmalloc(block * (size_t)gt_size);
        int fd = open(path, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : pread(fd, file, block * (size_t)gt_size, 0);
        if (fd >= 0)
            close(fd);
        if (n != (ssize_t)(block * (size_t)gt_size))
            gt_fail("%s: read %zd bytes of the file, expected %zu", what, n,
                    block * (size_t)gt_size);
        unsigned char *want = xmalloc(block * (size_t)gt_size);
        int *seen = xmalloc((size_t)gt_size * sizeof(int));
        for (int b = 0; b < gt_size; b++) {
            int w = writer_of(file + (size_t)b * block);
            if (w < 0 || seen[w]++)
                gt_fail("%s: block %d of the file is %s", what, b,
                        w < 0 ? "no rank's data" : "a second copy of a rank's data");
            unsigned char *s = stream_of(CASE_SHARED, w < 0 ? b : w, INTS);
            memcpy(want + (size_t)b * block, s, block);
            free(s);
        }
        check_file(what, path, want, block * (size_t)gt_size);
        free(seen);
        free(want);
        free(file);
    }

    void *into = buffer_blank(mem, l);
    fh = open_file(path, MPI_MODE_RDONLY);
    gt_check_rc("MPI_File_read_shared",
                MPI_File_read_shared(fh, into, l->count, l->type, &st));
    check_status(what, &st, l, INTS);
    close_file(&fh);
    unsigned char *image = xmalloc(l->span), *got = xmalloc(block);
    gt_get(mem, image, into, l->span);
    image_extract(l, image, got);
    int w = writer_of(got);
    unsigned char *s = stream_of(CASE_SHARED, w < 0 ? gt_rank : w, INTS);
    check_read(what, mem, into, l, s, INTS);
    int *writers = xmalloc((size_t)gt_size * sizeof(int));
    MPI_Allgather(&w, 1, MPI_INT, writers, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < gt_rank; r++)
        if (w >= 0 && writers[r] == w)
            gt_fail("%s: ranks %d and %d both read rank %d's block", what, r, gt_rank, w);
    free(writers);
    free(s);
    free(got);
    free(image);
    gt_free(mem, into);
    gt_free(mem, buf);
    free(mine);
}

/* Reads of EOF_ASK ints that the end of an EOF_INTS-int file cuts short:
 * rank r finds 100 + 10 r ints left (the last of several ranks none). */
static void case_eof(enum gt_mem mem, int vector)
{
    struct layout l = layout_make(vector, EOF_ASK);
    const char *path = file_path("eof", mem, &l);
    size_t bytes = EOF_INTS * sizeof(int);
    unsigned char *data = stream_of(CASE_EOF, 0, EOF_INTS);
    if (gt_rank == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || pwrite(fd, data, bytes, 0) != (ssize_t)bytes)
            gt_die("cannot write %s", path);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int left = gt_rank == gt_size - 1 && gt_size > 1 ? 0 : 100 + 10 * gt_rank;
    MPI_Offset at = (MPI_Offset)(EOF_INTS - left) * (MPI_Offset)sizeof(int);
    const unsigned char *tail = data + (size_t)at;
    MPI_File fh = open_file(path, MPI_MODE_RDONLY);
    for (int collective = 0; collective < 2; collective++) {
        char what[96];
        snprintf(what, sizeof what, "%s at the end of the file, %s %s",
                 collective ? "read_at_all" : "read_at", gt_mem_name(mem), l.name);
        void *into = buffer_blank(mem, &l);
        MPI_Status st;
        if (collective)
            gt_check_rc("MPI_File_read_at_all",
                        MPI_File_read_at_all(fh, at, into, l.count, l.type, &st));
        else
            gt_check_rc("MPI_File_read_at", MPI_File_read_at(fh, at, into, l.count, l.type, &st));
        check_status(what, &st, &l, left);
        check_read(what, mem, into, &l, tail, left);
        gt_free(mem, into);
    }
    close_file(&fh);
    free(data);
    layout_free(&l);
}

static void run_all(enum gt_mem mem)
{
    for (int vector = 0; vector < 2; vector++) {
        struct layout l = layout_make(vector, INTS);
        case_at(mem, &l);
        case_all(mem, &l);
        case_iall(mem, &l);
        case_shared(mem, &l);
        layout_free(&l);
        case_eof(mem, vector);
    }
}

int main(int argc, char **argv)
{
    gt_init("gpu_io", &argc, &argv);
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "host") != 0))
        gt_die("usage: gpu_io DIR [host]");
    dir = argv[1];
    run_all(GT_HOST);
    if (argc == 2)
        run_all(GT_DEVICE);
    return gt_finish();
}
