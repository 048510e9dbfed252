/* p2p_shm_shared: large messages between ranks of one host, which the
 * receiver copies out of the sender's memory and a waiting sender helps to
 * copy (pt2pt/shm_copy.h), arrive whole whatever the sender does meanwhile.
 *
 * Rank r sends to r + 1 and receives from r - 1 (round the ring), for sizes
 * that are and are not multiples of a page or a chunk (128 KiB to 5 MiB + 3):
 *  1. a window of 8 MPI_Isends then MPI_Waitall, against 8 MPI_Irecvs, each
 *     message its own (the sender waits with nothing else to do, so it
 *     helps; even ranks send first, then odd ones);
 *  2. MPI_Ssend against an MPI_Recv posted 20 ms late;
 *  3. an MPI_Isend whose sender then computes for 30 ms without calling MPI
 *     (the receiver, waiting, copies alone), then waits;
 *  4. into a vector of every other 8-byte block (a derived receive type:
 *     the bytes land in a copy, then are unpacked);
 *  5. into a receive 1000 bytes short: MPI_ERR_TRUNCATE under
 *     MPI_ERRORS_RETURN, the first bytes in place, nothing written past;
 * then 80 messages of 136 KiB in flight at once from every rank (more than
 * the 64 a rank shares at a time), each checked. Every message carries its
 * identity (shm_make), so a chunk from the wrong offset or message is
 * named. */
#include "p2p_shm_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG = 7, WINDOW = 8, MANY = 80, MANY_BYTES = 136 * 1024, SHORT_BY = 1000 };

static const size_t sizes[] = {128 * 1024, 128 * 1024 + 1, 300001, 1024 * 1024 + 4095,
                               5 * 1024 * 1024 + 3};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static int left, right;

/* Each message its own bytes: the size's index as the pass (shm_msg_seed
 * keeps 4 bits of it), the test and the message's place as the sequence. */
static unsigned seed_of(unsigned test, size_t size_index, int seq)
{
    return shm_msg_seed((unsigned)size_index, p2p_rank, right, (int)test * 1000 + seq);
}

static unsigned seed_from_left(unsigned test, size_t size_index, int seq)
{
    return shm_msg_seed((unsigned)size_index, left, p2p_rank, (int)test * 1000 + seq);
}

/* A receive buffer that holds no earlier message, and its guard. */
static void clear(unsigned char *in, size_t n)
{
    memset(in, 0, n);
    shm_guard_set(in + n);
}

/* Even ranks send first, odd ones receive first (round an odd ring, the
 * last rank's sends wait for the first one's turn to receive). */
static bool sends_in_turn(int turn)
{
    return (p2p_rank + turn) % 2 == 0;
}

/* The sender posts its window and waits with nothing else to do: it helps. */
static void window(size_t si, unsigned char **out, unsigned char **in)
{
    size_t n = sizes[si];
    MPI_Request req[WINDOW];
    for (int turn = 0; turn < 2; turn++) {
        for (int k = 0; k < WINDOW; k++) {
            if (sends_in_turn(turn)) {
                shm_make(out[k], n, seed_of(1, si, k));
                p2p_check_ok("MPI_Isend", MPI_Isend(out[k], (int)n, MPI_BYTE, right, TAG,
                                                    MPI_COMM_WORLD, &req[k]));
            } else {
                clear(in[k], n);
                p2p_check_ok("MPI_Irecv", MPI_Irecv(in[k], (int)n, MPI_BYTE, left, TAG,
                                                    MPI_COMM_WORLD, &req[k]));
            }
        }
        p2p_check_ok("MPI_Waitall", MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE));
    }
    for (int k = 0; k < WINDOW; k++) {
        char what[96];
        snprintf(what, sizeof what, "window message %d of %zu bytes", k, n);
        shm_check(what, in[k], n, seed_from_left(1, si, k));
        shm_guard_check(what, in[k] + n);
    }
}

static void late_receive(size_t si, unsigned char *out, unsigned char *in)
{
    size_t n = sizes[si];
    MPI_Request req;
    shm_make(out, n, seed_of(2, si, 0));
    clear(in, n);
    for (int turn = 0; turn < 2; turn++) {
        if (sends_in_turn(turn)) {
            p2p_check_ok("MPI_Ssend",
                         MPI_Ssend(out, (int)n, MPI_BYTE, right, TAG, MPI_COMM_WORLD));
        } else {
            shm_sleep_ms(20);
            p2p_check_ok("MPI_Irecv",
                         MPI_Irecv(in, (int)n, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &req));
            p2p_check_ok("MPI_Wait", MPI_Wait(&req, MPI_STATUS_IGNORE));
        }
    }
    shm_check("MPI_Ssend to a late receive", in, n, seed_from_left(2, si, 0));
    shm_guard_check("MPI_Ssend to a late receive", in + n);
}

