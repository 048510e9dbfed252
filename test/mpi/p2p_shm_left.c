/* p2p_shm_left: messages that wait for their receives while the receiver
 * makes progress. On one host pt2pt/match.c leaves such messages in the
 * ring they came through while the receiver is in a receive (round 4), for
 * the receives that follow to copy once, and moves them into the
 * unexpected queue while it waits for anything else (rounds 1-3); these
 * cases would hang or mix messages up if it left too much.
 *
 * Ranks pair up (0-1, 2-3, ...; an odd last rank only joins the barriers):
 * the odd rank B sends messages of 4 KiB that its even partner A has no
 * receive for yet (NMSG, or NMSG_WRAP in round 3), then
 * 1. B receives a message of 1 MiB that A sends with a blocking MPI_Send,
 *    which (copied out of A by B) completes only once B's "done" comes back
 *    behind B's waiting messages: A, waiting with no receive posted, must
 *    take it from behind them;
 * 2. B cancels one more send and waits for the answer, which A, waiting in
 *    a barrier with no receive posted, must give from behind the messages;
 * 3. A, with no receive posted, waits (MPI_Test of a send to itself that
 *    nobody receives) until pt2pt_unexpected_queue_length counts the
 *    messages, which fill most of the 256 KiB ring (the script sets its
 *    size);
 * 4. A waits in a receive of the first of B's messages, sent once A says
 *    it waits: the others, behind it in the ring and past its end, stay
 *    there for the receives that follow.
 * Each time A then receives them: the last one by its tag, the others in
 * order by MPI_ANY_TAG (the order they were sent in), each with its own
 * bytes and status, and the unexpected queue is empty again. */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NMSG = 8,
    NMSG_WRAP = 56, /* 56 records of 4 KiB + 64 B: 228 KiB */
    MSG_BYTES = 4096,
    BIG_BYTES = 1 << 20,
    BIG_TAG = 99,
    CANCEL_TAG = 98,
    SELF_TAG = 97,
    READY_TAG = 96,
};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle unexpected;

