/* p2p_modes: every send mode, blocking and nonblocking, and what sets the
 * modes apart.
 *
 * 1. Grid: standard, synchronous, buffered and ready sends, blocking and
 *    nonblocking, of 0, 1, 100, 8 KiB and 1 MiB bytes round the ring (each
 *    rank sends to its right neighbour and receives from its left). The
 *    receive is posted first (a ready send needs it, and a barrier makes
 *    sure it is), into a buffer longer than the message whose tail must stay
 *    untouched; data and status are checked.
 * 2. MPI_Issend does not complete before the matching receive is posted:
 *    MPI_Test stays false for a while, then a token tells the receiver to
 *    post the receive, and the send completes.
 * 3. MPI_Bsend returns before the receiver posts: the receiver waits for a
 *    token sent after the Bsend, and only then posts the receive.
 * 4. MPI_Buffer_detach waits for the buffered messages: it returns the
 *    address and size attached, and once it has returned the buffer is
 *    overwritten, which must not change what arrives. The same with
 *    MPI_Comm_attach_buffer / MPI_Comm_detach_buffer, and with
 *    MPI_BUFFER_AUTOMATIC.
 * 5. Under MPI_ERRORS_RETURN a buffer too small for the message, and a
 *    Bsend with no buffer attached, give MPI_ERR_BUFFER.
 * 6. A flush gives the buffer's space back: into a buffer that holds one
 *    1 MiB message, a Bsend of 1 MiB whose receive the right neighbour
 *    posts late, a flush (MPI_Buffer_flush, _iflush, MPI_Comm_flush_buffer,
 *    _iflush_buffer), then a second Bsend of 1 MiB must find room (under
 *    MPI_ERRORS_RETURN). The nonblocking flushes are started before the
 *    late receive is posted and must not complete before it is (1 MiB is
 *    beyond any eager limit); with nothing attached, or nothing pending,
 *    they complete at once. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum mode { STANDARD, SYNCHRONOUS, BUFFERED, READY, NMODES };

static const char *const mode_name[NMODES] = {"standard", "synchronous", "buffered", "ready"};
static const int sizes[] = {0, 1, 100, 8192, 1 << 20};
enum { NSIZES = sizeof sizes / sizeof sizes[0], MAX_SIZE = 1 << 20, TAIL = 16 };

enum {
    TOKEN_TAG = 30000, /* "you may post your receive now" */
    LATE_TAG = 30001,  /* the message whose receive is posted late */
    DEADLINE_S = 10,   /* waiting longer than this for a token is a failure */
};

static int left, right;
static unsigned char *sendbuf, *recvbuf;

static unsigned seed_of(int src, int tag)
{
    return (unsigned)src * 100003u + (unsigned)tag;
}

static int send_mode(enum mode m, int nonblocking, const void *buf, int n, int tag)
{
    MPI_Request req;
    int rc;

    if (!nonblocking) {
        switch (m) {
        case STANDARD: return MPI_Send(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD);
        case SYNCHRONOUS: return MPI_Ssend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD);
        case BUFFERED: return MPI_Bsend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD);
        default: return MPI_Rsend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD);
        }
    }
    switch (m) {
    case STANDARD: rc = MPI_Isend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req); break;
    case SYNCHRONOUS: rc = MPI_Issend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req); break;
    case BUFFERED: rc = MPI_Ibsend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req); break;
    default: rc = MPI_Irsend(buf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req); break;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* One message of n bytes in mode m round the ring. */