/* The receiver waits at once; the sender computes before it waits. */
static void busy_sender(size_t si, unsigned char *out, unsigned char *in)
{
    size_t n = sizes[si];
    MPI_Request req;
    shm_make(out, n, seed_of(3, si, 0));
    clear(in, n);
    for (int turn = 0; turn < 2; turn++) {
        if (sends_in_turn(turn)) {
            p2p_check_ok("MPI_Isend",
                         MPI_Isend(out, (int)n, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &req));
            shm_spin_us(30000);
        } else {
            p2p_check_ok("MPI_Irecv",
                         MPI_Irecv(in, (int)n, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &req));
        }
        p2p_check_ok("MPI_Wait", MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    shm_check("a message whose sender computed", in, n, seed_from_left(3, si, 0));
    shm_guard_check("a message whose sender computed", in + n);
}

/* Every other 8-byte block of `in`, n bytes of them. */
static void into_vector(size_t si, unsigned char *out, unsigned char *in, unsigned char *unpacked)
{
    size_t n = sizes[si] / 8 * 8, blocks = n / 8;
    MPI_Datatype every_other;
    MPI_Request req[2];
    MPI_Type_vector((int)blocks, 8, 16, MPI_BYTE, &every_other);
    MPI_Type_commit(&every_other);
    shm_make(out, n, seed_of(4, si, 0));
    memset(in, 0x5a, 2 * n);
    p2p_check_ok("MPI_Irecv", MPI_Irecv(in, 1, every_other, left, TAG, MPI_COMM_WORLD, &req[1]));
    p2p_check_ok("MPI_Isend",
                 MPI_Isend(out, (int)n, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &req[0]));
    p2p_check_ok("MPI_Waitall", MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (size_t b = 0; b < blocks; b++) {
        memcpy(unpacked + 8 * b, in + 16 * b, 8);
        p2p_check_fill("a gap of the vector", in + 16 * b + 8, 8, 0x5a);
    }
    shm_check("a message into a vector", unpacked, n, seed_from_left(4, si, 0));
    MPI_Type_free(&every_other);
}

static void truncated(size_t si, unsigned char *out, unsigned char *in)
{
    size_t n = sizes[si], room = n - SHORT_BY;
    MPI_Request req[2];
    MPI_Status st[2];
    shm_make(out, n, seed_of(5, si, 0));
    memset(in, SHM_GUARD_BYTE, n);
    p2p_check_ok("MPI_Irecv",
                 MPI_Irecv(in, (int)room, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &req[1]));
    p2p_check_ok("MPI_Isend", MPI_Isend(out, (int)n, MPI_BYTE, right, TAG, MPI_COMM_WORLD,
                                        &req[0]));
    int rc = MPI_Waitall(2, req, st);
    if (rc != MPI_ERR_IN_STATUS)
        p2p_die("a truncated receive of %zu bytes: MPI_Waitall returned %d, not "
                "MPI_ERR_IN_STATUS", n, rc);
    p2p_check_ok("the truncated message's send", st[0].MPI_ERROR);
    P2P_CHECK_CLASS("the truncated receive", st[1].MPI_ERROR, MPI_ERR_TRUNCATE);
    unsigned char *whole = shm_malloc(n);
    shm_make(whole, n, seed_from_left(5, si, 0));
    if (memcmp(in, whole, room) != 0)
        p2p_die("a truncated receive of %zu bytes: its first %zu bytes are wrong", n, room);
    p2p_check_fill("past a truncated receive", in + room, SHORT_BY, SHM_GUARD_BYTE);
    free(whole);
}

static void many_in_flight(void)
{
    unsigned char *out = shm_malloc((size_t)MANY * MANY_BYTES);
    unsigned char *in = shm_malloc((size_t)MANY * MANY_BYTES);
    MPI_Request req[2 * MANY];
    for (int k = 0; k < MANY; k++) {
        shm_make(out + (size_t)k * MANY_BYTES, MANY_BYTES, seed_of(6, 0, k));
        p2p_check_ok("MPI_Irecv", MPI_Irecv(in + (size_t)k * MANY_BYTES, MANY_BYTES, MPI_BYTE,
                                            left, TAG, MPI_COMM_WORLD, &req[MANY + k]));
    }
    for (int k = 0; k < MANY; k++)
        p2p_check_ok("MPI_Isend", MPI_Isend(out + (size_t)k * MANY_BYTES, MANY_BYTES, MPI_BYTE,
                                            right, TAG, MPI_COMM_WORLD, &req[k]));
    p2p_check_ok("MPI_Waitall", MPI_Waitall(2 * MANY, req, MPI_STATUSES_IGNORE));
    for (int k = 0; k < MANY; k++) {
        char what[64];
        snprintf(what, sizeof what, "message %d of %d in flight", k, MANY);
        shm_check(what, in + (size_t)k * MANY_BYTES, MANY_BYTES, seed_from_left(6, 0, k));
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_shared", &argc, &argv, MPI_THREAD_SINGLE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    size_t largest = sizes[NSIZES - 1];
    unsigned char *out[WINDOW], *in[WINDOW];
    for (int k = 0; k < WINDOW; k++) {
        out[k] = shm_malloc(largest);
        in[k] = shm_malloc(2 * largest + SHM_GUARD);
    }
    unsigned char *unpacked = shm_malloc(largest);
    for (size_t si = 0; si < NSIZES; si++) {
        window(si, out, in);
        late_receive(si, out[0], in[0]);
        busy_sender(si, out[0], in[0]);
        into_vector(si, out[0], in[0], unpacked);
        truncated(si, out[0], in[0]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    many_in_flight();
    for (int k = 0; k < WINDOW; k++) {
        free(out[k]);
        free(in[k]);
    }
    free(unpacked);
    p2p_finish();
    return 0;
}
