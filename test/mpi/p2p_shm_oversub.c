/* p2p_shm_oversub: more ranks than cores (8 on 2), all in blocking calls,
 * so that progress depends on ranks that wait being put to sleep and woken
 * when their message comes. A channel that only notices a message when a
 * rank happens to poll, or that waits for a safety-net timeout, makes this
 * test run out of time (the script's mpirun --timeout), which is its
 * failure; the times are printed, not asserted.
 *
 * 1. NEXCH exchanges round the ring with blocking calls: even ranks send
 *    right then receive from the left, odd ranks the other way round; one
 *    in ten by MPI_Ssend, one in four by MPI_Sendrecv; mostly 8 to 14 B,
 *    every 100th 64 KiB + 1 and every 500th 256 KiB.
 * 2. NLAPS laps of a token round the ring: one message in flight, every
 *    other rank asleep in MPI_Recv. Every 10th lap the token is 100 KiB;
 *    every 50th, rank 0 first sleeps 5 ms so that the others are deep in
 *    their wait when the token comes.
 * 3. NPOLL requests to the right neighbour, each awaited with MPI_Testall
 *    while the left neighbour's requests are served through a wildcard
 *    MPI_Irecv polled with MPI_Test (OSHMPI's active messages), then an
 *    MPI_Ibarrier polled the same way: every rank polls, nobody blocks, so
 *    this finishes in time only when a poll that finds nothing hands the
 *    core to a rank that has work (each round trip took a time slice or
 *    more before: most runs of 25000 past 30 s on 4 ranks).
 * Every message's bytes and status are checked. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>

enum { NEXCH = 3000, NLAPS = 400, NPOLL = 2000, MAX_BYTES = 256 * 1024, TAG = 70 };
enum { REQUEST_TAG = 71, ANSWER_TAG = 72 };

static int left, right;

static int exch_size(int i)
{
    if (i % 500 == 499)
        return MAX_BYTES;
    if (i % 100 == 99)
        return 65537;
    return 8 + i % 7;
}

static void check_in(const char *what, const unsigned char *in, const MPI_Status *st, int n,
                     unsigned seed)
{
    p2p_check_status(what, st, left, TAG, MPI_BYTE, n);
    shm_check(what, in, (size_t)n, seed);
    shm_guard_check(what, in + n);
}

static double part1_exchange(unsigned char *out, unsigned char *in)
{
    double t0 = MPI_Wtime();

    for (int i = 0; i < NEXCH; i++) {
        int n = exch_size(i), rc_send, rc_recv;
        MPI_Status st;
        char what[64];

        snprintf(what, sizeof what, "exchange %d (%d bytes)", i, n);
        shm_make(out, (size_t)n, shm_msg_seed(1, p2p_rank, right, i % 65536));
        shm_guard_set(in + n);
        if (i % 4 == 1) {
            rc_send = rc_recv = MPI_Sendrecv(out, n, MPI_BYTE, right, TAG, in, MAX_BYTES, MPI_BYTE,
                                             left, TAG, MPI_COMM_WORLD, &st);
        } else if (p2p_rank % 2 == 0) {
            rc_send = i % 10 == 3 ? MPI_Ssend(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD)
                                  : MPI_Send(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD);
            rc_recv = MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st);
        } else {
            rc_recv = MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st);
            rc_send = i % 10 == 3 ? MPI_Ssend(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD)
                                  : MPI_Send(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD);
        }
        p2p_check_ok(what, rc_send);
        p2p_check_ok(what, rc_recv);
        check_in(what, in, &st, n, shm_msg_seed(1, left, p2p_rank, i % 65536));
    }
    return MPI_Wtime() - t0;
}

static double part2_token(unsigned char *out, unsigned char *in)
{
    double t0 = MPI_Wtime();

    for (int lap = 0; lap < NLAPS; lap++) {
        int n = lap % 10 == 9 ? 100 * 1024 : 16;
        MPI_Status st;
        char what[64];

        snprintf(what, sizeof what, "token lap %d (%d bytes)", lap, n);
        shm_guard_set(in + n);
        if (p2p_rank == 0) {
            if (lap % 50 == 49)
                shm_sleep_ms(5);
            shm_make(out, (size_t)n, shm_msg_seed(2, 0, 0, lap));
            p2p_check_ok(what, MPI_Send(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD));
            p2p_check_ok(what, MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st));
        } else {
            p2p_check_ok(what, MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st));
            p2p_check_ok(what, MPI_Send(in, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD));
        }
        /* the token is passed on unchanged: it is rank 0's lap message */
        check_in(what, in, &st, n, shm_msg_seed(2, 0, 0, lap));
    }
    return MPI_Wtime() - t0;
}

