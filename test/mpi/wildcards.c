/* wildcards: receives with MPI_ANY_SOURCE and MPI_ANY_TAG, MPI_PROC_NULL, and
 * the non-overtaking rule.
 *
 * 1. MPI_PROC_NULL (every rank, also with one rank): a send and a receive
 *    complete at once; the receive leaves its buffer alone and its status says
 *    source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0.
 * 2. ANY_SOURCE + ANY_TAG: every rank r > 0 sends NMSG messages of different
 *    tags and lengths to rank 0, which receives them all with both wildcards
 *    and checks the status (who, which tag, how many), the data, and that the
 *    messages of each sender arrive in the order sent.
 * 3. One wildcard at a time: rank 0 receives with ANY_SOURCE and a tag that
 *    only rank r uses, in reverse rank order, and then with a given source
 *    and ANY_TAG.
 * 4. Non-overtaking: rank 1 sends NORDER numbered messages with one tag to
 *    rank 0, some short and some long (so that eager and rendezvous
 *    protocols mix); rank 0 receives half with that source and tag and half
 *    with both wildcards, and checks that they come in order.
 * A barrier separates the phases: a wildcard receive of one phase must not
 * see the messages of the next. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum {
    NMSG = 5,               /* messages per sender in phase 2 */
    NORDER = 100,           /* messages in phase 4 */
    ORDER_TAG = 7,          /* the one tag of phase 4 */
    LONG_LEN = 20000,       /* ints in a long message of phase 4 (80 kB), and
                               in every receive buffer */
    ANY_SOURCE_TAG = 10000, /* phase 3: rank r sends tag ANY_SOURCE_TAG + r */
    ANY_TAG_TAG = 20000,    /* ... and then tag ANY_TAG_TAG + r */
};

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "wildcards: rank %d of %d: ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_status(const char *what, const MPI_Status *st, int source, int tag,
                         int count)
{
    int got;

    MPI_Get_count(st, MPI_INT, &got);
    if (st->MPI_SOURCE != source || st->MPI_TAG != tag || got != count)
        die("%s: status source %d tag %d count %d, expected %d, %d, %d", what,
            st->MPI_SOURCE, st->MPI_TAG, got, source, tag, count);
}

/* The value of int i of message seq from rank src. */
static int value(int src, int seq, int i)
{
    return src * 1000003 + seq * 1009 + i;
}

static void fill(int *buf, int len, int src, int seq)
{
    for (int i = 0; i < len; i++)
        buf[i] = value(src, seq, i);
}

static void check_data(const char *what, const int *buf, int len, int src, int seq)
{
    for (int i = 0; i < len; i++)
        if (buf[i] != value(src, seq, i))
            die("%s: message %d from rank %d: int %d is %d, expected %d", what, seq, src,
                i, buf[i], value(src, seq, i));
}

static void proc_null(void)
{
    int buf[4] = {1, 2, 3, 4};
    MPI_Status st;

    MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD);
    MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st);
    check_status("receive from MPI_PROC_NULL", &st, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    if (buf[0] != 1 || buf[1] != 2 || buf[2] != 3 || buf[3] != 4)
        die("receive from MPI_PROC_NULL wrote into the buffer");
}

/* Message k of rank r in phase 2: its tag and length both say who and which. */
static int phase2_tag(int r, int k)
{
    return 100 * r + k;
}

static int phase2_len(int r, int k)
{
    return r + 3 * k;
}

static void any_source_any_tag(int *buf)
{
    int next[size]; /* the next message expected from each rank */
    MPI_Status st;

    if (rank != 0) {
        for (int k = 0; k < NMSG; k++) {
            fill(buf, phase2_len(rank, k), rank, k);
            MPI_Send(buf, phase2_len(rank, k), MPI_INT, 0, phase2_tag(rank, k),
                     MPI_COMM_WORLD);
        }
        return;
    }
    for (int r = 0; r < size; r++)
        next[r] = 0;
    for (int m = 0; m < (size - 1) * NMSG; m++) {
        int src, k;

        MPI_Recv(buf, LONG_LEN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                 &st);
        src = st.MPI_SOURCE;
        if (src < 1 || src >= size || next[src] >= NMSG)
            die("ANY_SOURCE/ANY_TAG: unexpected message from source %d tag %d", src,
                st.MPI_TAG);
        k = next[src]++;
        check_status("ANY_SOURCE/ANY_TAG", &st, src, phase2_tag(src, k),
                     phase2_len(src, k));
        check_data("ANY_SOURCE/ANY_TAG", buf, phase2_len(src, k), src, k);
    }
}

static void one_wildcard(void)
{
    int v;
    MPI_Status st;

    if (rank != 0) {
        v = value(rank, 0, 0);
        MPI_Send(&v, 1, MPI_INT, 0, ANY_SOURCE_TAG + rank, MPI_COMM_WORLD);
        v = value(rank, 1, 0);
        MPI_Send(&v, 1, MPI_INT, 0, ANY_TAG_TAG + rank, MPI_COMM_WORLD);
        return;
    }
    /* Reverse order: the tag, not arrival order, must pick the sender. */
    for (int r = size - 1; r > 0; r--) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, ANY_SOURCE_TAG + r, MPI_COMM_WORLD, &st);
        check_status("ANY_SOURCE with a tag", &st, r, ANY_SOURCE_TAG + r, 1);
        check_data("ANY_SOURCE with a tag", &v, 1, r, 0);
    }
    for (int r = 1; r < size; r++) {
        MPI_Recv(&v, 1, MPI_INT, r, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        check_status("ANY_TAG from a source", &st, r, ANY_TAG_TAG + r, 1);
        check_data("ANY_TAG from a source", &v, 1, r, 1);
    }
}

/* Every tenth message of phase 4 is long. */
static int order_len(int seq)
{
    return seq % 10 == 9 ? LONG_LEN : 1 + seq % 7;
}

static void non_overtaking(int *buf)
{
    MPI_Status st;

    if (rank == 1) {
        for (int seq = 0; seq < NORDER; seq++) {
            fill(buf, order_len(seq), 1, seq);
            MPI_Send(buf, order_len(seq), MPI_INT, 0, ORDER_TAG, MPI_COMM_WORLD);
        }
    } else if (rank == 0) {
        for (int seq = 0; seq < NORDER; seq++) {
            int wild = seq >= NORDER / 2;
            const char *what =
                wild ? "in order, ANY_SOURCE/ANY_TAG" : "in order, one tag";

            MPI_Recv(buf, LONG_LEN, MPI_INT, wild ? MPI_ANY_SOURCE : 1,
                     wild ? MPI_ANY_TAG : ORDER_TAG, MPI_COMM_WORLD, &st);
            check_status(what, &st, 1, ORDER_TAG, order_len(seq));
            check_data(what, buf, order_len(seq), 1, seq);
        }
    }
}

int main(int argc, char **argv)
{
    int *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    buf = malloc(LONG_LEN * sizeof *buf);
    if (!buf)
        die("out of memory");

    proc_null();
    if (size > 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        any_source_any_tag(buf);
        MPI_Barrier(MPI_COMM_WORLD);
        one_wildcard();
        MPI_Barrier(MPI_COMM_WORLD);
        non_overtaking(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("wildcards: %d ranks OK\n", size);
    free(buf);
    MPI_Finalize();
    return 0;
}