static void one_exchange(enum mode m, int nonblocking, int n, int tag)
{
    char what[128];
    MPI_Request req;
    MPI_Status st;

    snprintf(what, sizeof what, "%s %s send of %d bytes from rank %d", mode_name[m],
             nonblocking ? "nonblocking" : "blocking", n, left);
    memset(recvbuf, 0xA5, (size_t)n + TAIL);
    p2p_check_ok("MPI_Irecv",
                 MPI_Irecv(recvbuf, n + TAIL, MPI_BYTE, left, tag, MPI_COMM_WORLD, &req));
    if (m == READY) /* every receive of the ring is posted */
        MPI_Barrier(MPI_COMM_WORLD);
    p2p_fill(sendbuf, (size_t)n, seed_of(p2p_rank, tag));
    p2p_check_ok(what, send_mode(m, nonblocking, sendbuf, n, tag));
    p2p_check_ok("MPI_Wait of the receive", MPI_Wait(&req, &st));
    p2p_check_status(what, &st, left, tag, MPI_BYTE, n);
    p2p_check_data(what, recvbuf, (size_t)n, seed_of(left, tag));
    p2p_check_fill(what, recvbuf + n, TAIL, 0xA5);
}

static void mode_grid(void)
{
    /* Room for every buffered message of the grid at once: a blocking
     * Bsend returns before its message has left. */
    int bsize = 0, got_size;
    void *bbuf, *got;

    for (int s = 0; s < NSIZES; s++)
        bsize += 2 * (sizes[s] + MPI_BSEND_OVERHEAD);
    bbuf = malloc((size_t)bsize);

    if (!bbuf)
        p2p_die("out of memory");
    p2p_check_ok("MPI_Buffer_attach", MPI_Buffer_attach(bbuf, bsize));
    for (int m = 0; m < NMODES; m++)
        for (int nb = 0; nb < 2; nb++)
            for (int s = 0; s < NSIZES; s++)
                one_exchange(m, nb, sizes[s], (m * 2 + nb) * NSIZES + s);
    p2p_check_ok("MPI_Buffer_detach", MPI_Buffer_detach(&got, &got_size));
    if (got != bbuf || got_size != bsize)
        p2p_die("MPI_Buffer_detach gave %p, %d bytes, expected %p, %d", got, got_size, bbuf,
                bsize);
    free(bbuf);
}

/* Waits for the token of the left neighbour, which it sends once its
 * `what` has returned; dies if it does not come. */
static void wait_token(MPI_Request *token, const char *what)
{
    double start = MPI_Wtime();
    int done = 0;

    while (!done) {
        MPI_Test(token, &done, MPI_STATUS_IGNORE);
        if (!done && MPI_Wtime() - start > DEADLINE_S)
            p2p_die("no token from rank %d after %d s: its %s did not return before this "
                    "rank posted the receive",
                    left, DEADLINE_S, what);
    }
}

/* Receives the late message of n bytes from the left and checks it. */
static void recv_late(const char *what, int n)
{
    MPI_Status st;

    memset(recvbuf, 0, (size_t)n);
    MPI_Recv(recvbuf, n, MPI_BYTE, left, LATE_TAG, MPI_COMM_WORLD, &st);
    p2p_check_status(what, &st, left, LATE_TAG, MPI_BYTE, n);
    p2p_check_data(what, recvbuf, (size_t)n, seed_of(left, LATE_TAG));
}

static void ssend_waits_for_receive(int n)
{
    char what[96];
    MPI_Request send, token_out, token_in;
    int flag, token = 1, got;
    double start;

    snprintf(what, sizeof what, "MPI_Issend of %d bytes, received late", n);
    MPI_Irecv(&got, 1, MPI_INT, left, TOKEN_TAG, MPI_COMM_WORLD, &token_in);
    p2p_fill(sendbuf, (size_t)n, seed_of(p2p_rank, LATE_TAG));
    MPI_Issend(sendbuf, n, MPI_BYTE, right, LATE_TAG, MPI_COMM_WORLD, &send);
    /* Nobody has posted the receive: the send must stay incomplete. */
    for (start = MPI_Wtime(); MPI_Wtime() - start < 0.05;) {
        MPI_Test(&send, &flag, MPI_STATUS_IGNORE);
        if (flag)
            p2p_die("%s to rank %d completed before the receive was posted", what, right);
    }
    MPI_Isend(&token, 1, MPI_INT, right, TOKEN_TAG, MPI_COMM_WORLD, &token_out);
    wait_token(&token_in, "MPI_Test loop");
    recv_late(what, n);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&token_out, MPI_STATUS_IGNORE);
}

