/* io_gathered: one round of two-phase collective I/O whose pieces are many
 * and small (thousands of blocks of 1 to 13 bytes, the ranks' blocks
 * interleaved): the aggregator writes them gathered straight from where
 * they arrived, more pieces than one pwritev takes, and its own from the
 * program's buffer. The file is checked byte for byte with POSIX read();
 * then the same with every fifth block of each rank left out (holes, which
 * keep the file's old bytes), and the data read back collectively; with
 * one aggregator and with two (cb_nodes 2), whose own pieces lie in the
 * other's window as well as its own. With OL_TEST_MOVER=1 (rounds whose
 * writes a thread of the library makes, "ol-io-mover"), rank 0, an
 * aggregator, checks that the thread ran and that MPI_Finalize ended it.
 *
 *   io_gathered DIR */
#include "io_util.h"

#include <dirent.h>

enum { BLOCKS = 3000 }; /* per rank: at 4 ranks, 12000 pieces in one window */

static int block_length(long j)
{
    return 1 + (int)(j * 7 % 13);
}

static unsigned char value(long j, long i, int pass)
{
    return (unsigned char)(1 + (j * 31 + i * 7 + pass * 13) % 251);
}

/* Block j of the file belongs to rank j % nprocs; the k-th of a rank is
 * left out (a hole) in the passes with holes when k % 5 == 4. */
static int written(long j, int holes)
{
    return !holes || (j / nprocs) % 5 != 4;
}

/* This rank's blocks as an indexed filetype, the file's whole length in
 * *file_bytes and this rank's bytes in *mine. */
static MPI_Datatype my_blocks(int holes, long *file_bytes, int *mine)
{
    int *lengths = malloc(BLOCKS * sizeof(int)), *displs = malloc(BLOCKS * sizeof(int));
    int count = 0;
    long at = 0;
    *mine = 0;
    for (long j = 0; j < (long)BLOCKS * nprocs; j++) {
        if (j % nprocs == rank && written(j, holes)) {
            lengths[count] = block_length(j);
            displs[count++] = (int)at;
            *mine += block_length(j);
        }
        at += block_length(j);
    }
    *file_bytes = at;
    MPI_Datatype type, whole;
    CHECK(MPI_Type_indexed(count, lengths, displs, MPI_BYTE, &type));
    /* the extent of the file, so that the view does not tile before its end */
    CHECK(MPI_Type_create_resized(type, 0, (MPI_Aint)at, &whole));
    CHECK(MPI_Type_commit(&whole));
    MPI_Type_free(&type);
    free(lengths);
    free(displs);
    return whole;
}

/* The file after a pass: every written block's bytes, 0 in the holes (the
 * fill). */
static unsigned char *model(int holes, int pass, long file_bytes)
{
    unsigned char *bytes = calloc((size_t)file_bytes, 1);
    long at = 0;
    for (long j = 0; j < (long)BLOCKS * nprocs; j++) {
        for (long i = 0; i < block_length(j) && written(j, holes); i++)
            bytes[at + i] = value(j, i, pass);
        at += block_length(j);
    }
    return bytes;
}

static void one_pass(const char *cb_nodes, int holes, int pass)
{
    step("cb_nodes %s, %s", cb_nodes, holes ? "with holes" : "no holes");
    const char *path = io_path("io_gathered.dat");
    long file_bytes;
    int count;
    MPI_Datatype blocks = my_blocks(holes, &file_bytes, &count);
    unsigned char *want = model(holes, pass, file_bytes);
    if (rank == 0) {
        unsigned char *zeros = calloc((size_t)file_bytes, 1);
        posix_write_file(path, zeros, (size_t)file_bytes);
        free(zeros);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable"); /* two-phase on 1 rank too */
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_Info_set(info, "cb_nodes", cb_nodes);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, blocks, "native", MPI_INFO_NULL));

    unsigned char *data = malloc((size_t)count + 1), *back = malloc((size_t)count + 1);
    int k = 0;
    for (long j = rank; j < (long)BLOCKS * nprocs; j += nprocs)
        for (long i = 0; i < block_length(j) && written(j, holes); i++)
            data[k++] = value(j, i, pass);
    MPI_Status status;
    int got;
    CHECK(MPI_File_write_at_all(fh, 0, data, count, MPI_BYTE, &status));
    CHECK(MPI_Get_count(&status, MPI_BYTE, &got));
    check_eq(got, count, "MPI_Get_count of the write");
    CHECK(MPI_File_sync(fh));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_sync(fh));
    if (rank == 0)
        check_file(path, want, (size_t)file_bytes);

    memset(back, 0, (size_t)count + 1);
    CHECK(MPI_File_read_at_all(fh, 0, back, count, MPI_BYTE, &status));
    CHECK(MPI_Get_count(&status, MPI_BYTE, &got));
    check_eq(got, count, "MPI_Get_count of the read");
    for (int b = 0; b < count; b++)
        if (back[b] != data[b])
            io_fail("byte %d of the data read back: 0x%02x, expected 0x%02x", b, back[b], data[b]);
    CHECK(MPI_File_close(&fh));
    MPI_Type_free(&blocks);
    free(data);
    free(back);
    free(want);
}

/* Whether a thread of this process bears the name. */
static int has_thread(const char *name)
{
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *t;
    int found = 0;
    while (tasks && (t = readdir(tasks)) != NULL && !found) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", t->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f))
            found = strncmp(comm, name, strlen(name)) == 0 && comm[strlen(name)] == '\n';
        if (f)
            fclose(f);
    }
    if (tasks)
        closedir(tasks);
    return found;
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, "io_gathered");
    const char *aggregators[] = {"1", "2"};
    int pass = 0;
    for (int a = 0; a < 2; a++)
        for (int holes = 0; holes < 2; holes++)
            one_pass(aggregators[a], holes, pass++);
    int check_mover = rank == 0 && getenv("OL_TEST_MOVER") != NULL;
    if (check_mover && !has_thread("ol-io-mover"))
        io_fail("no thread ol-io-mover after writes in rounds");
    io_finish();
    if (check_mover && has_thread("ol-io-mover")) {
        fprintf(stderr, "io_gathered: thread ol-io-mover still runs after MPI_Finalize\n");
        return 1;
    }
    return 0;
}
