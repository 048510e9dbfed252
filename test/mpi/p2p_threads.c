/* p2p_threads: MPI_THREAD_MULTIPLE.
 *
 * MPI_Init_thread(MPI_THREAD_MULTIPLE) must provide MPI_THREAD_MULTIPLE.
 * Then NTHREADS threads per rank each exchange NITER messages round the
 * ring on MPI_COMM_WORLD with the thread of the same index on the
 * neighbours, using the thread index as tag, so that the threads' traffic
 * never mixes: each thread sends right and receives from the left with, in
 * turn, MPI_Sendrecv, MPI_Isend + MPI_Recv, and MPI_Irecv + MPI_Isend +
 * MPI_Waitall. Every tenth message is long (32 KiB, rendezvous). Data and
 * statuses are checked; the time per message is printed, not asserted. */
#include "p2p_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { NTHREADS = 4, NITER = 1000, SHORT = 64, LONG = 32 * 1024 };

static int left, right;

static int size_of(int i)
{
    return i % 10 == 9 ? LONG : SHORT + i % 7;
}

static unsigned seed_of(int src, int thread, int i)
{
    return ((unsigned)src * NTHREADS + (unsigned)thread) * 100003u + (unsigned)i;
}

static void *run_thread(void *arg)
{
    int t = (int)(long)arg;
    unsigned char *out = malloc(LONG), *in = malloc(LONG);
    MPI_Request req[2];
    MPI_Status st[2];
    char what[96];

    if (!out || !in)
        p2p_die("thread %d: out of memory", t);
    for (int i = 0; i < NITER; i++) {
        int n = size_of(i);

        p2p_fill(out, (size_t)n, seed_of(p2p_rank, t, i));
        switch (i % 3) {
        case 0:
            MPI_Sendrecv(out, n, MPI_BYTE, right, t, in, LONG, MPI_BYTE, left, t, MPI_COMM_WORLD,
                         &st[0]);
            break;
        case 1:
            MPI_Isend(out, n, MPI_BYTE, right, t, MPI_COMM_WORLD, &req[1]);
            MPI_Recv(in, LONG, MPI_BYTE, left, t, MPI_COMM_WORLD, &st[0]);
            MPI_Wait(&req[1], MPI_STATUS_IGNORE);
            break;
        default:
            MPI_Irecv(in, LONG, MPI_BYTE, left, t, MPI_COMM_WORLD, &req[0]);
            MPI_Isend(out, n, MPI_BYTE, right, t, MPI_COMM_WORLD, &req[1]);
            MPI_Waitall(2, req, st);
            break;
        }
        snprintf(what, sizeof what, "thread %d, message %d (%s)", t, i,
                 i % 3 == 0 ? "MPI_Sendrecv" : i % 3 == 1 ? "MPI_Recv" : "MPI_Waitall");
        p2p_check_status(what, &st[0], left, t, MPI_BYTE, n);
        p2p_check_data(what, in, (size_t)n, seed_of(left, t, i));
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t threads[NTHREADS];
    double start, elapsed;
    int provided = p2p_init("p2p_threads", &argc, &argv, MPI_THREAD_MULTIPLE);

    if (provided != MPI_THREAD_MULTIPLE)
        p2p_die("MPI_Init_thread(MPI_THREAD_MULTIPLE) provided %d", provided);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;

    MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    for (long t = 0; t < NTHREADS; t++)
        if (pthread_create(&threads[t], NULL, run_thread, (void *)t) != 0)
            p2p_die("pthread_create failed");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(threads[t], NULL);
    elapsed = MPI_Wtime() - start;
    if (p2p_rank == 0)
        printf("p2p_threads: %d threads x %d messages per rank in %.3f s (%.1f us per message "
               "per rank)\n",
               NTHREADS, NITER, elapsed, elapsed * 1e6 / (NTHREADS * NITER));
    p2p_finish();
    return 0;
}
