/* io_rounds: collective writes and reads of interleaved blocks that take
 * many rounds of two-phase I/O (cb_buffer_size 64 KiB, 4 MiB in all, every
 * fifth block of a rank's lane left out so that windows have holes the
 * aggregators must read first), checked byte for byte in the file, through
 * write_at_all/read_at_all and their nonblocking forms. Then the same
 * rounds without holes, where the aggregator writes a window while the
 * next one's pieces arrive and reads the next window while this one's
 * leave (both windows in flight), the last rank's lane half as long (it
 * has nothing in the last rounds), the nonblocking forms moved by
 * MPI_Test alone; and every rank reading the whole file at once, which
 * asks each window's bytes of every rank.
 *
 *   io_rounds DIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 3000, TOTAL = 4 << 20 }; /* a block size that no window divides */

static int rank, size;

static void check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "io_rounds: rank %d: %s: %s\n", rank, what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Byte `offset` of the file: the block it lies in belongs to rank
 * block % size as that rank's block k = block / size; every fifth block of
 * a rank is a hole of its view, which keeps the file's old byte, 'h'. */
static char expected(long offset)
{
    long block = offset / BLOCK, k = block / size;
    if (k % 5 == 4)
        return 'h';
    return (char)('A' + (block % size) * 7 + (offset % BLOCK) % 13);
}

/* Byte `offset` of the dense file: every block written by its rank but the
 * second half of the last rank's lane, which keeps the old 'h'. */
static char dense_expected(long offset, long lane)
{
    long block = offset / BLOCK, owner = block % size;
    if (owner == size - 1 && block / size >= lane / 2 && size > 1)
        return 'h';
    return (char)('a' + owner * 5 + (offset % BLOCK) % 11);
}

static void wait_by_tests(MPI_Request *request, const char *what)
{
    int done = 0;
    while (!done)
        check(MPI_Test(request, &done, MPI_STATUS_IGNORE), what);
}

