/* p2p_shm_truncate: a message longer than its receive, under
 * MPI_ERRORS_RETURN, whatever path the message takes (inline, through a
 * ring, or announced and carried separately), and the pair still works
 * afterwards.
 *
 * Round the ring, for each truncated size (101 B, 200 B, 5 KiB, 64 KiB + 1,
 * 200 KiB) and each way of receiving it into a 100-byte buffer:
 *  - MPI_Recv after the message has had time to arrive (unexpected),
 *  - MPI_Irecv posted before it is sent, then MPI_Wait,
 *  - MPI_Mprobe (which reports the full size) then MPI_Mrecv,
 * the call returns an error of class MPI_ERR_TRUNCATE, the status names
 * the source and tag and counts the n bytes of the message that arrived
 * (as every path reports it; Open MPI does the same), nothing is written
 * past the 100 bytes, and the send
 * (MPI_Isend, or MPI_Issend every other time) completes without error.
 * The next message of the same tag, sent right after the truncated one
 * (0 B, 60 B or 100 KiB), then arrives intact. Last, 200 KiB into a receive
 * of nothing at NULL: MPI_ERR_TRUNCATE, a count of 200 KiB, and the send
 * completes. Then a stream: eight 16 KiB messages sent at once to
 * receives posted before them, which the receiver copies together (one
 * read of the sender's memory for several messages): the fourth receive
 * holds 100 bytes and the sixth none; each of those two ends in
 * MPI_ERR_TRUNCATE with the whole count and nothing past its buffer, and
 * the other six hold their messages. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>

enum { BUF = 100, MAX_BYTES = 200 * 1024, TAG = 50 };
enum how { LATE_RECV, POSTED_IRECV, MPROBE_MRECV, NHOW };
static const char *how_name[NHOW] = {"unexpected MPI_Recv", "pre-posted MPI_Irecv",
                                     "MPI_Mprobe + MPI_Mrecv"};

static int left, right;

static void one_case(int c, int n, enum how how, int next, unsigned char *out, unsigned char *in)
{
    unsigned seed1 = shm_msg_seed(1, p2p_rank, right, c),
             seed2 = shm_msg_seed(2, p2p_rank, right, c);
    MPI_Request sreq[2], rreq;
    MPI_Message msg;
    MPI_Status st;
    char what[128];
    int rc;

    snprintf(what, sizeof what, "case %d: %d bytes into %d by %s (%s)", c, n, BUF, how_name[how],
             c % 2 ? "MPI_Issend" : "MPI_Isend");
    shm_guard_set(in + BUF);
    if (how == POSTED_IRECV)
        p2p_check_ok("MPI_Irecv", MPI_Irecv(in, BUF, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &rreq));
    /* the pre-posted receives are in place before anything is sent */
    MPI_Barrier(MPI_COMM_WORLD);

    shm_make(out, (size_t)n, seed1);
    shm_make(out + MAX_BYTES, (size_t)next, seed2);
    if (c % 2)
        p2p_check_ok("MPI_Issend",
                     MPI_Issend(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &sreq[0]));
    else
        p2p_check_ok("MPI_Isend",
                     MPI_Isend(out, n, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &sreq[0]));
    p2p_check_ok("MPI_Isend",
                 MPI_Isend(out + MAX_BYTES, next, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &sreq[1]));

    switch (how) {
    case LATE_RECV:
        shm_spin_us(2000);
        rc = MPI_Recv(in, BUF, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st);
        break;
    case POSTED_IRECV: rc = MPI_Wait(&rreq, &st); break;
    default:
        p2p_check_ok("MPI_Mprobe", MPI_Mprobe(left, TAG, MPI_COMM_WORLD, &msg, &st));
        p2p_check_status(what, &st, left, TAG, MPI_BYTE, n);
        rc = MPI_Mrecv(in, BUF, MPI_BYTE, &msg, &st);
        break;
    }
    P2P_CHECK_CLASS(what, rc, MPI_ERR_TRUNCATE);
    p2p_check_status(what, &st, left, TAG, MPI_BYTE, n);
    shm_guard_check(what, in + BUF);

    /* the pair goes on: the next message is whole */
    snprintf(what, sizeof what, "case %d: the %d-byte message after a truncated one", c, next);
    shm_guard_set(in + next);
    p2p_check_ok(what, MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st));
    p2p_check_status(what, &st, left, TAG, MPI_BYTE, next);
    shm_check(what, in, (size_t)next, shm_msg_seed(2, left, p2p_rank, c));
    shm_guard_check(what, in + next);
    p2p_check_ok("the sends of a truncated message and the next",
                 MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE));
}

