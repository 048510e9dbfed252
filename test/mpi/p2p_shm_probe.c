/* p2p_shm_probe: probes of small messages and of large ones (over 64 KiB,
 * which a same-host channel may only announce and carry separately): the
 * status must give the real source, tag and count before the receive.
 *
 * Round the ring, for each size of SIZES:
 * 1. MPI_Probe(left, ANY_TAG): source, tag, MPI_Get_count in bytes and in
 *    ints (MPI_UNDEFINED when the size is not a multiple of 4); a second
 *    MPI_Probe with the tag sees the same; a receive of exactly the probed
 *    count gets the message.
 * 2. MPI_Iprobe(ANY_SOURCE, ANY_TAG) polled until true (each call must
 *    make progress on its own), then the receive.
 * 3. Two messages of one tag: MPI_Mprobe takes the first; a MPI_Recv of
 *    that source and tag must then get the second, never the probed one;
 *    MPI_Mrecv gets the first and sets the handle to MPI_MESSAGE_NULL.
 *    The same with MPI_Improbe polled and MPI_Imrecv + MPI_Wait.
 * 4. At rank 0, every other rank's message (sizes mixed) taken by
 *    MPI_Mprobe(ANY_SOURCE, ANY_TAG) first, all held at once, then
 *    received by MPI_Mrecv in the reverse order.
 * At the end, after a barrier, MPI_Iprobe(ANY_SOURCE, ANY_TAG) finds
 * nothing: no message was delivered twice. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    MAX_BYTES = 256 * 1024,
    TAG = 30,
    NSIZES = 8,
};

static const int sizes[NSIZES] = {0, 1, 101, 4096, 5000, 65536, 65537 + 3, 200 * 1024 + 2};

static int left, right;

/* Checks count in bytes and in MPI_INTs of a probe's status. */
static void check_probe(const char *what, const MPI_Status *st, int src, int tag, int n)
{
    int ints;

    p2p_check_status(what, st, src, tag, MPI_BYTE, n);
    MPI_Get_count(st, MPI_INT, &ints);
    if (ints != (n % 4 ? MPI_UNDEFINED : n / 4))
        p2p_die("%s: MPI_Get_count in MPI_INT is %d, expected %d", what, ints,
                n % 4 ? MPI_UNDEFINED : n / 4);
}

