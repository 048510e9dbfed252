/* osu_bw_vector: unidirectional bandwidth of a noncontiguous datatype from
 * rank 0 to rank 1 (other ranks only wait at the barriers), as osu_bw but
 * each message is one MPI_Type_vector of doubles with stride 2: every other
 * double of a buffer twice the message's size, on both sides. The size is
 * the payload (the doubles that move), so the MB/s compare with osu_bw's;
 * sizes below one double are skipped. Windows of -W nonblocking sends, each
 * acknowledged by a zero-byte message. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define TAG_DATA 21
#define TAG_ACK 22
#define CHECK_MSGS 4

static int window;
static unsigned char *sbuf, *rbuf;
static MPI_Request *reqs;

/* The vector type of a size: payload / 8 doubles, one every two. */
static MPI_Datatype vector_of(size_t size)
{
    static size_t have_size;
    static MPI_Datatype type = MPI_DATATYPE_NULL;
    if (type != MPI_DATATYPE_NULL && have_size == size)
        return type;
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type);
    MPI_Type_vector((int)(size / sizeof(double)), 1, 2, MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    have_size = size;
    return type;
}

static void send_windows(int peer, size_t size, int n)
{
    MPI_Datatype t = vector_of(size);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < window; j++)
            MPI_Isend(sbuf, 1, t, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

static void recv_windows(int peer, size_t size, int n)
{
    MPI_Datatype t = vector_of(size);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < window; j++)
            MPI_Irecv(rbuf, 1, t, peer, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        MPI_Waitall(window, reqs, MPI_STATUSES_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
    }
}

static void run(size_t size, int n)
{
    if (bench_rank == 0)
        send_windows(1, size, n);
    else if (bench_rank == 1)
        recv_windows(0, size, n);
}

/* -c: a window of at most CHECK_MSGS messages, each from its own pattern
 * (over the whole strided buffer, gaps included) into its own zeroed
 * buffer. Every received byte must match the sender's at the same place,
 * and the gaps must still be zero. */
static long check(size_t size)
{
    MPI_Datatype t = vector_of(size);
    int w = window < CHECK_MSGS ? window : CHECK_MSGS;
    size_t span = 2 * size;
    unsigned char *bufs = bench_alloc((size_t)w * span);
    long wrong = 0;
    if (bench_rank == 0) {
        for (int j = 0; j < w; j++) {
            bench_fill(bufs + (size_t)j * span, span, j);
            MPI_Isend(bufs + (size_t)j * span, 1, t, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        }
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (bench_rank == 1) {
        memset(bufs, 0, (size_t)w * span);
        for (int j = 0; j < w; j++)
            MPI_Irecv(bufs + (size_t)j * span, 1, t, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
        MPI_Waitall(w, reqs, MPI_STATUSES_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        unsigned char *expect = bench_alloc(span);
        for (int j = 0; j < w; j++) {
            bench_fill(expect, span, j);
            for (size_t k = 0; k < span; k++)
                if ((k / sizeof(double)) % 2)
                    expect[k] = 0;
            const unsigned char *got = bufs + (size_t)j * span;
            for (size_t k = 0; k < span; k++)
                wrong += got[k] != expect[k];
        }
        free(expect);
    }
    free(bufs);
    return wrong;
}

int main(int argc, char **argv)
{
    struct bench b = {
        .name = "osu_bw_vector",
        .what = "vector datatype bandwidth: rank 0 sends windows of nonblocking messages, each "
                "every other double of a buffer (MPI_Type_vector, stride 2), to rank 1",
        .metric = BENCH_BANDWIDTH, .min_ranks = 2, .sized = 1, .has_window = 1,
        .opts = { .min_size = 8, .max_size = 4 << 20, .iters = 100, .large_iters = 20,
                  .warmup = 10, .batches = 5, .window = 64, .batch_bytes = 512 << 20 },
        .run = run, .check = check,
    };
    bench_init(&b, &argc, &argv);
    window = b.opts.window;
    b.msgs_per_iter = window;
    b.size_min = sizeof(double);
    sbuf = bench_alloc(2 * b.opts.max_size);
    rbuf = bench_alloc(2 * b.opts.max_size);
    reqs = malloc((size_t)window * sizeof *reqs);
    return bench_sweep(&b);
}
