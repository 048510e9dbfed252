/* rma_progress: passive target while the target computes. Rank 0 exposes
 * one int and then computes without any MPI call until the int becomes
 * the value rank 1 puts there (under an exclusive lock), or until 20 s
 * have passed, which fails the test: the put could not complete without
 * the target's help. On one host the origin does it itself (the direct
 * path); between hosts, or with OMPI_LITE_RMA_SHARED_MEMORY=0, it takes
 * the progress thread (OMPI_LITE_RMA_PROGRESS_US). Then every rank but 0
 * also takes and releases the lock, to show the unlock came back. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rank, size, *word;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &word, &win);
    *word = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        double give_up = seconds() + 20;
        while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != 42 && seconds() < give_up)
            ; /* computing: no MPI call */
        ok = __atomic_load_n(word, __ATOMIC_ACQUIRE) == 42;
        if (!ok)
            printf("rma_progress: rank 0 computed 20 s and the put of rank 1 never arrived\n");
    } else if (rank == 1) {
        int value = 42;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 0 && all)
        printf("rma_progress: %d ranks OK\n", size);
    MPI_Finalize();
    return all ? 0 : 1;
}
