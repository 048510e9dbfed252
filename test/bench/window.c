/* Windows of nonblocking messages; see window.h. */
#include "window.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define TAG_DATA 11
#define TAG_ACK 12
#define CHECK_MSGS 4

/* sbuf, rbuf, check_buf: bench_buffer memory (host or device); host: where
 * a checked message is filled and read. */
static unsigned char *sbuf, *rbuf, *check_buf, *host;
static MPI_Request *reqs;

void window_setup(size_t max_size, int w)
{
    sbuf = bench_buffer(max_size);
    rbuf = bench_buffer(max_size);
    host = bench_alloc(max_size);
    reqs = malloc(2 * (size_t)w * sizeof *reqs);
    check_buf = NULL;
}

void window_send(int peer, size_t size, int w, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < w; j++)
            MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

void window_recv(int peer, size_t size, int w, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < w; j++)
            MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
    }
}

void window_both(int peer, size_t size, int w, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < w; j++)
            MPI_Irecv(rbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        for (int j = 0; j < w; j++)
            MPI_Isend(sbuf, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[w + j]);
        MPI_Waitall(2 * w, reqs, MPI_STATUSES_IGNORE);
    }
}

/* Messages of a checked window: a send buffer and a receive buffer each. */
static unsigned char *check_msg(size_t size, int j, int recv)
{
    static size_t have;
    size_t need = 2 * CHECK_MSGS * (size ? size : 1);
    if (have < need) {
        check_buf = bench_buffer(need); /* rare: the old one is kept, not freed */
        have = need;
    }
    return check_buf + (size_t)(2 * j + recv) * size;
}

static int check_count(int w)
{
    return w < CHECK_MSGS ? w : CHECK_MSGS;
}

static void post(int peer, size_t size, int w, int sends, int recvs, int first_tag_msg)
{
    int k = 0;
    for (int j = 0; recvs && j < w; j++) {
        unsigned char *b = check_msg(size, j, 1);
        memset(host, 0, size);
        bench_upload(b, host, size);
        MPI_Irecv(b, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[k++]);
    }
    for (int j = 0; sends && j < w; j++) {
        unsigned char *b = check_msg(size, j, 0);
        bench_fill(host, size, first_tag_msg + j);
        bench_upload(b, host, size);
        MPI_Isend(b, (int)size, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[k++]);
    }
    MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE);
}

static long count(size_t size, int w, int first_msg)
{
    long wrong = 0;
    for (int j = 0; j < w; j++) {
        bench_download(host, check_msg(size, j, 1), size);
        wrong += bench_count_wrong(host, size, first_msg + j);
    }
    return wrong;
}

long window_check_send(int peer, size_t size, int w)
{
    post(peer, size, check_count(w), 1, 0, 0);
    MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 0;
}

long window_check_recv(int peer, size_t size, int w)
{
    post(peer, size, check_count(w), 0, 1, 0);
    MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
    return count(size, check_count(w), 0);
}

/* Each side sends messages numbered from its own rank's base, so that data
 * that came back from the wrong direction does not pass. */
long window_check_both(int peer, size_t size, int w)
{
    int me = bench_rank < peer ? 0 : 1;
    post(peer, size, check_count(w), 1, 1, me * CHECK_MSGS);
    return count(size, check_count(w), (1 - me) * CHECK_MSGS);
}
