/* comm_threads: threads of every rank create and free communicators at the
 * same time (MPI_THREAD_MULTIPLE), each on its own parent communicator, so
 * that the context-id agreements of different parents overlap. Every new
 * communicator must work (an allreduce over it gives the right sum) and the
 * loops must end (no agreement starves).
 *
 * Then two threads per rank each duplicate MPI_COMM_SELF under a lock the
 * program shares between them, and then their own parent, one of them
 * after a pause that differs from rank to rank: a thread holding the lock
 * must not wait, in its duplicate of MPI_COMM_SELF, for the agreement of
 * the other thread's parent, which waits for the other ranks, whose own
 * threads wait for that lock (MPICH's comm_dup_deadlock).
 *
 * Next, THREADS threads per rank call MPI_Comm_create_group on
 * MPI_COMM_WORLD's group at once, each with its own tag, 20 times: their
 * agreements must not livelock (MPICH's comm_create_group_threads2).
 *
 * Then THREADS threads per rank each MPI_Comm_idup their own parent and
 * wait for it; on even ranks, the even threads start only when the odd
 * ones have finished (MPICH's idup_deadlock): an agreement in flight that
 * waits for those even threads must not hold back the odd threads'. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 3
#define ROUNDS 60

static int world_rank, world_size;

typedef struct {
    MPI_Comm parent;
    int index;
    int failed;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    for (int i = 0; i < ROUNDS && !w->failed; i++) {
        MPI_Comm c;
        if (i % 2)
            MPI_Comm_dup(w->parent, &c);
        else
            MPI_Comm_split(w->parent, 0, -world_rank, &c);
        int value = world_rank + w->index, sum = -1;
        MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, c);
        int want = world_size * (world_size - 1) / 2 + world_size * w->index;
        if (sum != want) {
            fprintf(stderr, "comm_threads: rank %d thread %d round %d: sum %d, expected %d\n",
                    world_rank, w->index, i, sum, want);
            w->failed = 1;
        }
        MPI_Comm_free(&c);
    }
    return NULL;
}

/* Runs body on n threads (at most THREADS), each with a worker of its
 * index and, when with_parents, its own duplicate of MPI_COMM_WORLD (made
 * in order, on the main thread); nonzero when one failed. */
static int run_workers(void *(*body)(void *), int n, bool with_parents)
{
    worker_t w[THREADS];
    pthread_t t[THREADS];
    int failed = 0;
    for (int i = 0; i < n; i++) {
        w[i] = (worker_t){.index = i};
        if (with_parents)
            MPI_Comm_dup(MPI_COMM_WORLD, &w[i].parent);
    }
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, body, &w[i]);
    for (int i = 0; i < n; i++) {
        pthread_join(t[i], NULL);
        failed |= w[i].failed;
        if (with_parents)
            MPI_Comm_free(&w[i].parent);
    }
    return failed;
}

static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;

static void *self_then_parent(void *arg)
{
    worker_t *w = arg;
    MPI_Comm self, c;
    if (w->index == world_rank % 2)
        usleep(100000);
    pthread_mutex_lock(&self_lock);
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    pthread_mutex_unlock(&self_lock);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, self);
    MPI_Comm_free(&self);
    MPI_Comm_dup(w->parent, &c);
    MPI_Comm_free(&c);
    w->failed = sum != 1;
    return NULL;
}

static void *create_groups(void *arg)
{
    worker_t *w = arg;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < 20 && !w->failed; i++) {
        MPI_Comm c;
        int one = 1, sum = 0;
        MPI_Comm_create_group(MPI_COMM_WORLD, world, w->index, &c);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        w->failed = sum != world_size;
        MPI_Comm_free(&c);
    }
    MPI_Group_free(&world);
    return NULL;
}

static atomic_int odd_idups_left;

static void *idup_own_parent(void *arg)
{
    worker_t *w = arg;
    while (world_rank % 2 == 0 && w->index % 2 == 0 && atomic_load(&odd_idups_left) > 0)
        sched_yield();
    MPI_Comm c;
    MPI_Request req;
    MPI_Comm_idup(w->parent, &c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (w->index % 2)
        atomic_fetch_sub(&odd_idups_left, 1);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    w->failed = sum != world_size;
    MPI_Comm_free(&c);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "comm_threads: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int failed = run_workers(work, THREADS, true);
    failed |= run_workers(self_then_parent, 2, true);
    failed |= run_workers(create_groups, THREADS, false);
    atomic_store(&odd_idups_left, THREADS / 2);
    failed |= run_workers(idup_own_parent, THREADS, true);
    if (failed)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("comm_threads: %d ranks x %d threads x %d communicators OK\n", world_size, THREADS,
               ROUNDS);
    MPI_Finalize();
    return 0;
}
