/* For the multi-host launcher test (plain MPI): every rank prints
 *     rank R of N on PROCESSOR-NAME
 * then passes BYTES (argv[1], default 4 MiB) to the next rank and receives
 * from the previous one, round a ring, checking the data: once contiguous,
 * once as every other double of the same buffers (a vector, which the
 * transport packs itself), where the doubles between must stay untouched.
 * Messages between hosts must cross the network; the test checks the
 * interfaces' counters. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Sends out to next and receives in from prev, count elements of type. */
static void ring_pass(void *out, void *in, int count, MPI_Datatype type, int next, int prev)
{
    MPI_Request req;
    MPI_Irecv(in, count, type, prev, 5, MPI_COMM_WORLD, &req);
    MPI_Send(out, count, type, next, 5, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static double value_of(int rank, long i)
{
    return rank * 1e6 + (double)i;
}

/* Every other double of out goes to the next rank's even doubles; the odd
 * ones of in keep their -1. Returns whether all is right. */
static int vector_pass(double *out, double *in, long doubles, int rank, int next, int prev)
{
    long pairs = doubles / 2;
    for (long i = 0; i < doubles; i++) {
        out[i] = value_of(rank, i);
        in[i] = -1.0;
    }
    MPI_Datatype every_other;
    MPI_Type_vector((int)pairs, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    ring_pass(out, in, 1, every_other, next, prev);
    MPI_Type_free(&every_other);
    for (long i = 0; i < 2 * pairs; i++)
        if (in[i] != (i % 2 ? -1.0 : value_of(prev, i)))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size, len, bad = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    printf("rank %d of %d on %s\n", rank, size, name);
    fflush(stdout);
    long bytes = argc > 1 ? atol(argv[1]) : 4L << 20;
    long doubles = bytes / (long)sizeof(double);
    double *out = malloc((size_t)bytes);
    double *in = malloc((size_t)bytes);
    unsigned char *out_bytes = (unsigned char *)out, *in_bytes = (unsigned char *)in;
    for (long i = 0; i < bytes; i++)
        out_bytes[i] = (unsigned char)(rank * 7 + i);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    ring_pass(out, in, (int)bytes, MPI_BYTE, next, prev);
    for (long i = 0; i < bytes && !bad; i++)
        bad = in_bytes[i] != (unsigned char)(prev * 7 + i);
    if (bad)
        fprintf(stderr, "rank %d: wrong data from rank %d\n", rank, prev);
    else if (!vector_pass(out, in, doubles, rank, next, prev)) {
        fprintf(stderr, "rank %d: wrong vector data from rank %d\n", rank, prev);
        bad = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(out);
    free(in);
    MPI_Finalize();
    return bad;
}
