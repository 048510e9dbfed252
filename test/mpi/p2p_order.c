/* p2p_order: the non-overtaking rule with eager and rendezvous messages
 * mixed (8 B to 256 KiB).
 *
 * 1. One sender: rank 1 sends NMSG messages of one tag to rank 0, in
 *    windows of nonblocking sends so that many are in flight; rank 0
 *    receives them with blocking receives and with windows of pre-posted
 *    receives (which must match in the order posted), and checks each
 *    message's sequence number, length and data.
 * 2. Several senders: every rank r > 0 sends its share of NMSG messages of
 *    one tag to rank 0, which receives with MPI_ANY_SOURCE: the messages of
 *    each sender come in the order sent.
 * Each message starts with its sender and sequence number; the rest is the
 * pattern of (sender, seq). */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NMSG = 1000,
    WINDOW = 16,
    MAX_BYTES = 256 * 1024,
    TAG = 5,
};

/* 8 B << 0..15: 8 B to 256 KiB, in an order that mixes them. */
static size_t size_of(int seq)
{
    return (size_t)8 << (seq * 7 % 16);
}

static unsigned seed_of(int src, int seq)
{
    return (unsigned)src * 65537u + (unsigned)seq;
}

static void make_message(unsigned char *buf, int seq)
{
    int head[2] = {p2p_rank, seq};

    memcpy(buf, head, sizeof head);
    p2p_fill(buf + sizeof head, size_of(seq) - sizeof head, seed_of(p2p_rank, seq));
}

/* The message in buf, of status st, is seq from src. */
static void check_message(const char *what, const unsigned char *buf, const MPI_Status *st,
                          int src, int seq)
{
    int head[2];
    char text[128];

    memcpy(head, buf, sizeof head);
    if (head[0] != src || head[1] != seq)
        p2p_die("%s: got message %d of rank %d, expected message %d of rank %d", what, head[1],
                head[0], seq, src);
    snprintf(text, sizeof text, "%s: message %d of rank %d", what, seq, src);
    p2p_check_status(text, st, src, TAG, MPI_BYTE, (MPI_Count)size_of(seq));
    p2p_check_data(text, buf + sizeof head, size_of(seq) - sizeof head, seed_of(src, seq));
}

/* Sends messages 0 .. n-1 to rank 0, WINDOW at a time. */
static void send_messages(int n, unsigned char *bufs)
{
    MPI_Request req[WINDOW];

    for (int base = 0; base < n; base += WINDOW) {
        int w = n - base < WINDOW ? n - base : WINDOW;

        for (int k = 0; k < w; k++) {
            unsigned char *b = bufs + (size_t)k * MAX_BYTES;

            make_message(b, base + k);
            MPI_Isend(b, (int)size_of(base + k), MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &req[k]);
        }
        MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
    }
}

static void one_sender(unsigned char *bufs)
{
    MPI_Request req[WINDOW];
    MPI_Status st[WINDOW];

    if (p2p_rank == 1)
        send_messages(NMSG, bufs);
    if (p2p_rank != 0)
        return;
    /* Odd windows pre-posted, even ones blocking. */
    for (int base = 0, win = 0; base < NMSG; base += WINDOW, win++) {
        int w = NMSG - base < WINDOW ? NMSG - base : WINDOW;

        for (int k = 0; k < w; k++) {
            unsigned char *b = bufs + (size_t)k * MAX_BYTES;

            if (win % 2)
                MPI_Irecv(b, MAX_BYTES, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &req[k]);
            else
                MPI_Recv(b, MAX_BYTES, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &st[k]);
        }
        if (win % 2)
            MPI_Waitall(w, req, st);
        for (int k = 0; k < w; k++)
            check_message(win % 2 ? "pre-posted receive" : "blocking receive",
                          bufs + (size_t)k * MAX_BYTES, &st[k], 1, base + k);
    }
}

static void many_senders(unsigned char *bufs)
{
    int senders = p2p_size - 1, share = NMSG / senders, next[p2p_size];
    MPI_Status st;

    if (p2p_rank != 0) {
        send_messages(share, bufs);
        return;
    }
    memset(next, 0, sizeof next);
    for (int m = 0; m < share * senders; m++) {
        int src;

        MPI_Recv(bufs, MAX_BYTES, MPI_BYTE, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st);
        src = st.MPI_SOURCE;
        if (src < 1 || src >= p2p_size || next[src] >= share)
            p2p_die("ANY_SOURCE receive %d: unexpected source %d", m, src);
        check_message("ANY_SOURCE receive", bufs, &st, src, next[src]++);
    }
}

int main(int argc, char **argv)
{
    unsigned char *bufs;

    p2p_init("p2p_order", &argc, &argv, MPI_THREAD_SINGLE);
    bufs = malloc((size_t)WINDOW * MAX_BYTES);
    if (!bufs)
        p2p_die("out of memory");

    one_sender(bufs);
    MPI_Barrier(MPI_COMM_WORLD);
    many_senders(bufs);
    free(bufs);
    p2p_finish();
    return 0;
}
