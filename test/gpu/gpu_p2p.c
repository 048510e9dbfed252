/* gpu_p2p: point-to-point with device buffers. Every send mode (standard,
 * synchronous, buffered, ready, nonblocking, persistent) x every direction
 * (device to device, host to device, device to host) x sizes 0, 1,
 * 8 KiB - 1, 1 MiB + 3 and 64 MiB. Ranks pair up (0-1, 2-3; an odd last
 * rank waits); in each pair both ranks send in turn. The receiver checks
 * the status (source, tag, count) and every byte on the host, and that the
 * bytes after the message in its buffer were not written.
 *   gpu_p2p [MAX]   only the sizes up to MAX bytes (K, M suffixes) */
#include <stdio.h>
#include <stdlib.h>

#include "gpu_test.h"

enum mode { STANDARD, SYNCHRONOUS, BUFFERED, READY, NONBLOCKING, PERSISTENT, MODES };
static const char *const mode_names[] = { "standard", "synchronous", "buffered", "ready",
                                          "nonblocking", "persistent" };

struct direction { enum gt_mem send, recv; };
static const struct direction directions[] = {
    { GT_DEVICE, GT_DEVICE }, { GT_HOST, GT_DEVICE }, { GT_DEVICE, GT_HOST },
};
#define DIRECTIONS (sizeof directions / sizeof directions[0])

static const size_t sizes[] = { 0, 1, 8 * 1024 - 1, (1 << 20) + 3, (size_t)64 << 20 };
#define SIZES (sizeof sizes / sizeof sizes[0])
#define MAX_SIZE ((size_t)64 << 20)

/* Bytes after the message in the receive buffer, which must stay as set. */
#define GUARD 64
#define GUARD_BYTE 0xee
#define TAG 7
#define TAG_READY 8

/* One buffer of each kind for sending and receiving, for all sizes. */
static void *send_buf[2], *recv_buf[2];

/* What one transfer is: for the messages and the seed of its pattern. */
struct transfer {
    enum mode mode;
    struct direction dir;
    size_t size;
    int sender, receiver;
    int round; /* persistent: which of the two starts */
};

static unsigned seed_of(const struct transfer *t)
{
    return (unsigned)(t->mode * 1000 + (int)(t->dir.send * 2 + t->dir.recv) * 100 + t->sender * 10 +
                      t->round) * 64u + (unsigned)(t->size % 61);
}

static void describe(const struct transfer *t, char *out, size_t len)
{
    snprintf(out, len, "%s send of %zu bytes, %s to %s memory, rank %d to %d%s", mode_names[t->mode],
             t->size, gt_mem_name(t->dir.send), gt_mem_name(t->dir.recv), t->sender, t->receiver,
             t->mode == PERSISTENT ? (t->round ? " (2nd start)" : " (1st start)") : "");
}

