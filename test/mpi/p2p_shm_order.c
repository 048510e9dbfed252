/* p2p_shm_order: non-overtaking between one pair of ranks, with every send
 * mode and sizes that cross any inline, ring or rendezvous limit.
 *
 * Ranks pair up: each even rank sends to the next odd one (with an odd
 * number of ranks the last rank sends to the one before it, which then
 * receives from two senders at once). A sender sends NMSG messages of
 * random sizes from 0 to 256 KiB, WINDOW at a time, each by a mode drawn
 * at random: MPI_Send, MPI_Isend, MPI_Ssend, MPI_Issend, MPI_Bsend and, in
 * windows whose receives are posted first, MPI_Rsend and MPI_Irsend. A
 * channel that carries small messages one way (inline through a ring) and
 * large or synchronous ones another (UCX) must still deliver them in the
 * order sent.
 *
 * Windows alternate: in a "posted" window the receiver pre-posts all its
 * receives, then tells the sender (a token), which may then use ready
 * mode; in a "late" window the sender does not wait and the receiver
 * receives with blocking calls, every fourth time after a busy pause that
 * lets the messages pile up unexpected.
 *
 * Pass 0: one tag, receives given the tag. Pass 1: the sender cycles over
 * five tags, the receiver uses MPI_ANY_TAG: a wildcard receive must still
 * take the messages in order across tags.
 *
 * Both sides draw the sizes and modes from the same seed; the receiver
 * checks every message's bytes (its identity and pattern), its status
 * (source, tag, MPI_Get_count) and that nothing is written past it. */
#include "p2p_shm_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NMSG = 2000,
    WINDOW = 16,
    MAX_BYTES = 256 * 1024,
    NPASS = 2,
    TAG = 3,
    NTAGS = 5, /* tags TAG .. TAG + NTAGS - 1 in pass 1 */
    READY_TAG = 100,
};

enum mode { SEND, ISEND, SSEND, ISSEND, BSEND, RSEND, IRSEND, NMODES };
static const char *mode_name[NMODES] = {"MPI_Send",  "MPI_Isend", "MPI_Ssend", "MPI_Issend",
                                        "MPI_Bsend", "MPI_Rsend", "MPI_Irsend"};

/* What both sides know of every message of a pass from one sender. */
struct plan {
    size_t size[NMSG];
    enum mode mode[NMSG];
};

static int posted_window(int w)
{
    return w % 2 == 0;
}

static int tag_of(int pass, int seq)
{
    return pass == 0 ? TAG : TAG + seq % NTAGS;
}

static void make_plan(struct plan *p, int pass, int src)
{
    uint64_t rng = shm_seed(1, (unsigned)pass, (unsigned)src);

    for (int seq = 0; seq < NMSG; seq++) {
        enum mode m = (enum mode)shm_below(&rng, NMODES);

        p->size[seq] = shm_size(&rng, MAX_BYTES);
        /* ready mode needs the receive posted: only in posted windows */
        if ((m == RSEND || m == IRSEND) && !posted_window(seq / WINDOW))
            m = m == RSEND ? SEND : ISEND;
        p->mode[seq] = m;
    }
}

/* The sender's partner, or -1 for a rank that only receives. */
static int dest_of(int rank, int size)
{
    if (rank % 2)
        return -1;
    return rank + 1 < size ? rank + 1 : rank - 1;
}

