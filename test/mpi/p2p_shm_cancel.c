/* p2p_shm_cancel: MPI_Cancel of receives, alone and racing with the
 * message that would match them.
 *
 * Round the ring (each rank sends right, receives from the left):
 * 1. A receive that nothing matches (source and tag given, or both
 *    wildcards, small and large buffer) is cancelled: MPI_Wait returns,
 *    MPI_Test_cancelled is true and the buffer is untouched. A message
 *    sent afterwards goes to the next receive, not to the cancelled one.
 * 2. A receive that has matched and completed (MPI_Request_get_status
 *    said so) is not cancelled: MPI_Test_cancelled false, data intact.
 *    Small and large messages.
 * 3. NRACE rounds in which the left neighbour sends message i after a
 *    random pause while this rank posts a receive, waits a random time
 *    (spinning, or polling MPI_Test) and cancels it. Either the receive
 *    was cancelled (buffer untouched, and the next receive of the tag gets
 *    message i) or it got message i (then message i is gone: the next
 *    round's receive gets message i + 1). Never both, never neither: a
 *    final marker message must come right after the last one, and then no
 *    message is left. The split between the outcomes is printed, not
 *    asserted. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_BYTES = 128 * 1024,
    NOMATCH_TAG = 40,
    LATER_TAG = 41,
    MATCH_TAG = 42,
    RACE_TAG = 43,
    NRACE = 1000,
    FILL = 0x3C,
};

static int left, right;

static void expect_cancelled(const char *what, const MPI_Status *st, int expected)
{
    int flag = -1;

    p2p_check_ok("MPI_Test_cancelled", MPI_Test_cancelled(st, &flag));
    if (flag != expected)
        p2p_die("%s: MPI_Test_cancelled says %d, expected %d", what, flag, expected);
}

static void cancel_unmatched(unsigned char *in, int source, int tag, int count)
{
    MPI_Request req;
    MPI_Status st;
    char what[96];

    snprintf(what, sizeof what, "cancelled receive (source %d, tag %d, %d bytes)", source, tag,
             count);
    memset(in, FILL, (size_t)count + SHM_GUARD);
    p2p_check_ok("MPI_Irecv", MPI_Irecv(in, count, MPI_BYTE, source, tag, MPI_COMM_WORLD, &req));
    p2p_check_ok("MPI_Cancel", MPI_Cancel(&req));
    p2p_check_ok("MPI_Wait of a cancelled receive", MPI_Wait(&req, &st));
    expect_cancelled(what, &st, 1);
    p2p_check_fill(what, in, (size_t)count + SHM_GUARD, FILL);
}

static void part1_unmatched(unsigned char *out, unsigned char *in)
{
    static const int sizes[] = {16, 100000};

    for (int i = 0; i < 2; i++) {
        int n = sizes[i];
        MPI_Request req;
        MPI_Status st;
        char what[96];

        /* nothing is in flight to this rank between the barriers */
        MPI_Barrier(MPI_COMM_WORLD);
        cancel_unmatched(in, left, NOMATCH_TAG, n);
        cancel_unmatched(in, MPI_ANY_SOURCE, MPI_ANY_TAG, n);
        cancel_unmatched(in, MPI_ANY_SOURCE, LATER_TAG, n);
        MPI_Barrier(MPI_COMM_WORLD);

        /* the message a cancelled receive would have matched goes to the
         * next one */
        shm_make(out, (size_t)n, shm_msg_seed(1, p2p_rank, right, i));
        MPI_Isend(out, n, MPI_BYTE, right, LATER_TAG, MPI_COMM_WORLD, &req);
        snprintf(what, sizeof what, "receive after cancelled ones (%d bytes)", n);
        shm_guard_set(in + n);
        p2p_check_ok("MPI_Recv", MPI_Recv(in, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, LATER_TAG,
                                          MPI_COMM_WORLD, &st));
        p2p_check_status(what, &st, left, LATER_TAG, MPI_BYTE, n);
        shm_check(what, in, (size_t)n, shm_msg_seed(1, left, p2p_rank, i));
        shm_guard_check(what, in + n);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