static void into_nothing(unsigned char *out)
{
    const char *what = "200 KiB into a receive of 0 bytes at NULL";
    MPI_Request sreq;
    shm_make(out, MAX_BYTES, 7);
    p2p_check_ok("MPI_Isend",
                 MPI_Isend(out, MAX_BYTES, MPI_BYTE, right, TAG, MPI_COMM_WORLD, &sreq));
    MPI_Status st;
    int rc = MPI_Recv(NULL, 0, MPI_BYTE, left, TAG, MPI_COMM_WORLD, &st);
    P2P_CHECK_CLASS(what, rc, MPI_ERR_TRUNCATE);
    p2p_check_status(what, &st, left, TAG, MPI_BYTE, MAX_BYTES);
    p2p_check_ok("the send of a message truncated to nothing", MPI_Wait(&sreq, MPI_STATUS_IGNORE));
}

enum { STREAM = 8, STREAM_BYTES = 16384, SHORT_RECV = 3, EMPTY_RECV = 5 };

static int stream_capacity(int i)
{
    return i == SHORT_RECV ? BUF : i == EMPTY_RECV ? 0 : STREAM_BYTES;
}

static void truncated_within_a_stream(unsigned char *out, unsigned char *in)
{
    MPI_Request sreq[STREAM], rreq[STREAM];
    MPI_Status st[STREAM];
    const size_t slot = STREAM_BYTES + SHM_GUARD;
    for (int i = 0; i < STREAM; i++) {
        shm_guard_set(in + i * slot + stream_capacity(i));
        p2p_check_ok("MPI_Irecv", MPI_Irecv(in + i * slot, stream_capacity(i), MPI_BYTE, left,
                                            TAG, MPI_COMM_WORLD, &rreq[i]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < STREAM; i++) {
        shm_make(out + i * STREAM_BYTES, STREAM_BYTES, shm_msg_seed(3, p2p_rank, right, i));
        p2p_check_ok("MPI_Isend", MPI_Isend(out + i * STREAM_BYTES, STREAM_BYTES, MPI_BYTE,
                                            right, TAG, MPI_COMM_WORLD, &sreq[i]));
    }
    shm_spin_us(2000); /* all eight are announced before the receiver looks */
    P2P_CHECK_CLASS("a stream with two truncated receives",
                    MPI_Waitall(STREAM, rreq, st), MPI_ERR_IN_STATUS);
    for (int i = 0; i < STREAM; i++) {
        char what[96];
        snprintf(what, sizeof what, "message %d of a stream of 16 KiB, into %d bytes", i,
                 stream_capacity(i));
        int cut = stream_capacity(i) < STREAM_BYTES;
        if (cut)
            P2P_CHECK_CLASS(what, st[i].MPI_ERROR, MPI_ERR_TRUNCATE);
        else
            p2p_check_ok(what, st[i].MPI_ERROR);
        p2p_check_status(what, &st[i], left, TAG, MPI_BYTE, STREAM_BYTES);
        if (!cut)
            shm_check(what, in + i * slot, STREAM_BYTES, shm_msg_seed(3, left, p2p_rank, i));
        shm_guard_check(what, in + i * slot + stream_capacity(i));
    }
    p2p_check_ok("the sends of the stream", MPI_Waitall(STREAM, sreq, MPI_STATUSES_IGNORE));
}

int main(int argc, char **argv)
{
    static const int sizes[] = {101, 200, 5 * 1024, 65537, 200 * 1024};
    static const int nexts[] = {0, 60, 100 * 1024};
    unsigned char *out, *in;
    int c = 0;

    p2p_init("p2p_shm_truncate", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    out = shm_malloc(2 * MAX_BYTES);
    in = shm_malloc(MAX_BYTES + SHM_GUARD);

    for (int s = 0; s < 5; s++)
        for (int how = 0; how < NHOW; how++, c++)
            one_case(c, sizes[s], (enum how)how, nexts[c % 3], out, in);
    into_nothing(out);
    free(out);
    free(in);
    out = shm_malloc(STREAM * STREAM_BYTES);
    in = shm_malloc(STREAM * (STREAM_BYTES + SHM_GUARD));
    truncated_within_a_stream(out, in);
    free(out);
    free(in);
    p2p_finish();
    return 0;
}