static void run_sender(int pass, int dst, unsigned char *bufs)
{
    struct plan *p = shm_malloc(sizeof *p);
    MPI_Request req[WINDOW];

    make_plan(p, pass, p2p_rank);
    for (int base = 0; base < NMSG; base += WINDOW) {
        int w = NMSG - base < WINDOW ? NMSG - base : WINDOW, nreq = 0;

        if (posted_window(base / WINDOW))
            MPI_Recv(NULL, 0, MPI_BYTE, dst, READY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int k = 0; k < w; k++) {
            int seq = base + k, n = (int)p->size[seq], tag = tag_of(pass, seq), rc;
            unsigned char *b = bufs + (size_t)k * MAX_BYTES;
            char what[96];

            shm_make(b, (size_t)n, shm_msg_seed((unsigned)pass, p2p_rank, dst, seq));
            switch (p->mode[seq]) {
            case SEND: rc = MPI_Send(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD); break;
            case SSEND: rc = MPI_Ssend(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD); break;
            case BSEND: rc = MPI_Bsend(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD); break;
            case RSEND: rc = MPI_Rsend(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD); break;
            case ISEND:
                rc = MPI_Isend(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD, &req[nreq++]);
                break;
            case ISSEND:
                rc = MPI_Issend(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD, &req[nreq++]);
                break;
            default: rc = MPI_Irsend(b, n, MPI_BYTE, dst, tag, MPI_COMM_WORLD, &req[nreq++]); break;
            }
            snprintf(what, sizeof what, "pass %d: %s of message %d (%d bytes)", pass,
                     mode_name[p->mode[seq]], seq, n);
            p2p_check_ok(what, rc);
        }
        p2p_check_ok("MPI_Waitall of a window's sends",
                     MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    }
    free(p);
}

static void check_one(int pass, int src, int seq, const struct plan *p, const unsigned char *b,
                      const MPI_Status *st)
{
    char what[128];

    snprintf(what, sizeof what, "pass %d: message %d of rank %d (%s, %zu bytes)", pass, seq, src,
             mode_name[p->mode[seq]], p->size[seq]);
    p2p_check_status(what, st, src, tag_of(pass, seq), MPI_BYTE, (MPI_Count)p->size[seq]);
    shm_check(what, b, p->size[seq], shm_msg_seed((unsigned)pass, src, p2p_rank, seq));
    shm_guard_check(what, b + p->size[seq]);
}

/* Receives a pass from nsrc senders (1 or 2) window by window. */
static void run_receiver(int pass, const int *src, int nsrc, unsigned char *bufs)
{
    const size_t slot = MAX_BYTES + SHM_GUARD;
    int rtag = pass == 0 ? TAG : MPI_ANY_TAG;
    struct plan *p[2];
    MPI_Request req[2 * WINDOW];
    MPI_Status st[2 * WINDOW];

    for (int s = 0; s < nsrc; s++) {
        p[s] = shm_malloc(sizeof *p[s]);
        make_plan(p[s], pass, src[s]);
    }
    for (int base = 0; base < NMSG; base += WINDOW) {
        int w = NMSG - base < WINDOW ? NMSG - base : WINDOW;
        int posted = posted_window(base / WINDOW);

        for (int s = 0; s < nsrc; s++)
            for (int k = 0; k < w; k++)
                shm_guard_set(bufs + (size_t)(s * WINDOW + k) * slot + p[s]->size[base + k]);
        if (posted) {
            for (int s = 0; s < nsrc; s++) {
                for (int k = 0; k < w; k++)
                    MPI_Irecv(bufs + (size_t)(s * WINDOW + k) * slot, MAX_BYTES, MPI_BYTE, src[s],
                              rtag, MPI_COMM_WORLD, &req[s * WINDOW + k]);
                MPI_Send(NULL, 0, MPI_BYTE, src[s], READY_TAG, MPI_COMM_WORLD);
            }
            for (int s = 0; s < nsrc; s++)
                p2p_check_ok("MPI_Waitall of pre-posted receives",
                             MPI_Waitall(w, &req[s * WINDOW], &st[s * WINDOW]));
        } else {
            /* every other late window: let the messages arrive unexpected */
            if (base / WINDOW % 4 == 1)
                shm_spin_us(2000);
            for (int s = 0; s < nsrc; s++)
                for (int k = 0; k < w; k++)
                    p2p_check_ok("MPI_Recv", MPI_Recv(bufs + (size_t)(s * WINDOW + k) * slot,
                                                      MAX_BYTES, MPI_BYTE, src[s], rtag,
                                                      MPI_COMM_WORLD, &st[s * WINDOW + k]));
        }
        for (int s = 0; s < nsrc; s++)
            for (int k = 0; k < w; k++)
                check_one(pass, src[s], base + k, p[s], bufs + (size_t)(s * WINDOW + k) * slot,
                          &st[s * WINDOW + k]);
    }
    for (int s = 0; s < nsrc; s++)
        free(p[s]);
}

/* Room for every MPI_Bsend of a pass: the sender may run ahead of the
 * receiver by many windows, so the buffer holds them all. */
static int bsend_bytes(int pass)
{
    struct plan *p = shm_malloc(sizeof *p);
    long total = 0;

    make_plan(p, pass, p2p_rank);
    for (int seq = 0; seq < NMSG; seq++)
        if (p->mode[seq] == BSEND)
            total += (long)p->size[seq] + MPI_BSEND_OVERHEAD;
    free(p);
    return (int)total;
}

int main(int argc, char **argv)
{
    int dst, src[2], nsrc = 0;
    unsigned char *bufs;

    p2p_init("p2p_shm_order", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    dst = dest_of(p2p_rank, p2p_size);
    for (int r = 0; r < p2p_size; r++)
        if (dest_of(r, p2p_size) == p2p_rank)
            src[nsrc++] = r;
    bufs = shm_malloc((size_t)2 * WINDOW * (MAX_BYTES + SHM_GUARD));

    for (int pass = 0; pass < NPASS; pass++) {
        if (dst >= 0) {
            int bsize = bsend_bytes(pass), got_size;
            void *bbuf = shm_malloc((size_t)bsize), *got;

            MPI_Buffer_attach(bbuf, bsize);
            run_sender(pass, dst, bufs);
            /* waits for the buffered messages to leave */
            MPI_Buffer_detach(&got, &got_size);
            free(bbuf);
        } else {
            run_receiver(pass, src, nsrc, bufs);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(bufs);
    p2p_finish();
    return 0;
}