static void send_one(const struct transfer *t, void *buf)
{
    int n = (int)t->size;
    MPI_Request req;
    switch (t->mode) {
    case STANDARD: MPI_Send(buf, n, MPI_BYTE, t->receiver, TAG, MPI_COMM_WORLD); break;
    case SYNCHRONOUS: MPI_Ssend(buf, n, MPI_BYTE, t->receiver, TAG, MPI_COMM_WORLD); break;
    case BUFFERED: MPI_Bsend(buf, n, MPI_BYTE, t->receiver, TAG, MPI_COMM_WORLD); break;
    case READY:
        /* The receiver says when its receive is posted. */
        MPI_Recv(NULL, 0, MPI_BYTE, t->receiver, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Rsend(buf, n, MPI_BYTE, t->receiver, TAG, MPI_COMM_WORLD);
        break;
    case NONBLOCKING:
        MPI_Isend(buf, n, MPI_BYTE, t->receiver, TAG, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        break;
    default: break;
    }
}

static void check_received(const struct transfer *t, void *buf, const MPI_Status *st)
{
    char what[200], part[260];
    int count = -1;

    describe(t, what, sizeof what);
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != t->sender || st->MPI_TAG != TAG || count != (int)t->size)
        gt_fail("%s: status says source %d, tag %d, count %d; expected %d, %d, %zu", what,
                st->MPI_SOURCE, st->MPI_TAG, count, t->sender, TAG, t->size);
    snprintf(part, sizeof part, "%s: received data", what);
    gt_check_buffer(part, t->dir.recv, buf, t->size, seed_of(t));
    snprintf(part, sizeof part, "%s: the %d bytes after the message", what, GUARD);
    gt_check_value(part, t->dir.recv, (char *)buf + t->size, GUARD, GUARD_BYTE);
}

static void recv_one(const struct transfer *t, void *buf)
{
    MPI_Request req;
    MPI_Status st;
    int n = (int)t->size + GUARD;

    gt_set(t->dir.recv, buf, GUARD_BYTE, t->size + GUARD);
    if (t->mode == READY || t->mode == NONBLOCKING) {
        MPI_Irecv(buf, n, MPI_BYTE, t->sender, TAG, MPI_COMM_WORLD, &req);
        if (t->mode == READY)
            MPI_Send(NULL, 0, MPI_BYTE, t->sender, TAG_READY, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
    } else {
        MPI_Recv(buf, n, MPI_BYTE, t->sender, TAG, MPI_COMM_WORLD, &st);
    }
    check_received(t, buf, &st);
}

/* Persistent: one request started twice, the data changed in between. */
static void persistent_send(struct transfer *t, void *buf)
{
    MPI_Request req;
    MPI_Send_init(buf, (int)t->size, MPI_BYTE, t->receiver, TAG, MPI_COMM_WORLD, &req);
    for (t->round = 0; t->round < 2; t->round++) {
        gt_put_pattern(t->dir.send, buf, t->size, seed_of(t));
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&req);
}

static void persistent_recv(struct transfer *t, void *buf)
{
    MPI_Request req;
    MPI_Status st;
    MPI_Recv_init(buf, (int)t->size + GUARD, MPI_BYTE, t->sender, TAG, MPI_COMM_WORLD, &req);
    for (t->round = 0; t->round < 2; t->round++) {
        gt_set(t->dir.recv, buf, GUARD_BYTE, t->size + GUARD);
        MPI_Start(&req);
        MPI_Wait(&req, &st);
        check_received(t, buf, &st);
    }
    MPI_Request_free(&req);
}

static void transfer(struct transfer *t)
{
    if (gt_rank == t->sender) {
        void *buf = send_buf[t->dir.send];
        if (t->mode == PERSISTENT) {
            persistent_send(t, buf);
        } else {
            gt_put_pattern(t->dir.send, buf, t->size, seed_of(t));
            send_one(t, buf);
        }
    } else if (gt_rank == t->receiver) {
        void *buf = recv_buf[t->dir.recv];
        if (t->mode == PERSISTENT)
            persistent_recv(t, buf);
        else
            recv_one(t, buf);
    }
}

/* Every transfer of one mode and size, both ways in every pair. */
static void run_all(enum mode mode, size_t size)
{
    int partner = gt_rank ^ 1;
    if (partner >= gt_size)
        return;
    for (size_t d = 0; d < DIRECTIONS; d++)
        for (int first = 0; first < 2; first++) {
            int even = gt_rank & ~1;
            struct transfer t = { mode, directions[d], size, even + first, even + 1 - first, 0 };
            transfer(&t);
        }
}

/* "1M" -> 1048576; 0 when s is not a size. */
static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 10);
    if (*end == 'K')
        v <<= 10, end++;
    else if (*end == 'M')
        v <<= 20, end++;
    return *end == '\0' ? v : 0;
}

int main(int argc, char **argv)
{
    void *bsend_space;
    int bsend_bytes = (int)MAX_SIZE + MPI_BSEND_OVERHEAD;
    size_t max = MAX_SIZE;

    gt_init("gpu_p2p", &argc, &argv);
    if (argc > 1 && (max = parse_size(argv[1])) == 0)
        gt_die("usage: gpu_p2p [MAX_SIZE]");
    for (int m = 0; m < 2; m++) {
        send_buf[m] = gt_alloc((enum gt_mem)m, MAX_SIZE);
        recv_buf[m] = gt_alloc((enum gt_mem)m, MAX_SIZE + GUARD);
    }
    bsend_space = malloc((size_t)bsend_bytes);
    if (!bsend_space)
        gt_die("cannot allocate the buffer to attach for MPI_Bsend");
    MPI_Buffer_attach(bsend_space, bsend_bytes);

    for (size_t s = 0; s < SIZES && sizes[s] <= max; s++)
        for (int mode = 0; mode < MODES; mode++)
            run_all((enum mode)mode, sizes[s]);

    MPI_Buffer_detach(&bsend_space, &bsend_bytes);
    free(bsend_space);
    for (int m = 0; m < 2; m++) {
        gt_free((enum gt_mem)m, send_buf[m]);
        gt_free((enum gt_mem)m, recv_buf[m]);
    }
    return gt_finish();
}
