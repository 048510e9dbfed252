/* coll_mismatch: collectives whose counts differ between processes (the
 * standard calls the program erroneous; MPICH reports it), under
 * MPI_ERRORS_RETURN. A process that gets fewer or more bytes from another
 * than its own count describes must return MPI_ERR_TRUNCATE, not
 * MPI_SUCCESS with the rest of its buffer left as it was; no process may be
 * left waiting; a process that succeeds has the root's data; and the
 * communicator still works afterwards.
 *
 * Broadcasts: the other processes' count is twice, then half the root's,
 * 8 ints (two processes: the direct path of pair.c; more: the shared-memory
 * path, shm_coll.c) and 64 Ki ints (256 KiB: on two processes a schedule,
 * a message by address; on more, blocking, the shared-memory path in
 * pieces, where every process walks the root's pieces); blocking, and
 * MPI_Ibcast with MPI_Wait. On two processes the
 * non-root receives from the root and must report it. On more, a process
 * that gets its data from another non-root may see a message of its own
 * length, so the test asks that at least one process reports the error and
 * none another class.
 *
 * A small MPI_Allreduce with 4 ints at rank 0 and 8 elsewhere: every
 * process sees another's wrong length, and every one must report it. So
 * must every process of an allgather or alltoall to which rank 0 gives
 * twice the count, blocking, nonblocking and persistent. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int rank, size, failed;

static void fail(const char *what, int root_count, int count)
{
    fprintf(stderr, "coll_mismatch: rank %d, root count %d, count %d: %s\n", rank, root_count,
            count, what);
    failed = 1;
}

/* One mismatched broadcast of root_count ints at the root, count
 * elsewhere: MPI_Bcast, or MPI_Ibcast and MPI_Wait. */
static void mismatched_bcast(int root_count, int other_count, int nonblocking)
{
    int count = rank == 0 ? root_count : other_count;
    int *buf = malloc((size_t)count * sizeof(int));
    for (int i = 0; i < count; i++)
        buf[i] = rank == 0 ? 7 * i + 1 : -1;
    int rc;
    if (nonblocking) {
        MPI_Request req;
        rc = MPI_Ibcast(buf, count, MPI_INT, 0, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        rc = MPI_Bcast(buf, count, MPI_INT, 0, MPI_COMM_WORLD);
    }
    int cls;
    MPI_Error_class(rc, &cls);
    if (rc != MPI_SUCCESS && cls != MPI_ERR_TRUNCATE)
        fail("an error class other than MPI_ERR_TRUNCATE", root_count, count);
    if (rank != 0 && size == 2 && rc == MPI_SUCCESS)
        fail("MPI_SUCCESS: the mismatch went unreported", root_count, count);
    /* what arrived of the root's data, wherever this rank got it from */
    int arrived = count < root_count ? count : root_count;
    for (int i = 0; rc == MPI_SUCCESS && i < arrived; i++)
        if (buf[i] != 7 * i + 1) {
            fail("wrong data", root_count, count);
            break;
        }
    free(buf);

    /* the communicator still works, and someone saw the mismatch */
    int reported = rank != 0 && rc != MPI_SUCCESS, total = 0;
    if (MPI_Allreduce(&reported, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
        fail("MPI_Allreduce after the mismatch failed", root_count, count);
    if (total == 0)
        fail("no process reported the mismatch", root_count, count);
}

static void mismatched_allreduce(void)
{
    int count = rank == 0 ? 4 : 8, in[8] = {1, 1, 1, 1, 1, 1, 1, 1}, out[8];
    int rc = MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD), cls;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE)
        fail(rc == MPI_SUCCESS ? "MPI_Allreduce: the mismatch went unreported"
                               : "MPI_Allreduce: an error class other than MPI_ERR_TRUNCATE",
             4, count);
    int one = 1, total = 0;
    if (MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
        total != size)
        fail("MPI_Allreduce after the mismatched one failed", 4, count);
}

/* Allgather and alltoall where rank 0 sends two ints a block and every
 * process receives one: blocking, nonblocking (with MPI_Wait) and
 * persistent, every process must return MPI_ERR_TRUNCATE, none may be
 * left waiting (rank 0 sees its own block's length differ before any
 * message: it must still take part). */
static void mismatched_exchange(int alltoall, int how)
{
    static const char *hows[] = {"blocking", "nonblocking", "persistent"};
    int sendcount = rank == 0 ? 2 : 1, in[16], out[8] = {0};
    for (int i = 0; i < 16; i++)
        in[i] = rank;
    MPI_Request req;
    int rc;
    if (how == 0)
        rc = alltoall ? MPI_Alltoall(in, sendcount, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD)
                      : MPI_Allgather(in, sendcount, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
    else if (how == 1)
        rc = alltoall
                 ? MPI_Ialltoall(in, sendcount, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD, &req)
                 : MPI_Iallgather(in, sendcount, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD, &req);
    else
        rc = alltoall ? MPI_Alltoall_init(in, sendcount, MPI_INT, out, 1, MPI_INT,
                                          MPI_COMM_WORLD, MPI_INFO_NULL, &req)
                      : MPI_Allgather_init(in, sendcount, MPI_INT, out, 1, MPI_INT,
                                           MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    if (how == 2 && rc == MPI_SUCCESS)
        rc = MPI_Start(&req);
    if (how > 0 && rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (how == 2)
        MPI_Request_free(&req);
    int cls;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TRUNCATE) {
        char what[96];
        snprintf(what, sizeof(what), "%s %s: %s", hows[how], alltoall ? "alltoall" : "allgather",
                 rc == MPI_SUCCESS ? "the mismatch went unreported" : "another error class");
        fail(what, 2, sendcount);
    }
    int one = 1, total = 0;
    if (MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS ||
        total != size)
        fail("MPI_Allreduce after a mismatched exchange failed", 2, sendcount);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const int sizes[] = {64 * 1024, 8};
    for (int i = 0; i < 2; i++) {
        for (int nonblocking = 0; nonblocking < 2; nonblocking++) {
            mismatched_bcast(sizes[i], 2 * sizes[i], nonblocking);
            mismatched_bcast(2 * sizes[i], sizes[i], nonblocking);
        }
    }
    mismatched_allreduce();
    for (int alltoall = 0; alltoall < 2; alltoall++)
        for (int how = 0; how < 3; how++)
            mismatched_exchange(alltoall, how);
    if (!failed)
        printf("coll_mismatch: %d ranks OK\n", size);
    MPI_Finalize();
    return failed;
}
