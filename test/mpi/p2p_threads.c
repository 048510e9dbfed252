/* p2p_threads: MPI_THREAD_MULTIPLE.
 *
 * MPI_Init_thread(MPI_THREAD_MULTIPLE) must provide MPI_THREAD_MULTIPLE.
 * Then NTHREADS threads per rank each exchange NITER messages round the
 * ring on MPI_COMM_WORLD with the thread of the same index on the
 * neighbours, using the thread index as tag, so that the threads' traffic
 * never mixes: each thread sends right and receives from the left with, in
 * turn, MPI_Sendrecv, MPI_Isend + MPI_Recv, and MPI_Irecv + MPI_Isend +
 * MPI_Waitall. Every tenth message is long (32 KiB, rendezvous). Data and
 * statuses are checked; the time per message is printed, not asserted.
 *
 * Then BSEND_ROUNDS rounds, separated by MPI_Barrier, in which every thread
 * sends BURST messages of 1 MiB right with MPI_Bsend and MPI_Ibsend and
 * receives as many from the left, all through one attached buffer that
 * holds exactly one round (MPI_BSEND_OVERHEAD per message): threads share
 * the buffer, and each round must find the previous round's space free
 * (MPICH's mt_bsendrecv_huge). */
#include "p2p_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { NTHREADS = 4, NITER = 1000, SHORT = 64, LONG = 32 * 1024 };
enum { BSEND_ROUNDS = 6, BURST = 4, BUFFERED = 1024 * 1024 };

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

static void *bsend_burst(void *arg)
{
    int t = (int)(long)arg;
    unsigned char *out = malloc(BUFFERED), *in = malloc(BUFFERED);
    MPI_Request req;
    MPI_Status st;
    char what[96];

    if (!out || !in)
        p2p_die("thread %d: out of memory", t);
    for (int i = 0; i < BURST; i++) {
        p2p_fill(out, BUFFERED, seed_of(p2p_rank, t, i));
        if (i % 2) {
            p2p_check_ok("MPI_Ibsend", MPI_Ibsend(out, BUFFERED, MPI_BYTE, right, t, MPI_COMM_WORLD,
                                                  &req));
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            p2p_check_ok("MPI_Bsend", MPI_Bsend(out, BUFFERED, MPI_BYTE, right, t, MPI_COMM_WORLD));
        }
    }
    for (int i = 0; i < BURST; i++) {
        MPI_Recv(in, BUFFERED, MPI_BYTE, left, t, MPI_COMM_WORLD, &st);
        snprintf(what, sizeof what, "thread %d, buffered message %d", t, i);
        p2p_check_status(what, &st, left, t, MPI_BYTE, BUFFERED);
        p2p_check_data(what, in, BUFFERED, seed_of(left, t, i));
    }
    free(out);
    free(in);
    return NULL;
}

static void run_threads(void *(*body)(void *))
{
    pthread_t threads[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        if (pthread_create(&threads[t], NULL, body, (void *)t) != 0)
            p2p_die("pthread_create failed");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(threads[t], NULL);
}

static void bsend_rounds(void)
{
    int size = NTHREADS * BURST * (BUFFERED + MPI_BSEND_OVERHEAD);
    void *buffer = malloc((size_t)size), *detached;
    if (!buffer)
        p2p_die("out of memory");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Buffer_attach(buffer, size);
    for (int round = 0; round < BSEND_ROUNDS; round++) {
        run_threads(bsend_burst);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Buffer_detach(&detached, &size);
    free(buffer);
}

int main(int argc, char **argv)
{
    double start, elapsed;
    int provided = p2p_init("p2p_threads", &argc, &argv, MPI_THREAD_MULTIPLE);

    if (provided != MPI_THREAD_MULTIPLE)
        p2p_die("MPI_Init_thread(MPI_THREAD_MULTIPLE) provided %d", provided);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;

    MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    run_threads(run_thread);
    elapsed = MPI_Wtime() - start;
    if (p2p_rank == 0)
        printf("p2p_threads: %d threads x %d messages per rank in %.3f s (%.1f us per message "
               "per rank)\n",
               NTHREADS, NITER, elapsed, elapsed * 1e6 / (NTHREADS * NITER));
    bsend_rounds();
    p2p_finish();
    return 0;
}
