/* For the multi-host launcher test (plain MPI): every rank prints
 *     rank R of N on PROCESSOR-NAME
 * then passes BYTES (argv[1], default 4 MiB) to the next rank and receives
 * from the previous one, round a ring, checking the data. Messages between
 * hosts must cross the network; the test checks the interfaces' counters. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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
    unsigned char *out = malloc((size_t)bytes), *in = malloc((size_t)bytes);
    for (long i = 0; i < bytes; i++)
        out[i] = (unsigned char)(rank * 7 + i);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Request req;
    MPI_Irecv(in, (int)bytes, MPI_BYTE, prev, 5, MPI_COMM_WORLD, &req);
    MPI_Send(out, (int)bytes, MPI_BYTE, next, 5, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (long i = 0; i < bytes && !bad; i++)
        bad = in[i] != (unsigned char)(prev * 7 + i);
    if (bad)
        fprintf(stderr, "rank %d: wrong data from rank %d\n", rank, prev);
    MPI_Barrier(MPI_COMM_WORLD);
    free(out);
    free(in);
    MPI_Finalize();
    return bad;
}
