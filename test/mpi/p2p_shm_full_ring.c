/* p2p_shm_full_ring: windows of 64 KiB messages, far more than a same-host
 * ring holds, between ranks that stream to each other, so that most of
 * them find the ring full and must take another path (by address, or over
 * UCX) without overtaking the small messages around them.
 *
 * Every rank sends to the next rank and receives from the one before (on 2
 * ranks both stream to each other, on more each pair streams one way).
 * A window is WINDOW messages of 64 KiB, except that every fourth is of
 * 1 KiB (inline), every sixth an MPI_Issend and every tenth a strided
 * vector (non-contiguous, received as contiguous doubles). The receiver
 * posts its window before the sends start in a "posted" round, and in a
 * "late" round only after LATE_MS without an MPI call, when the messages
 * wait unexpected. All messages of a window carry one tag, so only their
 * order tells them apart: the receiver checks each one's identity, bytes,
 * count and the guard bytes after it. */
#include "p2p_shm_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    WINDOW = 48,
    ROUNDS = 12,
    BIG = 64 * 1024,
    SMALL = 1024,
    TAG = 7,
    LATE_MS = 30,
};

static int rank, nranks;

static bool is_small(int i)
{
    return i % 4 == 3;
}

static bool is_vector(int i)
{
    return i % 10 == 9;
}

static size_t bytes_of(int i)
{
    return is_small(i) ? SMALL : BIG;
}

/* The message's bytes, every other double of a buffer twice as long for a
 * vector send. */
typedef struct {
    unsigned char *send[WINDOW];
    unsigned char *recv[WINDOW];
    MPI_Datatype every_other_double;
} buffers_t;

static void buffers_init(buffers_t *b)
{
    for (int i = 0; i < WINDOW; i++) {
        b->send[i] = shm_malloc(2 * BIG);
        b->recv[i] = shm_malloc(BIG + SHM_GUARD);
    }
    MPI_Type_vector(BIG / 8, 1, 2, MPI_DOUBLE, &b->every_other_double);
    MPI_Type_commit(&b->every_other_double);
}

static void buffers_free(buffers_t *b)
{
    for (int i = 0; i < WINDOW; i++) {
        free(b->send[i]);
        free(b->recv[i]);
    }
    MPI_Type_free(&b->every_other_double);
}

static void start_send(buffers_t *b, int round, int i, int to, MPI_Request *req)
{
    unsigned seed = shm_msg_seed((unsigned)round, rank, to, i);
    size_t n = bytes_of(i);
    if (is_vector(i) && !is_small(i)) {
        double packed[BIG / 8];
        shm_make(packed, BIG, seed);
        double *strided = (double *)b->send[i];
        for (int k = 0; k < BIG / 8; k++)
            strided[2 * k] = packed[k];
        MPI_Isend(strided, 1, b->every_other_double, to, TAG, MPI_COMM_WORLD, req);
        return;
    }
    shm_make(b->send[i], n, seed);
    if (i % 6 == 5)
        MPI_Issend(b->send[i], (int)n, MPI_BYTE, to, TAG, MPI_COMM_WORLD, req);
    else
        MPI_Isend(b->send[i], (int)n, MPI_BYTE, to, TAG, MPI_COMM_WORLD, req);
}

static void post_recv(buffers_t *b, int i, int from, MPI_Request *req)
{
    shm_guard_set(b->recv[i] + bytes_of(i));
    if (is_vector(i) && !is_small(i))
        MPI_Irecv(b->recv[i], BIG / 8, MPI_DOUBLE, from, TAG, MPI_COMM_WORLD, req);
    else
        MPI_Irecv(b->recv[i], (int)bytes_of(i), MPI_BYTE, from, TAG, MPI_COMM_WORLD, req);
}

static void check_recv(buffers_t *b, int round, int i, int from, const MPI_Status *st)
{
    char what[96];
    snprintf(what, sizeof(what), "rank %d round %d message %d from %d", rank, round, i, from);
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != from || st->MPI_TAG != TAG || count != (int)bytes_of(i))
        p2p_die("%s: source %d tag %d count %d, expected %d %d %zu", what, st->MPI_SOURCE,
                st->MPI_TAG, count, from, TAG, bytes_of(i));
    shm_check(what, b->recv[i], bytes_of(i), shm_msg_seed((unsigned)round, from, rank, i));
    shm_guard_check(what, b->recv[i] + bytes_of(i));
}

static void run_round(buffers_t *b, int round, bool late)
{
    int to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
    MPI_Request recvs[WINDOW], sends[WINDOW];
    MPI_Status st[WINDOW];
    if (!late)
        for (int i = 0; i < WINDOW; i++)
            post_recv(b, i, from, &recvs[i]);
    MPI_Barrier(MPI_COMM_WORLD); /* in a posted round, every receive is posted first */
    for (int i = 0; i < WINDOW; i++)
        start_send(b, round, i, to, &sends[i]);
    if (late) {
        shm_sleep_ms(LATE_MS);
        for (int i = 0; i < WINDOW; i++)
            post_recv(b, i, from, &recvs[i]);
    }
    MPI_Waitall(WINDOW, recvs, st);
    for (int i = 0; i < WINDOW; i++)
        check_recv(b, round, i, from, &st[i]);
    MPI_Waitall(WINDOW, sends, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks < 2)
        p2p_die("needs at least 2 ranks");
    buffers_t b;
    buffers_init(&b);
    for (int round = 0; round < ROUNDS; round++)
        run_round(&b, round, round % 3 == 2);
    buffers_free(&b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_shm_full_ring: %d ranks OK\n", nranks);
    MPI_Finalize();
    return 0;
}