/* The left neighbour's requests: each is answered with the number of
 * requests served before it. */
struct server {
    MPI_Request pending;
    int request, served;
};

static void serve_post(struct server *sv)
{
    p2p_check_ok("posting the request receive",
                 MPI_Irecv(&sv->request, 1, MPI_INT, MPI_ANY_SOURCE, REQUEST_TAG, MPI_COMM_WORLD,
                           &sv->pending));
}

static void serve_poll(struct server *sv)
{
    int flag;
    MPI_Status st;
    p2p_check_ok("polling for a request", MPI_Test(&sv->pending, &flag, &st));
    if (!flag)
        return;
    if (st.MPI_SOURCE != left || sv->request != sv->served)
        p2p_die("request %d from rank %d, expected request %d from rank %d", sv->request,
                 st.MPI_SOURCE, sv->served, left);
    p2p_check_ok("answering a request",
                 MPI_Send(&sv->served, 1, MPI_INT, st.MPI_SOURCE, ANSWER_TAG, MPI_COMM_WORLD));
    sv->served++;
    serve_post(sv);
}

static double part3_polling(void)
{
    struct server sv = {MPI_REQUEST_NULL, -1, 0};
    double t0 = MPI_Wtime();

    serve_post(&sv);
    for (int i = 0; i < NPOLL; i++) {
        MPI_Request r[2];
        int answer = -1, done = 0;
        p2p_check_ok("sending a request",
                     MPI_Isend(&i, 1, MPI_INT, right, REQUEST_TAG, MPI_COMM_WORLD, &r[0]));
        p2p_check_ok("receiving an answer",
                     MPI_Irecv(&answer, 1, MPI_INT, right, ANSWER_TAG, MPI_COMM_WORLD, &r[1]));
        while (!done) {
            p2p_check_ok("polling for the answer",
                         MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE));
            if (!done)
                serve_poll(&sv);
        }
        if (answer != i)
            p2p_die("request %d was answered %d", i, answer);
    }
    MPI_Request barrier;
    int passed = 0;
    p2p_check_ok("MPI_Ibarrier", MPI_Ibarrier(MPI_COMM_WORLD, &barrier));
    while (!passed) {
        p2p_check_ok("polling the barrier", MPI_Test(&barrier, &passed, MPI_STATUS_IGNORE));
        serve_poll(&sv);
    }
    if (sv.served != NPOLL)
        p2p_die("served %d requests of %d", sv.served, NPOLL);
    p2p_check_ok("MPI_Cancel", MPI_Cancel(&sv.pending));
    p2p_check_ok("MPI_Wait", MPI_Wait(&sv.pending, MPI_STATUS_IGNORE));
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    unsigned char *out, *in;
    double t1, t2, t3;

    p2p_init("p2p_shm_oversub", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    out = shm_malloc(MAX_BYTES);
    in = shm_malloc(MAX_BYTES + SHM_GUARD);

    t1 = part1_exchange(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    t2 = part2_token(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    t3 = part3_polling();
    if (p2p_rank == 0)
        printf("p2p_shm_oversub: %d exchanges in %.3f s (%.1f us each), %d token laps in %.3f s "
               "(%.1f us per hop), %d polled requests in %.3f s (%.1f us each)\n",
               NEXCH, t1, t1 / NEXCH * 1e6, NLAPS, t2, t2 / NLAPS / p2p_size * 1e6, NPOLL, t3,
               t3 / NPOLL * 1e6);
    free(out);
    free(in);
    p2p_finish();
    return 0;
}