static void compare(const char *data, long offset, long bytes, long lane, const char *what)
{
    for (long i = 0; i < bytes; i++)
        if (data[i] != dense_expected(offset + i, lane)) {
            fprintf(stderr, "io_rounds: rank %d, %s: byte %ld is '%c', expected '%c'\n", rank,
                    what, offset + i, data[i], dense_expected(offset + i, lane));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

/* The rounds without holes (see the top). */

/* Opens path with two-phase I/O forced, in rounds of 64 KiB. */
static MPI_File open_in_rounds(const char *path)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "65536");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh), "open");
    MPI_Info_free(&info);
    return fh;
}
static void dense(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/io_rounds_dense.dat", dir);
    long lane = TOTAL / BLOCK / size, file_bytes = lane * size * BLOCK;
    long blocks = rank == size - 1 && size > 1 ? lane / 2 : lane;
    MPI_Datatype one, lanes;
    check(MPI_Type_create_hvector(1, BLOCK, 0, MPI_BYTE, &one), "hvector");
    check(MPI_Type_create_resized(one, 0, (MPI_Aint)BLOCK * size, &lanes), "resized");
    check(MPI_Type_commit(&lanes), "commit");
    MPI_File fh = open_in_rounds(path);
    char *all = malloc((size_t)file_bytes);
    if (rank == 0) {
        memset(all, 'h', (size_t)file_bytes);
        check(MPI_File_write_at(fh, 0, all, (int)file_bytes, MPI_BYTE, MPI_STATUS_IGNORE), "fill");
    }
    check(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_sync(fh), "sync");

    int count = (int)(blocks * BLOCK);
    char *mine = malloc((size_t)count + 1), *back = malloc((size_t)count + 1);
    for (long b = 0; b < blocks; b++)
        for (long i = 0; i < BLOCK; i++)
            mine[b * BLOCK + i] = dense_expected((b * size + rank) * BLOCK + i, lane);
    for (int pass = 0; pass < 2; pass++) {
        check(MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, lanes, "native",
                                MPI_INFO_NULL), "set_view");
        MPI_Request request;
        if (pass == 0) {
            check(MPI_File_write_at_all(fh, 0, mine, count, MPI_BYTE, MPI_STATUS_IGNORE),
                  "dense write_at_all");
        } else {
            check(MPI_File_iwrite_at_all(fh, 0, mine, count, MPI_BYTE, &request),
                  "dense iwrite_at_all");
            wait_by_tests(&request, "MPI_Test of dense iwrite_at_all");
        }
        check(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        check(MPI_File_sync(fh), "sync");
        memset(back, 0, (size_t)count);
        if (pass == 0) {
            check(MPI_File_read_at_all(fh, 0, back, count, MPI_BYTE, MPI_STATUS_IGNORE),
                  "dense read_at_all");
        } else {
            check(MPI_File_iread_at_all(fh, 0, back, count, MPI_BYTE, &request),
                  "dense iread_at_all");
            wait_by_tests(&request, "MPI_Test of dense iread_at_all");
        }
        if (memcmp(back, mine, (size_t)count) != 0) {
            fprintf(stderr, "io_rounds: rank %d, dense pass %d: the data read back differs\n",
                    rank, pass);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        /* every rank the whole file, collectively: the same bytes for all */
        check(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "set_view");
        memset(all, 0, (size_t)file_bytes);
        check(MPI_File_read_at_all(fh, 0, all, (int)file_bytes, MPI_BYTE, MPI_STATUS_IGNORE),
              "read_at_all of the whole file");
        compare(all, 0, file_bytes, lane, "the whole file read by every rank");
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check(MPI_File_close(&fh), "close");
    MPI_Type_free(&lanes);
    MPI_Type_free(&one);
    free(mine);
    free(back);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        check(MPI_ERR_ARG, "usage: io_rounds DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/io_rounds.dat", argv[1]);
    long lane = TOTAL / BLOCK / size / 5 * 5; /* blocks of this rank's lane, holes too */
    long blocks = lane / 5 * 4;                /* the ones written */

    /* the view: 4 of every 5 blocks rank, rank + size ... of the file */
    MPI_Datatype four, tiled;
    check(MPI_Type_create_hvector(4, BLOCK, (MPI_Aint)BLOCK * size, MPI_BYTE, &four), "hvector");
    check(MPI_Type_create_resized(four, 0, (MPI_Aint)BLOCK * size * 5, &tiled), "resized");
    check(MPI_Type_commit(&tiled), "commit");

    MPI_File fh = open_in_rounds(path);
    long file_bytes = lane * size * BLOCK;
    if (rank == 0) { /* the old bytes the holes keep */
        char *h = malloc((size_t)file_bytes);
        memset(h, 'h', (size_t)file_bytes);
        check(MPI_File_write_at(fh, 0, h, (int)file_bytes, MPI_BYTE, MPI_STATUS_IGNORE), "fill");
        free(h);
    }
    check(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    check(MPI_File_sync(fh), "sync");
    check(MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, tiled, "native",
                            MPI_INFO_NULL), "set_view");

    char *mine = malloc((size_t)(blocks * BLOCK)), *back = malloc((size_t)(blocks * BLOCK));
    for (long b = 0; b < blocks; b++) {
        long k = b / 4 * 5 + b % 4; /* the lane's block */
        for (long i = 0; i < BLOCK; i++)
            mine[b * BLOCK + i] = expected((k * size + rank) * BLOCK + i);
    }
    int count = (int)(blocks * BLOCK);
    for (int pass = 0; pass < 2; pass++) {
        MPI_Request request;
        if (pass == 0) {
            check(MPI_File_write_at_all(fh, 0, mine, count, MPI_BYTE, MPI_STATUS_IGNORE),
                  "write_at_all");
        } else {
            check(MPI_File_iwrite_at_all(fh, 0, mine, count, MPI_BYTE, &request),
                  "iwrite_at_all");
            check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait of iwrite_at_all");
        }
        check(MPI_File_sync(fh), "sync");
        MPI_Barrier(MPI_COMM_WORLD);
        check(MPI_File_sync(fh), "sync");
        memset(back, 0, (size_t)count);
        if (pass == 0) {
            check(MPI_File_read_at_all(fh, 0, back, count, MPI_BYTE, MPI_STATUS_IGNORE),
                  "read_at_all");
        } else {
            check(MPI_File_iread_at_all(fh, 0, back, count, MPI_BYTE, &request), "iread_at_all");
            check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait of iread_at_all");
        }
        if (memcmp(back, mine, (size_t)count) != 0) {
            fprintf(stderr, "io_rounds: rank %d, pass %d: the data read back differs\n", rank,
                    pass);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        /* the whole file, holes included, as a program without MPI reads it */
        if (rank == 0) {
            FILE *in = fopen(path, "rb");
            char *all = malloc((size_t)file_bytes);
            if (!in || fread(all, 1, (size_t)file_bytes, in) != (size_t)file_bytes) {
                fprintf(stderr, "io_rounds: cannot read %s back\n", path);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            fclose(in);
            for (long offset = 0; offset < file_bytes; offset++)
                if (all[offset] != expected(offset)) {
                    fprintf(stderr, "io_rounds: pass %d: file byte %ld is '%c', expected '%c'\n",
                            pass, offset, all[offset], expected(offset));
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            free(all);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check(MPI_File_close(&fh), "close");
    MPI_Type_free(&tiled);
    MPI_Type_free(&four);
    free(mine);
    free(back);
    dense(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_rounds: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
