/* p2p_shm_flood: far more messages in flight between a pair than any ring
 * or FIFO between them holds, so that sends must queue (in order) while
 * the receiver is not looking.
 *
 * 1. Rank 0 sleeps 200 ms before posting anything while every other rank
 *    starts its share of NISEND nonblocking sends of 0 to 1 KiB; among them
 *    every 500th is an MPI_Issend and every 1000th a 200 KiB message, which
 *    a channel may carry by another path (UCX) and must not let overtake
 *    the queued small ones. Rank 0 then receives them all with
 *    MPI_ANY_SOURCE and checks each sender's order, bytes and count.
 * 2. Every other rank sends its share of NSEND blocking 1 KiB MPI_Sends
 *    while rank 0 computes for 200 ms (a busy loop, no MPI call); rank 0
 *    then receives them source by source, round robin. Blocking sends to a
 *    receiver that will post are correct MPI, whatever the buffering.
 * 3. All to all: every rank sends NSMALL blocking 64 B messages to every
 *    other rank before it receives any. This needs the library to buffer
 *    small messages (it is not safe MPI), which ompi-lite does and must
 *    keep doing: a full ring must queue a small send, not block it.
 *    Received with MPI_ANY_SOURCE; each sender's order is checked. Again
 *    with NMID messages of 8 KiB and NLARGE of 32 KiB: eager sizes that
 *    fill a ring after a few and must then still complete at once.
 * 4. Every other rank sends NLAST 1 KiB messages with MPI_Send and calls
 *    MPI_Finalize at once, while rank 0 sleeps 200 ms before receiving
 *    them: sends that have returned must still be delivered (the standard's
 *    example of a send followed by MPI_Finalize is correct), so queued
 *    messages must leave before (or while) the sender finalizes.
 * In part 1, one send in seven is freed (MPI_Request_free) as soon as it
 * is started: its message must arrive all the same. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NISEND = 10000, /* part 1, in all */
    ISEND_MAX = 1024,
    BIG = 200 * 1024,
    NSEND = 20000, /* part 2, in all */
    SEND_BYTES = 1024,
    NSMALL = 1000, /* part 3, per ordered pair */
    NLAST = 2000,  /* part 4, per sender */
    SMALL_BYTES = 64,
    NMID = 100, /* part 3 again, with messages a ring holds a few of */
    MID_BYTES = 8192,
    NLARGE = 24,
    LARGE_BYTES = 32768,
    TAG = 9,
};

/* Part 1: message seq of a sender, and how it is sent. */
static size_t isend_size(int seq)
{
    uint64_t rng = shm_seed(2, (unsigned)seq, 0);

    if (seq % 1000 == 999)
        return BIG;
    return shm_below(&rng, ISEND_MAX + 1);
}

