/* p2p_shm_wake: wake-ups of a sleeping receiver, up to MPI_Finalize.
 *
 * Rank 0 waits in MPI_Recv long enough to fall asleep (the others pause
 * 2 ms first, ten times the spin and yield of a waiting rank), then every
 * other rank sends it a burst of BURST messages at once, so that several
 * wake-ups may be sent while it wakes; ROUNDS rounds, the last right before
 * MPI_Finalize. Before the rings' close took every wake-up, 4 runs in 10
 * on 3 and 8 ranks ended with UCX's warning. Rank 0 checks that every message arrived,
 * in order per sender; the script checks that UCX warns of no message left
 * unexpected when the job ends (a wake-up nobody took). */
#include "p2p_util.h"

#include <stdio.h>
#include <time.h>

#define ROUNDS 100
#define BURST 8

static void pause_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static void receive_bursts(int round)
{
    for (int src = 1; src < p2p_size; src++) {
        for (int i = 0; i < BURST; i++) {
            int got[2];
            MPI_Status st;
            MPI_Recv(got, 2, MPI_INT, src, 0, MPI_COMM_WORLD, &st);
            if (got[0] != round || got[1] != i)
                p2p_die("from rank %d, round %d: message (%d, %d), expected (%d, %d)", src, round,
                        got[0], got[1], round, i);
        }
    }
}

static void send_burst(int round)
{
    pause_ms(2);
    for (int i = 0; i < BURST; i++) {
        int msg[2] = {round, i};
        MPI_Send(msg, 2, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_wake", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    for (int round = 0; round < ROUNDS; round++) {
        if (p2p_rank == 0)
            receive_bursts(round);
        else
            send_burst(round);
    }
    p2p_finish();
    return 0;
}
