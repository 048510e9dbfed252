/* intercomm_rooted: rooted collectives on an intercommunicator read only
 * the arguments each side needs. Group A (the low half) holds the root
 * (MPI_ROOT at its rank 0, MPI_PROC_NULL at the others); group B sends or
 * receives. Processes pass NULL buffers and MPI_DATATYPE_NULL where the
 * standard says the arguments are not significant, and the results must
 * still be right: bcast from A's root to all of B, gather and reduce of B's
 * world ranks at A's root. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("intercomm_rooted: needs 2 ranks or more\n");
        MPI_Finalize();
        return 77;
    }
    int half = size / 2, in_a = rank < half, local_rank;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, in_a, rank, &local);
    MPI_Comm_rank(local, &local_rank);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? half : 0, 1, &inter);
    int is_root = in_a && local_rank == 0;
    int root = in_a ? (is_root ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int b_size = size - half, failed = 0;

    int value = 42, got = -1;
    if (in_a && !is_root)
        MPI_Bcast(NULL, 1, MPI_DATATYPE_NULL, root, inter);
    else
        MPI_Bcast(is_root ? &value : &got, 1, MPI_INT, root, inter);
    if (!in_a && got != 42) {
        fprintf(stderr, "intercomm_rooted: rank %d: bcast gave %d\n", rank, got);
        failed = 1;
    }

    int *gathered = calloc((size_t)b_size, sizeof(int));
    if (in_a)
        MPI_Gather(NULL, 1, MPI_DATATYPE_NULL, is_root ? gathered : NULL, 1, MPI_INT, root, inter);
    else
        MPI_Gather(&rank, 1, MPI_INT, NULL, 1, MPI_DATATYPE_NULL, 0, inter);
    for (int i = 0; is_root && i < b_size; i++) {
        if (gathered[i] != half + i) {
            fprintf(stderr, "intercomm_rooted: gather slot %d is %d, expected %d\n", i,
                    gathered[i], half + i);
            failed = 1;
        }
    }

    int sum = -1;
    if (in_a)
        MPI_Reduce(NULL, is_root ? &sum : NULL, 1, MPI_INT, MPI_SUM, root, inter);
    else
        MPI_Reduce(&rank, NULL, 1, MPI_INT, MPI_SUM, 0, inter);
    int want = (half + size - 1) * b_size / 2;
    if (is_root && sum != want) {
        fprintf(stderr, "intercomm_rooted: reduce gave %d, expected %d\n", sum, want);
        failed = 1;
    }

    free(gathered);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (failed)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("intercomm_rooted: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
