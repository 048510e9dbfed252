/* io_failure: what a user sees when a collective write cannot finish.
 *
 *   io_failure DIR kill RANK   collective writes of interleaved blocks in a
 *                              loop; RANK kills itself (SIGKILL) in the third,
 *                              between its pieces' exchange and the next
 *                              call, while the others wait in the collective:
 *                              mpirun must end the job, naming RANK.
 *   io_failure DIR full        every rank writes collectively (collective
 *                              buffering forced on, so aggregators write for
 *                              the others) to /dev/full: every rank must get
 *                              MPI_ERR_NO_SPACE, none a silent success, from
 *                              the blocking call and from MPI_Wait; in one
 *                              round, and in many (cb_buffer_size 16 KiB:
 *                              the first write fails while the next
 *                              round's pieces arrive).
 * Prints "io_failure: N ranks OK" on rank 0 when the full case behaves. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BLOCK = 4096, BLOCKS = 64 };

static void die(const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "io_failure: %s: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Interleaved blocks: rank r owns blocks r, r + size, ... of the file. */
static void interleaved_view(MPI_File fh, int rank, int size)
{
    MPI_Datatype block, tiled;
    MPI_Type_contiguous(BLOCK, MPI_BYTE, &block);
    MPI_Type_create_resized(block, 0, (MPI_Aint)BLOCK * size, &tiled);
    MPI_Type_commit(&tiled);
    int rc = MPI_File_set_view(fh, (MPI_Offset)rank * BLOCK, MPI_BYTE, tiled, "native",
                               MPI_INFO_NULL);
    if (rc != MPI_SUCCESS)
        die("MPI_File_set_view", rc);
    MPI_Type_free(&tiled);
    MPI_Type_free(&block);
}

static void killed_in_collective(const char *dir, int victim, int rank, int size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/io_failure.dat", dir);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY,
                           MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS)
        die("MPI_File_open", rc);
    interleaved_view(fh, rank, size);
    char *data = malloc((size_t)BLOCK * BLOCKS);
    memset(data, 'a' + rank, (size_t)BLOCK * BLOCKS);
    for (int round = 0; round < 10; round++) {
        if (round == 2 && rank == victim)
            raise(SIGKILL);
        rc = MPI_File_write_at_all(fh, 0, data, BLOCK * BLOCKS, MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            die("MPI_File_write_at_all", rc);
    }
    fprintf(stderr, "io_failure: rank %d finished every write although rank %d died\n", rank,
            victim);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void full_disk(int rank, int size, const char *cb_buffer_size)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    if (cb_buffer_size)
        MPI_Info_set(info, "cb_buffer_size", cb_buffer_size);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, "/dev/full", MPI_MODE_WRONLY, info, &fh);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        die("MPI_File_open of /dev/full", rc);
    interleaved_view(fh, rank, size);
    char *data = calloc(BLOCKS, BLOCK);
    MPI_Status status;
    rc = MPI_File_write_at_all(fh, 0, data, BLOCK * BLOCKS, MPI_BYTE, &status);
    int class;
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_NO_SPACE) {
        fprintf(stderr, "io_failure: rank %d: collective write to /dev/full (cb_buffer_size "
                        "%s) returned class %d, expected MPI_ERR_NO_SPACE (%d)\n", rank,
                cb_buffer_size ? cb_buffer_size : "default", class, MPI_ERR_NO_SPACE);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The nonblocking form: MPI_Wait returns the class through the file's
     * handler (MPI_ERRORS_RETURN by default), not MPI_COMM_WORLD's. */
    MPI_Request request;
    rc = MPI_File_iwrite_at_all(fh, 0, data, BLOCK * BLOCKS, MPI_BYTE, &request);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&request, &status);
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_NO_SPACE) {
        fprintf(stderr, "io_failure: rank %d: MPI_Wait of a collective write to /dev/full "
                        "(cb_buffer_size %s) returned class %d, expected MPI_ERR_NO_SPACE (%d)\n",
                rank, cb_buffer_size ? cb_buffer_size : "default", class, MPI_ERR_NO_SPACE);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_close(&fh);
    free(data);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 4 && strcmp(argv[2], "kill") == 0)
        killed_in_collective(argv[1], atoi(argv[3]), rank, size);
    else if (argc >= 3 && strcmp(argv[2], "full") == 0) {
        full_disk(rank, size, NULL);
        full_disk(rank, size, "16384");
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("io_failure: %d ranks OK\n", size);
    } else
        die("usage: io_failure DIR kill RANK | io_failure DIR full", MPI_ERR_ARG);
    MPI_Finalize();
    return 0;
}