static void bsend_returns_early(int n)
{
    char what[96];
    MPI_Request token_out, token_in;
    int token = 1, got, bsize = n + MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t)bsize), *detached;

    if (!bbuf)
        p2p_die("out of memory");
    snprintf(what, sizeof what, "MPI_Bsend of %d bytes", n);
    MPI_Buffer_attach(bbuf, bsize);
    MPI_Irecv(&got, 1, MPI_INT, left, TOKEN_TAG, MPI_COMM_WORLD, &token_in);
    p2p_fill(sendbuf, (size_t)n, seed_of(p2p_rank, LATE_TAG));
    p2p_check_ok(what, MPI_Bsend(sendbuf, n, MPI_BYTE, right, LATE_TAG, MPI_COMM_WORLD));
    /* The message lives in the attached buffer now, not in sendbuf. */
    memset(sendbuf, 0x5A, (size_t)n);
    MPI_Isend(&token, 1, MPI_INT, right, TOKEN_TAG, MPI_COMM_WORLD, &token_out);
    wait_token(&token_in, what);
    recv_late(what, n);
    MPI_Wait(&token_out, MPI_STATUS_IGNORE);
    MPI_Buffer_detach(&detached, &bsize);
    free(bbuf);
}

/* Sends three buffered messages right, detaches with `detach` and
 * overwrites the buffer, then checks what arrived from the left. */
static void detach_waits(const char *how, int comm_buffer, int automatic)
{
    static const int n[3] = {1 << 20, 8192, 100};
    int bsize = 3 * MPI_BSEND_OVERHEAD + n[0] + n[1] + n[2];
    unsigned char *bbuf = automatic ? NULL : malloc((size_t)bsize), *data[3];
    void *attach = automatic ? MPI_BUFFER_AUTOMATIC : (void *)bbuf, *got;
    MPI_Request req[3];
    MPI_Status st[3];
    char what[128];
    int got_size;

    if (!automatic && !bbuf)
        p2p_die("out of memory");
    if (comm_buffer)
        p2p_check_ok("MPI_Comm_attach_buffer",
                     MPI_Comm_attach_buffer(MPI_COMM_WORLD, attach, bsize));
    else
        p2p_check_ok("MPI_Buffer_attach", MPI_Buffer_attach(attach, bsize));
    for (int i = 0, off = 0; i < 3; off += n[i++]) {
        data[i] = recvbuf + off;
        p2p_fill(sendbuf, (size_t)n[i], seed_of(p2p_rank, 40000 + i));
        p2p_check_ok("MPI_Bsend", MPI_Bsend(sendbuf, n[i], MPI_BYTE, right, 40000 + i,
                                            MPI_COMM_WORLD));
    }
    /* Give the messages time to be on their way (or stuck, waiting for the
     * receiver), then post their receives. */
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    for (int i = 0; i < 3; i++)
        MPI_Irecv(data[i], n[i], MPI_BYTE, left, 40000 + i, MPI_COMM_WORLD, &req[i]);
    if (comm_buffer)
        p2p_check_ok("MPI_Comm_detach_buffer",
                     MPI_Comm_detach_buffer(MPI_COMM_WORLD, &got, &got_size));
    else
        p2p_check_ok("MPI_Buffer_detach", MPI_Buffer_detach(&got, &got_size));
    if (got != attach || (!automatic && got_size != bsize))
        p2p_die("%s gave back %p, %d bytes, expected %p, %d", how, got, got_size, attach,
                bsize);
    if (!automatic) { /* the buffer is the user's again */
        memset(bbuf, 0xEE, (size_t)bsize);
        free(bbuf);
    }
    MPI_Waitall(3, req, st);
    for (int i = 0; i < 3; i++) {
        snprintf(what, sizeof what, "buffered message %d of %d bytes, %s", i, n[i], how);
        p2p_check_status(what, &st[i], left, 40000 + i, MPI_BYTE, n[i]);
        p2p_check_data(what, data[i], (size_t)n[i], seed_of(left, 40000 + i));
    }
}

