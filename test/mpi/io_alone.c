/* io_alone: collective I/O on one host whose ranks' pieces interleave but
 * are large (4 KiB and more on average), which the library moves without
 * two-phase I/O, each rank its own pieces (io/README.md), with the default
 * hints:
 *  - blocks of 4-7 KiB dealt round the ranks: the file byte for byte after
 *    MPI_File_write_at_all, and the data read back with
 *    MPI_File_read_at_all;
 *  - rank 0 writes 8 KiB blocks with 300-byte gaps between them, which the
 *    other ranks write at once (each also one large block at the end, so
 *    that its pieces average over 4 KiB): a write of rank 0's that read its
 *    gaps and wrote them back (data sieving) would put back stale bytes
 *    over theirs. 20 passes, each with new bytes, the file checked after
 *    each.
 *
 *   io_alone DIR */
#include "io_util.h"

enum { DEALT_BLOCKS = 64, GAPS = 96, BIG = 8192, GAP = 300, TAIL = 512 << 10, PASSES = 20 };

static unsigned char value(long at, int pass)
{
    return (unsigned char)(1 + (at * 31 + pass * 17) % 251);
}

/* An indexed filetype of count (length, displacement) runs, resized to the
 * file's length so that the view does not tile before the end. */
static MPI_Datatype runs_type(int count, int *lengths, int *displs, long file_bytes)
{
    MPI_Datatype type, whole;
    CHECK(MPI_Type_indexed(count, lengths, displs, MPI_BYTE, &type));
    CHECK(MPI_Type_create_resized(type, 0, (MPI_Aint)file_bytes, &whole));
    CHECK(MPI_Type_commit(&whole));
    MPI_Type_free(&type);
    return whole;
}

/* Writes this rank's runs collectively, checks the file against what every
 * rank wrote (each byte's value depends on its offset), and reads the runs
 * back collectively. */
static void write_and_check(const char *what, int count, int *lengths, int *displs,
                            long file_bytes, int pass)
{
    step("%s, pass %d", what, pass);
    const char *path = io_path("io_alone.dat");
    MPI_Datatype runs = runs_type(count, lengths, displs, file_bytes);
    int bytes = 0;
    for (int k = 0; k < count; k++)
        bytes += lengths[k];
    unsigned char *data = malloc((size_t)bytes + 1), *back = malloc((size_t)bytes + 1);
    int at = 0;
    for (int k = 0; k < count; k++)
        for (int i = 0; i < lengths[k]; i++)
            data[at++] = value(displs[k] + i, pass);

    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                        &fh));
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, runs, "native", MPI_INFO_NULL));
    MPI_Status status;
    int got;
    CHECK(MPI_File_write_at_all(fh, 0, data, bytes, MPI_BYTE, &status));
    CHECK(MPI_Get_count(&status, MPI_BYTE, &got));
    check_eq(got, bytes, "MPI_Get_count of the write");
    CHECK(MPI_File_sync(fh));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_sync(fh));
    if (rank == 0) {
        unsigned char *want = malloc((size_t)file_bytes);
        for (long b = 0; b < file_bytes; b++)
            want[b] = value(b, pass);
        check_file(path, want, (size_t)file_bytes);
        free(want);
    }
    memset(back, 0, (size_t)bytes + 1);
    CHECK(MPI_File_read_at_all(fh, 0, back, bytes, MPI_BYTE, &status));
    CHECK(MPI_Get_count(&status, MPI_BYTE, &got));
    check_eq(got, bytes, "MPI_Get_count of the read");
    for (int b = 0; b < bytes; b++)
        if (back[b] != data[b])
            io_fail("byte %d of the data read back: 0x%02x, expected 0x%02x", b, back[b], data[b]);
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Type_free(&runs);
    free(data);
    free(back);
}

/* Block j, 4-7 KiB, belongs to rank j % nprocs. */
static void dealt_blocks(void)
{
    int lengths[DEALT_BLOCKS], displs[DEALT_BLOCKS], count = 0;
    long at = 0;
    for (int j = 0; j < DEALT_BLOCKS * nprocs; j++) {
        int length = 4096 + j * 997 % 3072;
        if (j % nprocs == rank) {
            lengths[count] = length;
            displs[count++] = (int)at;
        }
        at += length;
    }
    write_and_check("blocks of 4-7 KiB dealt round the ranks", count, lengths, displs, at, 0);
}

/* Rank 0: GAPS + 1 blocks of BIG bytes with a GAP between each two; gap g
 * belongs to rank 1 + g % (nprocs - 1), and each of those ranks has a block
 * of TAIL bytes after the last of rank 0's, in rank order. */
static void gaps_between(int pass)
{
    int lengths[GAPS + 1], displs[GAPS + 1], count = 0;
    long at = 0;
    for (int g = 0; g <= GAPS; g++) {
        if (rank == 0) {
            lengths[count] = BIG;
            displs[count++] = (int)at;
        }
        at += BIG;
        if (g == GAPS)
            break;
        if (rank == 1 + g % (nprocs - 1)) {
            lengths[count] = GAP;
            displs[count++] = (int)at;
        }
        at += GAP;
    }
    for (int r = 1; r < nprocs; r++) {
        if (r == rank) {
            lengths[count] = TAIL;
            displs[count++] = (int)at;
        }
        at += TAIL;
    }
    write_and_check("rank 0's blocks, the others' gaps between them", count, lengths, displs, at,
                    pass);
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, "io_alone");
    dealt_blocks();
    for (int pass = 1; pass <= PASSES && nprocs > 1; pass++)
        gaps_between(pass);
    io_finish();
    return 0;
}
