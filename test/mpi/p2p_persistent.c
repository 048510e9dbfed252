/* p2p_persistent: persistent requests.
 *
 * 1. A small and a large (rendezvous) MPI_Send_init to the right neighbour
 *    and MPI_Recv_init from the left are started ITER times with MPI_Startall
 *    (odd rounds) or MPI_Start one by one (even rounds); the send buffers
 *    change every round, and each round's data and statuses are checked.
 * 2. The other modes: MPI_Ssend_init, MPI_Bsend_init (with a buffer
 *    attached) and MPI_Rsend_init (its receive started and a barrier
 *    passed first), each started MODE_ITER times.
 * 3. Inactive requests (never started, or completed): MPI_Wait and MPI_Test
 *    return at once with an empty status and keep the handle; MPI_Waitall
 *    accepts them; MPI_Request_free of an inactive request sets the handle
 *    to MPI_REQUEST_NULL. */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    ITER = 100,
    MODE_ITER = 10,
    SMALL = 100,
    LARGE = 256 * 1024,
    TAG_SMALL = 1,
    TAG_LARGE = 2,
};

static int left, right;
static unsigned char *sbuf[2], *rbuf[2];
static const int len[2] = {SMALL, LARGE};
static const int tags[2] = {TAG_SMALL, TAG_LARGE};

static unsigned seed_of(int src, int round, int which)
{
    return (unsigned)src * 7919u + (unsigned)round * 2u + (unsigned)which;
}

static void check_inactive(const char *what, MPI_Request *req)
{
    MPI_Request before = *req;
    MPI_Status st;
    char text[160];
    int flag = 0;

    memset(&st, 0x77, sizeof st);
    snprintf(text, sizeof text, "MPI_Wait on an inactive %s", what);
    p2p_check_ok(text, MPI_Wait(req, &st));
    p2p_check_empty(text, &st);
    if (*req != before)
        p2p_die("%s changed the handle", text);
    memset(&st, 0x77, sizeof st);
    snprintf(text, sizeof text, "MPI_Test on an inactive %s", what);
    p2p_check_ok(text, MPI_Test(req, &flag, &st));
    if (!flag)
        p2p_die("%s: flag false", text);
    p2p_check_empty(text, &st);
    if (*req != before)
        p2p_die("%s changed the handle", text);
}

static void check_round(const char *what, int round, MPI_Status st[2])
{
    char text[128];

    for (int k = 0; k < 2; k++) {
        snprintf(text, sizeof text, "%s, round %d, %d-byte message", what, round, len[k]);
        p2p_check_status(text, &st[k], left, tags[k], MPI_BYTE, len[k]);
        p2p_check_data(text, rbuf[k], (size_t)len[k], seed_of(left, round, k));
    }
}

static void standard_rounds(void)
{
    MPI_Request req[4]; /* receives first: a Startall posts them first */
    MPI_Status st[4];

    for (int k = 0; k < 2; k++) {
        MPI_Recv_init(rbuf[k], len[k], MPI_BYTE, left, tags[k], MPI_COMM_WORLD, &req[k]);
        MPI_Send_init(sbuf[k], len[k], MPI_BYTE, right, tags[k], MPI_COMM_WORLD, &req[2 + k]);
    }
    for (int i = 0; i < 4; i++)
        check_inactive("persistent request never started", &req[i]);
    for (int round = 0; round < ITER; round++) {
        for (int k = 0; k < 2; k++) {
            p2p_fill(sbuf[k], (size_t)len[k], seed_of(p2p_rank, round, k));
            memset(rbuf[k], 0, (size_t)len[k]);
        }
        if (round % 2) {
            p2p_check_ok("MPI_Startall", MPI_Startall(4, req));
        } else {
            for (int i = 0; i < 4; i++)
                p2p_check_ok("MPI_Start", MPI_Start(&req[i]));
        }
        p2p_check_ok("MPI_Waitall of persistent requests", MPI_Waitall(4, req, st));
        for (int i = 0; i < 4; i++)
            if (req[i] == MPI_REQUEST_NULL)
                p2p_die("MPI_Waitall set persistent request %d to MPI_REQUEST_NULL", i);
        check_round("MPI_Send_init/MPI_Recv_init", round, st);
    }
    for (int i = 0; i < 4; i++)
        check_inactive("completed persistent request", &req[i]);
    /* Inactive requests in an array count as null ones. */
    p2p_check_ok("MPI_Waitall of inactive requests", MPI_Waitall(4, req, st));
    for (int i = 0; i < 4; i++) {
        p2p_check_empty("MPI_Waitall of inactive requests", &st[i]);
        p2p_check_ok("MPI_Request_free of an inactive request", MPI_Request_free(&req[i]));
        if (req[i] != MPI_REQUEST_NULL)
            p2p_die("MPI_Request_free left persistent request %d non-null", i);
    }
}

typedef int init_fn(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

/* MODE_ITER rounds of one send mode; ready sends wait for every receive of
 * the ring to be started. */
static void mode_rounds(const char *what, init_fn *init, int ready)
{
    MPI_Request req[4];
    MPI_Status st[4];

    for (int k = 0; k < 2; k++) {
        MPI_Recv_init(rbuf[k], len[k], MPI_BYTE, left, tags[k], MPI_COMM_WORLD, &req[k]);
        init(sbuf[k], len[k], MPI_BYTE, right, tags[k], MPI_COMM_WORLD, &req[2 + k]);
    }
    for (int round = 0; round < MODE_ITER; round++) {
        for (int k = 0; k < 2; k++) {
            p2p_fill(sbuf[k], (size_t)len[k], seed_of(p2p_rank, round, k));
            memset(rbuf[k], 0, (size_t)len[k]);
        }
        p2p_check_ok("MPI_Startall of the receives", MPI_Startall(2, req));
        if (ready)
            MPI_Barrier(MPI_COMM_WORLD);
        p2p_check_ok(what, MPI_Startall(2, req + 2));
        p2p_check_ok("MPI_Waitall", MPI_Waitall(4, req, st));
        check_round(what, round, st);
    }
    for (int i = 0; i < 4; i++)
        MPI_Request_free(&req[i]);
}

int main(int argc, char **argv)
{
    /* A rank may run rounds ahead of its right neighbour (up to the ring's
     * length), each leaving its copies in the buffer: room for all rounds. */
    int bsize = MODE_ITER * (SMALL + LARGE + 2 * MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);

    p2p_init("p2p_persistent", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    for (int k = 0; k < 2; k++) {
        sbuf[k] = malloc((size_t)len[k]);
        rbuf[k] = malloc((size_t)len[k]);
        if (!sbuf[k] || !rbuf[k])
            p2p_die("out of memory");
    }
    if (!bbuf)
        p2p_die("out of memory");

    standard_rounds();
    MPI_Barrier(MPI_COMM_WORLD);
    mode_rounds("MPI_Ssend_init", MPI_Ssend_init, 0);
    MPI_Buffer_attach(bbuf, bsize);
    mode_rounds("MPI_Bsend_init", MPI_Bsend_init, 0);
    MPI_Buffer_detach(&bbuf, &bsize);
    mode_rounds("MPI_Rsend_init", MPI_Rsend_init, 1);
    free(bbuf);
    for (int k = 0; k < 2; k++) {
        free(sbuf[k]);
        free(rbuf[k]);
    }
    p2p_finish();
    return 0;
}