static void buffer_errors(void)
{
    int bsize = MPI_BSEND_OVERHEAD + 100, got_size;
    void *bbuf = malloc((size_t)bsize), *got;

    if (!bbuf)
        p2p_die("out of memory");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    P2P_CHECK_CLASS("MPI_Bsend of 1000 bytes with no buffer attached",
                    MPI_Bsend(sendbuf, 1000, MPI_BYTE, right, 7, MPI_COMM_WORLD),
                    MPI_ERR_BUFFER);
    MPI_Buffer_attach(bbuf, bsize);
    P2P_CHECK_CLASS("MPI_Bsend of 1000 bytes into a buffer of 100 + MPI_BSEND_OVERHEAD",
                    MPI_Bsend(sendbuf, 1000, MPI_BYTE, right, 7, MPI_COMM_WORLD),
                    MPI_ERR_BUFFER);
    MPI_Buffer_detach(&got, &got_size);
    free(bbuf);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* Nothing of the failed sends may arrive: the next message of the same
     * tag is the one expected (a 1000-byte one would not fit its receive). */
    one_exchange(STANDARD, 0, 100, 7);
}

static void flush_start(const char *how, int comm_buffer, int nonblocking, MPI_Request *req)
{
    if (!nonblocking)
        p2p_check_ok(how, comm_buffer ? MPI_Comm_flush_buffer(MPI_COMM_WORLD)
                                      : MPI_Buffer_flush());
    else
        p2p_check_ok(how, comm_buffer ? MPI_Comm_iflush_buffer(MPI_COMM_WORLD, req)
                                      : MPI_Buffer_iflush(req));
}

/* A nonblocking flush with nothing to wait for is complete at its first test. */
static void flush_idle(const char *what, int comm_buffer)
{
    MPI_Request req;
    MPI_Status st;
    int done = 0;

    flush_start(what, comm_buffer, 1, &req);
    MPI_Test(&req, &done, &st);
    if (!done)
        p2p_die("%s with no message pending did not complete at once", what);
    p2p_check_empty(what, &st);
}

/* Section 6 for one flush. The receive of the first message is posted after
 * the nonblocking flush has been tested for 50 ms, once the left neighbour's
 * token says its own test is over; for a blocking flush, before the Bsend,
 * or the flush would wait for ever. */