static void open_unexpected_queue(void)
{
    int provided, index, count;
    p2p_check_ok("MPI_T_init_thread", MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    p2p_check_ok("MPI_T_pvar_get_index",
                 MPI_T_pvar_get_index("pt2pt_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL,
                                      &index));
    p2p_check_ok("MPI_T_pvar_session_create", MPI_T_pvar_session_create(&session));
    p2p_check_ok("MPI_T_pvar_handle_alloc",
                 MPI_T_pvar_handle_alloc(session, index, NULL, &unexpected, &count));
}

static unsigned queued(void)
{
    unsigned value;
    p2p_check_ok("MPI_T_pvar_read", MPI_T_pvar_read(session, unexpected, &value));
    return value;
}

static unsigned seed_of(int round, int i)
{
    return (unsigned)(1000 * round + i + 1);
}

/* B's side of a round: the n messages A has no receive for yet. */
static void send_messages(int a, int round, int n, char *bufs, MPI_Request *reqs)
{
    for (int i = 0; i < n; i++) {
        p2p_fill(bufs + (size_t)i * MSG_BYTES, MSG_BYTES, seed_of(round, i));
        p2p_check_ok("MPI_Isend",
                     MPI_Isend(bufs + (size_t)i * MSG_BYTES, MSG_BYTES, MPI_BYTE, a, i + 1,
                               MPI_COMM_WORLD, &reqs[i]));
    }
}

/* A's side: the last of n messages by its tag, then the rest by
 * MPI_ANY_TAG. */
static void receive_messages(int b, int round, int n, char *buf)
{
    char what[96];
    MPI_Status st;
    snprintf(what, sizeof what, "round %d, message %d by its tag", round, n);
    p2p_check_ok(what, MPI_Recv(buf, MSG_BYTES, MPI_BYTE, b, n, MPI_COMM_WORLD, &st));
    p2p_check_status(what, &st, b, n, MPI_BYTE, MSG_BYTES);
    p2p_check_data(what, buf, MSG_BYTES, seed_of(round, n - 1));
    for (int i = 0; i < n - 1; i++) {
        snprintf(what, sizeof what, "round %d, message %d by MPI_ANY_TAG", round, i + 1);
        p2p_check_ok(what, MPI_Recv(buf, MSG_BYTES, MPI_BYTE, b, MPI_ANY_TAG, MPI_COMM_WORLD,
                                    &st));
        p2p_check_status(what, &st, b, i + 1, MPI_BYTE, MSG_BYTES);
        p2p_check_data(what, buf, MSG_BYTES, seed_of(round, i));
    }
    if (queued() != 0)
        p2p_die("round %d: the unexpected queue counts %u messages after all were received",
                round, queued());
}

static void round_send_end(int partner, int a, char *bufs, char *big)
{
    MPI_Request reqs[NMSG];
    if (!a) {
        send_messages(partner, 1, NMSG, bufs, reqs);
        p2p_check_ok("MPI_Recv of 1 MiB", MPI_Recv(big, BIG_BYTES, MPI_BYTE, partner, BIG_TAG,
                                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        p2p_check_data("the 1 MiB message", big, BIG_BYTES, 77);
        p2p_check_ok("MPI_Waitall", MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
        return;
    }
    p2p_fill(big, BIG_BYTES, 77);
    p2p_check_ok("MPI_Send of 1 MiB",
                 MPI_Send(big, BIG_BYTES, MPI_BYTE, partner, BIG_TAG, MPI_COMM_WORLD));
    receive_messages(partner, 1, NMSG, bufs);
}

static void round_cancel(int partner, int a, char *bufs)
{
    MPI_Request reqs[NMSG + 1];
    if (!a) {
        send_messages(partner, 2, NMSG, bufs, reqs);
        static char extra[64];
        p2p_check_ok("MPI_Isend", MPI_Isend(extra, sizeof extra, MPI_BYTE, partner, CANCEL_TAG,
                                            MPI_COMM_WORLD, &reqs[NMSG]));
        p2p_check_ok("MPI_Cancel", MPI_Cancel(&reqs[NMSG]));
        MPI_Status st;
        p2p_check_ok("MPI_Wait of the cancelled send", MPI_Wait(&reqs[NMSG], &st));
        int cancelled;
        MPI_Test_cancelled(&st, &cancelled);
        if (!cancelled)
            p2p_die("a send nobody received was not cancelled");
        p2p_check_ok("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
        p2p_check_ok("MPI_Waitall", MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE));
        return;
    }
    p2p_check_ok("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    if (partner < 0)
        return;
    int flag;
    p2p_check_ok("MPI_Iprobe", MPI_Iprobe(partner, CANCEL_TAG, MPI_COMM_WORLD, &flag,
                                          MPI_STATUS_IGNORE));
    if (flag)
        p2p_die("the cancelled send arrived");
    receive_messages(partner, 2, NMSG, bufs);
}

static void round_counted(int partner, int a, char *bufs)
{
    MPI_Request reqs[NMSG_WRAP];
    if (!a) {
        send_messages(partner, 3, NMSG_WRAP, bufs, reqs);
        p2p_check_ok("MPI_Waitall", MPI_Waitall(NMSG_WRAP, reqs, MPI_STATUSES_IGNORE));
        return;
    }
    /* A send to itself that nobody receives: each MPI_Test makes progress
     * without a receive posted. Cancelled at the end. */
    static char self_msg[16];
    MPI_Request self;
    p2p_check_ok("MPI_Issend to itself", MPI_Issend(self_msg, sizeof self_msg, MPI_BYTE,
                                                    p2p_rank, SELF_TAG, MPI_COMM_WORLD, &self));
    int done = 0;
    while (queued() < NMSG_WRAP + 1 && !done) /* the messages and the send to itself */
        p2p_check_ok("MPI_Test", MPI_Test(&self, &done, MPI_STATUS_IGNORE));
    if (done)
        p2p_die("a synchronous send to itself completed with no receive");
    p2p_check_ok("MPI_Cancel", MPI_Cancel(&self));
    p2p_check_ok("MPI_Wait of the cancelled send", MPI_Wait(&self, MPI_STATUS_IGNORE));
    receive_messages(partner, 3, NMSG_WRAP, bufs);
}

static void round_in_a_receive(int partner, int a, char *bufs)
{
    MPI_Request reqs[NMSG_WRAP + 1];
    if (!a) {
        p2p_check_ok("MPI_Recv", MPI_Recv(NULL, 0, MPI_BYTE, partner, READY_TAG, MPI_COMM_WORLD,
                                          MPI_STATUS_IGNORE));
        p2p_fill(bufs, MSG_BYTES, seed_of(4, -1));
        p2p_check_ok("MPI_Isend", MPI_Isend(bufs, MSG_BYTES, MPI_BYTE, partner, 0,
                                            MPI_COMM_WORLD, &reqs[NMSG_WRAP]));
        send_messages(partner, 4, NMSG_WRAP, bufs + MSG_BYTES, reqs);
        p2p_check_ok("MPI_Waitall", MPI_Waitall(NMSG_WRAP + 1, reqs, MPI_STATUSES_IGNORE));
        return;
    }
    MPI_Request first;
    p2p_check_ok("MPI_Irecv", MPI_Irecv(bufs, MSG_BYTES, MPI_BYTE, partner, 0, MPI_COMM_WORLD,
                                        &first));
    p2p_check_ok("MPI_Send", MPI_Send(NULL, 0, MPI_BYTE, partner, READY_TAG, MPI_COMM_WORLD));
    p2p_check_ok("MPI_Wait", MPI_Wait(&first, MPI_STATUS_IGNORE));
    p2p_check_data("round 4, the first message", bufs, MSG_BYTES, seed_of(4, -1));
    receive_messages(partner, 4, NMSG_WRAP, bufs);
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_left", &argc, &argv, MPI_THREAD_SINGLE);
    open_unexpected_queue();
    int a = p2p_rank % 2 == 0;
    int partner = a ? p2p_rank + 1 : p2p_rank - 1;
    if (partner >= p2p_size)
        partner = -1;
    char *bufs = malloc((size_t)(NMSG_WRAP + 1) * MSG_BYTES), *big = malloc(BIG_BYTES);
    if (!bufs || !big)
        p2p_die("out of memory");

    if (partner >= 0)
        round_send_end(partner, a, bufs, big);
    p2p_check_ok("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    round_cancel(partner, a, bufs);
    p2p_check_ok("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    if (partner >= 0)
        round_counted(partner, a, bufs);
    p2p_check_ok("MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
    if (partner >= 0)
        round_in_a_receive(partner, a, bufs);

    free(bufs);
    free(big);
    MPI_T_pvar_handle_free(session, &unexpected);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
    p2p_finish();
    return 0;
}
