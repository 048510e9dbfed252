/* split_host: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups the ranks of
 * each host, and collectives run across hosts. Each rank checks that every
 * member of its node communicator reports the same processor name, that
 * the node communicator keeps world order, and that an allreduce over the
 * world gives the sum of the ranks; it prints its node communicator's size
 * and its host for the test script to compare with the hostfile. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(int rank, const char *what)
{
    fprintf(stderr, "split_host: rank %d: %s\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int node_rank, node_size;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);

    char *names = malloc((size_t)node_size * MPI_MAX_PROCESSOR_NAME);
    int *world = malloc(sizeof(int) * (size_t)node_size);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  node);
    MPI_Allgather(&rank, 1, MPI_INT, world, 1, MPI_INT, node);
    for (int i = 0; i < node_size; i++) {
        if (strcmp(names + (size_t)i * MPI_MAX_PROCESSOR_NAME, name) != 0)
            fail(rank, "a member of the node communicator is on another host");
        if (i > 0 && world[i] <= world[i - 1])
            fail(rank, "the node communicator is not in world order");
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2)
        fail(rank, "allreduce across hosts gave a wrong sum");
    printf("rank %d: node size %d on %s\n", rank, node_size, name);
    free(names);
    free(world);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
