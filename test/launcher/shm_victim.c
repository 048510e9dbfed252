/* For the shm_squat_*.sh tests (plain MPI): traffic whose every byte is
 * checked, point-to-point (8 B to 100 KiB round a ring: inline in the
 * shared-memory rings, and copied out of the sender) and collective
 * (allreduces on MPI_COMM_WORLD and on three duplicates, each of which
 * sets up a segment of its own), while another user watches /dev/shm or
 * has made some of the job's files first.
 *
 *   shm_victim [MARKER]
 *
 * Prints "shm_victim: N ranks OK" at rank 0; calls MPI_Abort at the first
 * wrong byte. MARKER is ignored: tests pass a unique word to find leftover
 * processes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const char *what, int rank, long at, long got, long expected)
{
    fprintf(stderr, "shm_victim: rank %d: %s at %ld: got %ld, expected %ld\n", rank, what, at,
            got, expected);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int pattern(int round, int source, int i)
{
    return round * 1000003 + source * 7919 + i;
}

/* One round: count ints from the left neighbour, checked. */
static void ring_round(int round, int count, int rank, int size, int *out, int *in)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < count; i++)
        out[i] = pattern(round, rank, i);
    MPI_Status st;
    MPI_Sendrecv(out, count, MPI_INT, right, round, in, count, MPI_INT, left, round,
                 MPI_COMM_WORLD, &st);
    int got;
    MPI_Get_count(&st, MPI_INT, &got);
    if (got != count || st.MPI_SOURCE != left)
        die("count or source", rank, round, got, count);
    for (int i = 0; i < count; i++)
        if (in[i] != pattern(round, left, i))
            die("ring byte", rank, i, in[i], pattern(round, left, i));
}

static void allreduce_on(MPI_Comm comm, int round, int rank, int size)
{
    long v = rank + round, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, comm);
    long expected = (long)size * (size - 1) / 2 + (long)size * round;
    if (sum != expected)
        die("allreduce", rank, round, sum, expected);
}

int main(int argc, char **argv)
{
    static const int counts[] = {2, 1024, 25600};
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *out = malloc(sizeof(int) * 25600), *in = malloc(sizeof(int) * 25600);
    if (!out || !in)
        die("malloc", rank, 0, 0, 0);
    for (int round = 0; round < 60; round++)
        ring_round(round, counts[round % 3], rank, size, out, in);
    allreduce_on(MPI_COMM_WORLD, 0, rank, size);
    for (int c = 1; c <= 3; c++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        allreduce_on(dup, c, rank, size);
        MPI_Comm_free(&dup);
    }
    if (rank == 0)
        printf("shm_victim: %d ranks OK\n", size);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
