/* p2p_shm_backlog: a sender whose messages wait for ring room must go on
 * once the receiver makes room, asleep or not.
 *
 * Rank 1 sends COUNT messages of 1 KiB to 4 KiB (they go inline and
 * complete at once: what the ring to rank 0 cannot hold waits in rank 1's
 * backlog, which copies records of up to 8 KiB where each rank has a
 * core, up to twice the ring's bytes, and past that they are announced and
 * go over UCX, in order behind them), then waits in MPI_Recv for rank 0's
 * answer. Rank 0 starts
 * receiving only after PAUSE_MS, when rank 1 waits in MPI_Recv long past
 * its spin and yield, asleep: once rank 0 has emptied the ring, the rest
 * can only come from rank 1's progress, which rank 0's room must wake.
 * The script sets a wait between two polls of an hour
 * (OMPI_LITE_WAIT_POLL_MS): a rank 1 left asleep there would hold the job
 * until mpirun's timeout. Every message's bytes are checked, then the
 * answer. */
#include "p2p_util.h"

#include <stdio.h>
#include <time.h>

#define COUNT 400
#define MAX_BYTES 4096
#define PAUSE_MS 50

/* 1 KiB, an odd size, 4 KiB in turn: 400 of them are four times the ring. */
static int message_bytes(int i)
{
    static const int sizes[] = {1024, 3001, MAX_BYTES};
    return sizes[i % 3];
}

static void send_all(void)
{
    static unsigned char buf[MAX_BYTES];
    for (int i = 0; i < COUNT; i++) {
        p2p_fill(buf, (size_t)message_bytes(i), (unsigned)i);
        MPI_Send(buf, message_bytes(i), MPI_BYTE, 0, i, MPI_COMM_WORLD);
    }
    int answer = 0;
    MPI_Recv(&answer, 1, MPI_INT, 0, COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (answer != COUNT)
        p2p_die("rank 0 answered %d, expected %d", answer, COUNT);
}

static void receive_all(void)
{
    struct timespec pause = {0, PAUSE_MS * 1000000L};
    nanosleep(&pause, NULL);
    static unsigned char buf[MAX_BYTES];
    for (int i = 0; i < COUNT; i++) {
        char what[64];
        MPI_Status status;
        MPI_Recv(buf, MAX_BYTES, MPI_BYTE, 1, i, MPI_COMM_WORLD, &status);
        int count;
        MPI_Get_count(&status, MPI_BYTE, &count);
        if (count != message_bytes(i))
            p2p_die("message %d: %d bytes arrived, expected %d", i, count, message_bytes(i));
        snprintf(what, sizeof(what), "message %d", i);
        p2p_check_data(what, buf, (size_t)count, (unsigned)i);
    }
    int answer = COUNT;
    MPI_Send(&answer, 1, MPI_INT, 1, COUNT, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_backlog", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size != 2)
        p2p_die("needs 2 ranks");
    if (p2p_rank == 0)
        receive_all();
    else
        send_all();
    p2p_finish();
    return 0;
}