/* Receives exactly n bytes (the probed count) and checks them. */
static void recv_exact(const char *what, unsigned char *in, int src, int tag, int n, unsigned seed)
{
    MPI_Status st;

    shm_guard_set(in + n);
    p2p_check_ok("MPI_Recv", MPI_Recv(in, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    p2p_check_status(what, &st, src, tag, MPI_BYTE, n);
    shm_check(what, in, (size_t)n, seed);
    shm_guard_check(what, in + n);
}

static void send_to_right(unsigned char *out, int n, int tag, unsigned seed, MPI_Request *req)
{
    shm_make(out, (size_t)n, seed);
    MPI_Isend(out, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, req);
}

static void probe_and_iprobe(unsigned char *out, unsigned char *in)
{
    for (int i = 0; i < NSIZES; i++) {
        int n = sizes[i], tag = TAG + i, flag = 0;
        MPI_Request req;
        MPI_Status st;
        char what[96];

        snprintf(what, sizeof what, "MPI_Probe of %d bytes", n);
        send_to_right(out, n, tag, shm_msg_seed(1, p2p_rank, right, i), &req);
        p2p_check_ok("MPI_Probe", MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check_probe(what, &st, left, tag, n);
        p2p_check_ok("MPI_Probe", MPI_Probe(left, tag, MPI_COMM_WORLD, &st));
        check_probe(what, &st, left, tag, n);
        recv_exact(what, in, left, tag, n, shm_msg_seed(1, left, p2p_rank, i));
        MPI_Wait(&req, MPI_STATUS_IGNORE);

        snprintf(what, sizeof what, "MPI_Iprobe of %d bytes", n);
        send_to_right(out, n, tag, shm_msg_seed(2, p2p_rank, right, i), &req);
        while (!flag)
            p2p_check_ok("MPI_Iprobe",
                         MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        check_probe(what, &st, left, tag, n);
        recv_exact(what, in, left, tag, n, shm_msg_seed(2, left, p2p_rank, i));
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

/* Two messages of one tag; the first is matched by a probe, the second
 * must go to the receive that comes in between. */
static void mprobe_pair(unsigned char *out, unsigned char *in, int polled)
{
    const char *how = polled ? "MPI_Improbe" : "MPI_Mprobe";

    for (int i = 0; i < NSIZES; i++) {
        /* the second message of another size, so that sizes tell them apart too */
        int n1 = sizes[i], n2 = sizes[(i + 3) % NSIZES], tag = TAG + i, flag = 0;
        unsigned base = polled ? 5 : 3;
        MPI_Request req[2], rreq;
        MPI_Message msg = MPI_MESSAGE_NULL;
        MPI_Status st;
        char what[96];

        send_to_right(out, n1, tag, shm_msg_seed(base, p2p_rank, right, i), &req[0]);
        send_to_right(out + MAX_BYTES, n2, tag, shm_msg_seed(base + 1, p2p_rank, right, i),
                      &req[1]);
        snprintf(what, sizeof what, "%s of %d bytes", how, n1);
        if (polled)
            while (!flag)
                p2p_check_ok(how, MPI_Improbe(left, tag, MPI_COMM_WORLD, &flag, &msg, &st));
        else
            p2p_check_ok(how, MPI_Mprobe(left, tag, MPI_COMM_WORLD, &msg, &st));
        check_probe(what, &st, left, tag, n1);
        if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
            p2p_die("%s: no message handle", what);

        snprintf(what, sizeof what, "MPI_Recv after %s of %d bytes (the second message)", how, n1);
        recv_exact(what, in, left, tag, n2, shm_msg_seed(base + 1, left, p2p_rank, i));

        snprintf(what, sizeof what, "%s of the %s'd %d bytes", polled ? "MPI_Imrecv" : "MPI_Mrecv",
                 how, n1);
        shm_guard_set(in + n1);
        if (polled) {
            p2p_check_ok("MPI_Imrecv", MPI_Imrecv(in, n1, MPI_BYTE, &msg, &rreq));
            p2p_check_ok("MPI_Wait", MPI_Wait(&rreq, &st));
        } else {
            p2p_check_ok("MPI_Mrecv", MPI_Mrecv(in, n1, MPI_BYTE, &msg, &st));
        }
        if (msg != MPI_MESSAGE_NULL)
            p2p_die("%s: the handle is not MPI_MESSAGE_NULL", what);
        p2p_check_status(what, &st, left, tag, MPI_BYTE, n1);
        shm_check(what, in, (size_t)n1, shm_msg_seed(base, left, p2p_rank, i));
        shm_guard_check(what, in + n1);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}

/* Rank 0 holds a matched message of every other rank, then receives them
 * backwards. */
static void mprobe_many(unsigned char *out, unsigned char *in)
{
    int n = sizes[p2p_rank % NSIZES];

    if (p2p_rank != 0) {
        shm_make(out, (size_t)n, shm_msg_seed(7, p2p_rank, 0, 0));
        MPI_Send(out, n, MPI_BYTE, 0, TAG + p2p_rank, MPI_COMM_WORLD);
        return;
    }
    {
        MPI_Message msg[p2p_size];
        int from[p2p_size];
        MPI_Status st;

        for (int i = 1; i < p2p_size; i++) {
            p2p_check_ok("MPI_Mprobe",
                         MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg[i], &st));
            from[i] = st.MPI_SOURCE;
            if (from[i] < 1 || from[i] >= p2p_size || st.MPI_TAG != TAG + from[i])
                p2p_die("MPI_Mprobe %d: source %d tag %d", i, from[i], st.MPI_TAG);
            for (int j = 1; j < i; j++)
                if (from[j] == from[i])
                    p2p_die("MPI_Mprobe matched rank %d's one message twice", from[i]);
            check_probe("MPI_Mprobe(ANY_SOURCE, ANY_TAG)", &st, from[i], TAG + from[i],
                        sizes[from[i] % NSIZES]);
        }
        for (int i = p2p_size - 1; i >= 1; i--) {
            int src = from[i], m = sizes[src % NSIZES];
            char what[64];

            snprintf(what, sizeof what, "MPI_Mrecv of rank %d's %d bytes", src, m);
            shm_guard_set(in + m);
            p2p_check_ok("MPI_Mrecv", MPI_Mrecv(in, MAX_BYTES, MPI_BYTE, &msg[i], &st));
            p2p_check_status(what, &st, src, TAG + src, MPI_BYTE, m);
            shm_check(what, in, (size_t)m, shm_msg_seed(7, src, 0, 0));
            shm_guard_check(what, in + m);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned char *out, *in;
    int flag = 1;
    MPI_Status st;

    p2p_init("p2p_shm_probe", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    out = shm_malloc(2 * MAX_BYTES);
    in = shm_malloc(MAX_BYTES + SHM_GUARD);

    probe_and_iprobe(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    mprobe_pair(out, in, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    mprobe_pair(out, in, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    mprobe_many(out, in);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (flag)
        p2p_die("a message is left over: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    free(out);
    free(in);
    p2p_finish();
    return 0;
}