static void part1_isend_flood(void)
{
    int senders = p2p_size - 1, share = NISEND / senders;
    unsigned char *buf = shm_malloc((size_t)ISEND_MAX + SHM_GUARD + BIG);

    if (p2p_rank != 0) {
        MPI_Request *req = shm_malloc(sizeof *req * (size_t)share);
        unsigned char **data = shm_malloc(sizeof *data * (size_t)share);

        for (int seq = 0; seq < share; seq++) {
            size_t n = isend_size(seq);

            data[seq] = shm_malloc(n);
            shm_make(data[seq], n, shm_msg_seed(1, p2p_rank, 0, seq));
            if (seq % 500 == 499)
                MPI_Issend(data[seq], (int)n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &req[seq]);
            else
                MPI_Isend(data[seq], (int)n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &req[seq]);
            if (seq % 7 == 3)
                p2p_check_ok("MPI_Request_free of a send in flight", MPI_Request_free(&req[seq]));
        }
        p2p_check_ok("MPI_Waitall of the flood", MPI_Waitall(share, req, MPI_STATUSES_IGNORE));
        /* the freed sends' buffers may still be in use until rank 0 has
         * received everything */
        MPI_Barrier(MPI_COMM_WORLD);
        for (int seq = 0; seq < share; seq++)
            free(data[seq]);
        free(data);
        free(req);
    } else {
        int next[p2p_size];
        MPI_Status st;

        memset(next, 0, sizeof next);
        shm_sleep_ms(200);
        for (int m = 0; m < share * senders; m++) {
            int src, seq;
            char what[96];

            p2p_check_ok("MPI_Recv", MPI_Recv(buf, BIG + SHM_GUARD, MPI_BYTE, MPI_ANY_SOURCE, TAG,
                                              MPI_COMM_WORLD, &st));
            src = st.MPI_SOURCE;
            if (src < 1 || src >= p2p_size || next[src] >= share)
                p2p_die("part 1: receive %d: unexpected source %d", m, src);
            seq = next[src]++;
            snprintf(what, sizeof what, "part 1: message %d of rank %d (%zu bytes)", seq, src,
                     isend_size(seq));
            p2p_check_status(what, &st, src, TAG, MPI_BYTE, (MPI_Count)isend_size(seq));
            shm_check(what, buf, isend_size(seq), shm_msg_seed(1, src, 0, seq));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(buf);
}

static void part2_send_flood(void)
{
    int senders = p2p_size - 1, share = NSEND / senders;
    unsigned char buf[SEND_BYTES + SHM_GUARD];

    if (p2p_rank != 0) {
        for (int seq = 0; seq < share; seq++) {
            shm_make(buf, SEND_BYTES, shm_msg_seed(2, p2p_rank, 0, seq));
            p2p_check_ok("MPI_Send", MPI_Send(buf, SEND_BYTES, MPI_BYTE, 0, TAG, MPI_COMM_WORLD));
        }
        return;
    }
    shm_spin_us(200000);
    for (int seq = 0; seq < share; seq++)
        for (int src = 1; src < p2p_size; src++) {
            MPI_Status st;
            char what[96];

            snprintf(what, sizeof what, "part 2: message %d of rank %d", seq, src);
            shm_guard_set(buf + SEND_BYTES);
            p2p_check_ok("MPI_Recv", MPI_Recv(buf, SEND_BYTES + SHM_GUARD, MPI_BYTE, src, TAG,
                                              MPI_COMM_WORLD, &st));
            p2p_check_status(what, &st, src, TAG, MPI_BYTE, SEND_BYTES);
            shm_check(what, buf, SEND_BYTES, shm_msg_seed(2, src, 0, seq));
            shm_guard_check(what, buf + SEND_BYTES);
        }
}

/* Part 3: `count` blocking sends of `bytes` to every other rank, then the
 * receives; `seed` tells the rounds apart. */
static void part3_all_to_all(int bytes, int count, int seed)
{
    unsigned char *buf = shm_malloc((size_t)bytes + SHM_GUARD);
    int next[p2p_size];

    for (int seq = 0; seq < count; seq++)
        for (int j = 1; j < p2p_size; j++) {
            int dst = (p2p_rank + j) % p2p_size;

            shm_make(buf, (size_t)bytes, shm_msg_seed(seed, p2p_rank, dst, seq));
            p2p_check_ok("MPI_Send", MPI_Send(buf, bytes, MPI_BYTE, dst, TAG, MPI_COMM_WORLD));
        }
    memset(next, 0, sizeof next);
    for (int m = 0; m < count * (p2p_size - 1); m++) {
        MPI_Status st;
        int src;
        char what[96];

        shm_guard_set(buf + bytes);
        p2p_check_ok("MPI_Recv", MPI_Recv(buf, bytes + SHM_GUARD, MPI_BYTE, MPI_ANY_SOURCE, TAG,
                                          MPI_COMM_WORLD, &st));
        src = st.MPI_SOURCE;
        if (src < 0 || src >= p2p_size || src == p2p_rank || next[src] >= count)
            p2p_die("part 3 (%d B): receive %d: unexpected source %d", bytes, m, src);
        snprintf(what, sizeof what, "part 3: %d B message %d of rank %d", bytes, next[src], src);
        p2p_check_status(what, &st, src, TAG, MPI_BYTE, bytes);
        shm_check(what, buf, (size_t)bytes, shm_msg_seed(seed, src, p2p_rank, next[src]));
        shm_guard_check(what, buf + bytes);
        next[src]++;
    }
    free(buf);
}

/* Part 4: no barrier after the sends, the senders finalize at once. */
static void part4_send_and_finalize(void)
{
    unsigned char buf[SEND_BYTES + SHM_GUARD];

    if (p2p_rank != 0) {
        for (int seq = 0; seq < NLAST; seq++) {
            shm_make(buf, SEND_BYTES, shm_msg_seed(4, p2p_rank, 0, seq));
            p2p_check_ok("MPI_Send", MPI_Send(buf, SEND_BYTES, MPI_BYTE, 0, TAG, MPI_COMM_WORLD));
        }
        MPI_Finalize();
        return;
    }
    shm_sleep_ms(200);
    for (int seq = 0; seq < NLAST; seq++)
        for (int src = 1; src < p2p_size; src++) {
            MPI_Status st;
            char what[96];

            snprintf(what, sizeof what, "part 4: message %d of rank %d", seq, src);
            p2p_check_ok("MPI_Recv", MPI_Recv(buf, SEND_BYTES + SHM_GUARD, MPI_BYTE, src, TAG,
                                              MPI_COMM_WORLD, &st));
            p2p_check_status(what, &st, src, TAG, MPI_BYTE, SEND_BYTES);
            shm_check(what, buf, SEND_BYTES, shm_msg_seed(4, src, 0, seq));
        }
    printf("p2p_shm_flood: %d ranks OK\n", p2p_size);
    fflush(stdout);
    MPI_Finalize();
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_flood", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    part1_isend_flood();
    MPI_Barrier(MPI_COMM_WORLD);
    part2_send_flood();
    MPI_Barrier(MPI_COMM_WORLD);
    part3_all_to_all(SMALL_BYTES, NSMALL, 3);
    MPI_Barrier(MPI_COMM_WORLD); /* a round's wildcard receives take only its messages */
    part3_all_to_all(MID_BYTES, NMID, 5);
    MPI_Barrier(MPI_COMM_WORLD);
    part3_all_to_all(LARGE_BYTES, NLARGE, 6);
    MPI_Barrier(MPI_COMM_WORLD);
    part4_send_and_finalize();
    return 0;
}