static void flush_frees_space(const char *how, int comm_buffer, int nonblocking)
{
    enum { N = 1 << 20, FLUSH_TAG = 50000 };
    int bsize = MPI_BSEND_OVERHEAD + N, got_size;
    void *bbuf = malloc((size_t)bsize), *got;
    struct timespec pause = {0, 10 * 1000 * 1000};
    MPI_Request recv[2], flush = MPI_REQUEST_NULL;
    MPI_Status st[2];
    char what[128];

    if (!bbuf)
        p2p_die("out of memory");
    if (comm_buffer)
        MPI_Comm_attach_buffer(MPI_COMM_WORLD, bbuf, bsize);
    else
        MPI_Buffer_attach(bbuf, bsize);
    if (nonblocking)
        flush_idle(how, comm_buffer);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    p2p_fill(sendbuf, N, seed_of(p2p_rank, FLUSH_TAG));
    if (!nonblocking)
        MPI_Irecv(recvbuf, N, MPI_BYTE, left, FLUSH_TAG, MPI_COMM_WORLD, &recv[0]);
    snprintf(what, sizeof what, "the first MPI_Bsend of 1 MiB, before %s", how);
    p2p_check_ok(what, MPI_Bsend(sendbuf, N, MPI_BYTE, right, FLUSH_TAG, MPI_COMM_WORLD));
    flush_start(how, comm_buffer, nonblocking, &flush);
    if (nonblocking) {
        int done, token = 1;
        MPI_Request token_out;
        for (int i = 0; i < 5; i++) {
            nanosleep(&pause, NULL);
            MPI_Test(&flush, &done, MPI_STATUS_IGNORE);
            if (done)
                p2p_die("%s completed while the right neighbour had not posted the receive "
                        "of the 1 MiB message in the buffer",
                        how);
        }
        /* Only now may the right neighbour post that receive. */
        MPI_Isend(&token, 1, MPI_INT, right, TOKEN_TAG, MPI_COMM_WORLD, &token_out);
        MPI_Recv(&token, 1, MPI_INT, left, TOKEN_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Irecv(recvbuf, N, MPI_BYTE, left, FLUSH_TAG, MPI_COMM_WORLD, &recv[0]);
        p2p_check_ok(how, MPI_Wait(&flush, MPI_STATUS_IGNORE));
        MPI_Wait(&token_out, MPI_STATUS_IGNORE);
    }
    MPI_Irecv(recvbuf + N, N, MPI_BYTE, left, FLUSH_TAG + 1, MPI_COMM_WORLD, &recv[1]);
    p2p_fill(sendbuf, N, seed_of(p2p_rank, FLUSH_TAG + 1));
    snprintf(what, sizeof what, "the second MPI_Bsend of 1 MiB, after %s", how);
    p2p_check_ok(what, MPI_Bsend(sendbuf, N, MPI_BYTE, right, FLUSH_TAG + 1, MPI_COMM_WORLD));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Waitall(2, recv, st);
    for (int i = 0; i < 2; i++) {
        snprintf(what, sizeof what, "buffered message %d of 1 MiB around %s", i, how);
        p2p_check_status(what, &st[i], left, FLUSH_TAG + i, MPI_BYTE, N);
        p2p_check_data(what, recvbuf + (size_t)i * N, N, seed_of(left, FLUSH_TAG + i));
    }
    if (comm_buffer)
        MPI_Comm_detach_buffer(MPI_COMM_WORLD, &got, &got_size);
    else
        MPI_Buffer_detach(&got, &got_size);
    free(bbuf);
    if (nonblocking) /* nothing attached: nothing to wait for */
        flush_idle(how, comm_buffer);
}

int main(int argc, char **argv)
{
    p2p_init("p2p_modes", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    sendbuf = malloc(MAX_SIZE);
    recvbuf = malloc(2 * MAX_SIZE);
    if (!sendbuf || !recvbuf)
        p2p_die("out of memory");

    mode_grid();
    for (int s = 0; s < NSIZES; s++) {
        MPI_Barrier(MPI_COMM_WORLD);
        ssend_waits_for_receive(sizes[s]);
        MPI_Barrier(MPI_COMM_WORLD);
        bsend_returns_early(sizes[s]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    detach_waits("MPI_Buffer_detach", 0, 0);
    detach_waits("MPI_Comm_detach_buffer", 1, 0);
    detach_waits("MPI_Buffer_detach of MPI_BUFFER_AUTOMATIC", 0, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    buffer_errors();
    for (int comm_buffer = 0; comm_buffer < 2; comm_buffer++) {
        for (int nonblocking = 0; nonblocking < 2; nonblocking++) {
            static const char *const name[2][2] = {
                {"MPI_Buffer_flush", "MPI_Buffer_iflush"},
                {"MPI_Comm_flush_buffer", "MPI_Comm_iflush_buffer"}};
            MPI_Barrier(MPI_COMM_WORLD);
            flush_frees_space(name[comm_buffer][nonblocking], comm_buffer, nonblocking);
        }
    }
    free(sendbuf);
    free(recvbuf);
    p2p_finish();
    return 0;
}