static void part2_matched(unsigned char *out, unsigned char *in)
{
    static const int sizes[] = {0, 16, 3000, 100000};

    for (int i = 0; i < 4; i++) {
        int n = sizes[i], done = 0;
        MPI_Request sreq, rreq;
        MPI_Status st;
        char what[96];

        snprintf(what, sizeof what, "cancel of a completed receive of %d bytes", n);
        shm_guard_set(in + n);
        MPI_Irecv(in, MAX_BYTES, MPI_BYTE, left, MATCH_TAG, MPI_COMM_WORLD, &rreq);
        shm_make(out, (size_t)n, shm_msg_seed(2, p2p_rank, right, i));
        MPI_Isend(out, n, MPI_BYTE, right, MATCH_TAG, MPI_COMM_WORLD, &sreq);
        while (!done)
            MPI_Request_get_status(rreq, &done, MPI_STATUS_IGNORE);
        p2p_check_ok("MPI_Cancel", MPI_Cancel(&rreq));
        p2p_check_ok("MPI_Wait", MPI_Wait(&rreq, &st));
        expect_cancelled(what, &st, 0);
        p2p_check_status(what, &st, left, MATCH_TAG, MPI_BYTE, n);
        shm_check(what, in, (size_t)n, shm_msg_seed(2, left, p2p_rank, i));
        shm_guard_check(what, in + n);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    }
}

static int race_size(int i)
{
    static const int sizes[] = {16, 3000, 100000};

    return sizes[i % 3];
}

static void part3_race(unsigned char *out, unsigned char *in)
{
    uint64_t rng = shm_seed(6, (unsigned)p2p_rank, 0);
    int cancelled = 0, delivered = 0, marker = -1, sum[2];
    MPI_Status st;

    for (int i = 0; i < NRACE; i++) {
        int n = race_size(i), flag;
        MPI_Request sreq, rreq;
        char what[96];

        /* the send: after a pause of 0 to 100 us */
        shm_spin_us((double)shm_below(&rng, 101));
        shm_make(out, (size_t)n, shm_msg_seed(3, p2p_rank, right, i));
        MPI_Isend(out, n, MPI_BYTE, right, RACE_TAG, MPI_COMM_WORLD, &sreq);

        /* the receive, cancelled after 0 to 100 us */
        memset(in, FILL, (size_t)n);
        shm_guard_set(in + n);
        MPI_Irecv(in, MAX_BYTES, MPI_BYTE, left, RACE_TAG, MPI_COMM_WORLD, &rreq);
        if (i % 2) {
            shm_spin_us((double)shm_below(&rng, 101));
        } else {
            int polls = (int)shm_below(&rng, 20);

            for (int k = 0; k < polls; k++)
                MPI_Request_get_status(rreq, &flag, MPI_STATUS_IGNORE);
        }
        p2p_check_ok("MPI_Cancel", MPI_Cancel(&rreq));
        p2p_check_ok("MPI_Wait", MPI_Wait(&rreq, &st));
        MPI_Test_cancelled(&st, &flag);
        if (flag) {
            snprintf(what, sizeof what, "race %d: cancelled receive (%d bytes)", i, n);
            p2p_check_fill(what, in, (size_t)n, FILL);
            shm_guard_check(what, in + n);
            cancelled++;
            snprintf(what, sizeof what, "race %d: receive after a cancel (%d bytes)", i, n);
            p2p_check_ok("MPI_Recv",
                         MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, RACE_TAG, MPI_COMM_WORLD, &st));
        } else {
            snprintf(what, sizeof what, "race %d: receive not cancelled (%d bytes)", i, n);
            delivered++;
        }
        p2p_check_status(what, &st, left, RACE_TAG, MPI_BYTE, n);
        shm_check(what, in, (size_t)n, shm_msg_seed(3, left, p2p_rank, i));
        shm_guard_check(what, in + n);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    }

    /* the marker must come next: no message i was left behind */
    marker = NRACE;
    MPI_Sendrecv_replace(&marker, 1, MPI_INT, right, RACE_TAG, left, RACE_TAG, MPI_COMM_WORLD, &st);
    p2p_check_status("marker after the races", &st, left, RACE_TAG, MPI_INT, 1);
    if (marker != NRACE)
        p2p_die("marker after the races: got %d, expected %d", marker, NRACE);

    sum[0] = cancelled;
    sum[1] = delivered;
    MPI_Reduce(p2p_rank ? sum : MPI_IN_PLACE, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (p2p_rank == 0)
        printf("p2p_shm_cancel: races: %d cancelled, %d delivered\n", sum[0], sum[1]);
}

int main(int argc, char **argv)
{
    unsigned char *out, *in;
    int flag = 1;
    MPI_Status st;

    p2p_init("p2p_shm_cancel", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    out = shm_malloc(MAX_BYTES);
    in = shm_malloc(MAX_BYTES + SHM_GUARD);

    part1_unmatched(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    part2_matched(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    part3_race(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag)
        p2p_die("a message is left over: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    free(out);
    free(in);
    p2p_finish();
    return 0;
}
