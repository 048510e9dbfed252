/* matrix: every ordered pair of ranks (i, j), i != j, exchanges one message
 * for each size (0, 1, 7, 1000, 65536 and 1 MiB bytes) and element type
 * (MPI_CHAR, MPI_INT, MPI_DOUBLE), so small (eager) and large (rendezvous)
 * protocols and odd lengths are all crossed with every pair of ranks.
 *
 * The receiver checks every byte against a pattern that depends on (source,
 * destination, size, type), so a message delivered to the wrong receive or
 * with shifted data shows; it receives into a buffer a few elements longer
 * than the message and checks that those elements are untouched, and checks
 * the status (source, tag) and MPI_Get_count.
 *
 * Blocking sends must not deadlock: all ranks walk the pairs {a < b} in the
 * same order and within a pair the lower rank sends first. The first pair not
 * yet done is always the current pair of both its ranks, so it completes. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NSIZES = 6,
    NTYPES = 3,
    SLACK = 3,       /* extra elements offered by each receive */
    CANARY = 0xa5,   /* fills the receive buffer beforehand */
    MAX_ELEMENT = 8, /* the largest element size in types[] */
};

static const size_t sizes[NSIZES] = {0, 1, 7, 1000, 65536, 1 << 20};

static const struct {
    MPI_Datatype type;
    size_t size;
    const char *name;
} types[NTYPES] = {
    {MPI_CHAR, sizeof(char), "MPI_CHAR"},
    {MPI_INT, sizeof(int), "MPI_INT"},
    {MPI_DOUBLE, sizeof(double), "MPI_DOUBLE"},
};

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "matrix: rank %d of %d: ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Element count of a message: the byte size rounded up to whole elements. */
static int count_of(int si, int ti)
{
    return (int)((sizes[si] + types[ti].size - 1) / types[ti].size);
}

static int tag_of(int si, int ti)
{
    return 1 + ti * NSIZES + si;
}

/* Byte k of the message from src to dst of size si and type ti: a hash, so
 * that neither a shift nor a swap of two messages keeps the data valid. */
static uint8_t pattern(int src, int dst, int si, int ti, size_t k)
{
    uint32_t x = (uint32_t)k * 2654435761u;

    x ^= (uint32_t)src << 24 | (uint32_t)dst << 16 | (uint32_t)si << 8 | (uint32_t)ti;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return (uint8_t)x;
}

static void send_one(unsigned char *buf, int peer, int si, int ti)
{
    int count = count_of(si, ti);
    size_t bytes = (size_t)count * types[ti].size;

    for (size_t k = 0; k < bytes; k++)
        buf[k] = pattern(rank, peer, si, ti, k);
    MPI_Send(buf, count, types[ti].type, peer, tag_of(si, ti), MPI_COMM_WORLD);
}

static void check_data(const unsigned char *buf, int peer, int si, int ti)
{
    size_t bytes = (size_t)count_of(si, ti) * types[ti].size;

    for (size_t k = 0; k < bytes; k++)
        if (buf[k] != pattern(peer, rank, si, ti, k))
            die("%zu bytes of %s from rank %d: byte %zu is 0x%02x, expected 0x%02x",
                bytes, types[ti].name, peer, k, buf[k], pattern(peer, rank, si, ti, k));
    for (size_t k = bytes; k < bytes + SLACK * types[ti].size; k++)
        if (buf[k] != CANARY)
            die("%zu bytes of %s from rank %d: byte %zu past the end was overwritten",
                bytes, types[ti].name, peer, k);
}

static void recv_one(unsigned char *buf, int peer, int si, int ti)
{
    int count = count_of(si, ti), got;
    MPI_Status st;

    memset(buf, CANARY, (size_t)(count + SLACK) * types[ti].size);
    MPI_Recv(buf, count + SLACK, types[ti].type, peer, tag_of(si, ti), MPI_COMM_WORLD,
             &st);
    MPI_Get_count(&st, types[ti].type, &got);
    if (st.MPI_SOURCE != peer || st.MPI_TAG != tag_of(si, ti) || got != count)
        die("%d x %s from rank %d tag %d: status source %d tag %d count %d", count,
            types[ti].name, peer, tag_of(si, ti), st.MPI_SOURCE, st.MPI_TAG, got);
    check_data(buf, peer, si, ti);
}

/* One message each way for every size and type; the lower rank sends first. */
static int exchange(unsigned char *buf, int peer)
{
    int messages = 0;

    for (int ti = 0; ti < NTYPES; ti++) {
        for (int si = 0; si < NSIZES; si++) {
            if (rank < peer) {
                send_one(buf, peer, si, ti);
                recv_one(buf, peer, si, ti);
            } else {
                recv_one(buf, peer, si, ti);
                send_one(buf, peer, si, ti);
            }
            messages++;
        }
    }
    return messages;
}

int main(int argc, char **argv)
{
    unsigned char *buf;
    int received = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = malloc(sizes[NSIZES - 1] + SLACK * MAX_ELEMENT);
    if (!buf)
        die("out of memory");

    for (int a = 0; a < size; a++)
        for (int b = a + 1; b < size; b++)
            if (rank == a || rank == b)
                received += exchange(buf, rank == a ? b : a);

    /* Rank 0 reports only once every rank has checked its messages. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("matrix: %d ranks OK, %d messages checked per rank\n", size, received);
    free(buf);
    MPI_Finalize();
    return 0;
}
