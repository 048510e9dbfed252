/* p2p_bounce: non-contiguous messages on both sides of the size up to which
 * they are packed into a contiguous bounce buffer (ompi-lite's
 * BOUNCE_BYTES, given as the first argument; other MPIs simply run the same
 * checks).
 *
 * Round the ring, for messages of BOUNCE_BYTES / 8 - 1, that, and one more
 * doubles, and of 1 and 4 * BOUNCE_BYTES / 8 doubles, with a strided layout
 * (every other double) on both sides, only the sender's or only the
 * receiver's: blocking sends and receives, windows of Isend/Irecv posted
 * before and after the messages arrive, persistent requests, Ssend, Rsend,
 * Bsend, Sendrecv, Sendrecv_replace, Mprobe + Mrecv and Improbe + Imrecv.
 * Every byte of each receive buffer is checked: the data in its slots, the
 * fill pattern in the gaps and past the end. Then, at the sizes around
 * BOUNCE_BYTES: a message shorter than a strided receive, ending inside one
 * element of a vector type (the rest untouched, MPI_Get_elements); a
 * message longer than the receive (MPI_ERR_TRUNCATE, gaps and the space
 * past the buffer untouched, the status count that of a contiguous receive
 * of the same message); a cancelled strided receive (untouched). With the
 * argument "threads", NTHREADS threads per rank under MPI_THREAD_MULTIPLE
 * exchange strided windows of those sizes at once. */
#include "p2p_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 8, ROUNDS = 3, NTHREADS = 4, THREAD_ITERS = 50 };
#define FILL 0x5A       /* receive buffers: gaps and tails must keep it */
#define SEND_GAP 0xEE   /* send buffers' gaps: must never travel */
#define TAIL 64         /* bytes past each receive buffer that stay untouched */

typedef enum { CONTIG, STRIDED } layout_t;

static const char *layout_name[] = {"contiguous", "strided"};
static int left, right;
static MPI_Datatype strided_double; /* one double, extent two */

static size_t slot_bytes(layout_t l)
{
    return l == STRIDED ? 2 * sizeof(double) : sizeof(double);
}

static MPI_Datatype type_of(layout_t l)
{
    return l == STRIDED ? strided_double : MPI_DOUBLE;
}

/* Bytes a buffer of n doubles in layout l takes, with its checked tail. */
static size_t buffer_bytes(layout_t l, int n)
{
    return (size_t)n * slot_bytes(l) + TAIL;
}

static unsigned seed_of(int src, int tag, int round)
{
    return ((unsigned)src * 7919u + (unsigned)tag) * 31u + (unsigned)round;
}

/* n doubles of the message `seed` in their slots; the gaps as they were. */
static void place(unsigned char *buf, layout_t l, int n, unsigned seed)
{
    for (size_t i = 0; i < (size_t)n * sizeof(double); i++)
        buf[i / sizeof(double) * slot_bytes(l) + i % sizeof(double)] = p2p_byte(seed, i);
}

static void fill_send(unsigned char *buf, layout_t l, int n, unsigned seed)
{
    memset(buf, SEND_GAP, buffer_bytes(l, n));
    place(buf, l, n, seed);
}

/* The first `bytes` of the message `seed` in their slots of a buffer of
 * capacity doubles; every other byte still FILL. */
static void check_recv(const char *what, const unsigned char *buf, layout_t l, int capacity,
                       size_t bytes, unsigned seed)
{
    size_t slot = slot_bytes(l);
    for (size_t k = 0; k < buffer_bytes(l, capacity); k++) {
        size_t element = k / slot, within = k % slot;
        size_t packed = element * sizeof(double) + within;
        int is_data = element < (size_t)capacity && within < sizeof(double) && packed < bytes;
        unsigned char expect = is_data ? p2p_byte(seed, packed) : FILL;
        if (buf[k] != expect)
            p2p_die("%s (%s receive of %d doubles, %zu bytes arrived): byte %zu is 0x%02x, "
                    "expected 0x%02x%s",
                    what, layout_name[l], capacity, bytes, k, buf[k], expect,
                    is_data ? "" : " (untouched)");
    }
}

static unsigned char *alloc_recv(layout_t l, int n)
{
    unsigned char *buf = malloc(buffer_bytes(l, n));
    if (!buf)
        p2p_die("out of memory");
    memset(buf, FILL, buffer_bytes(l, n));
    return buf;
}

static unsigned char *alloc_send(layout_t l, int n, unsigned seed)
{
    unsigned char *buf = malloc(buffer_bytes(l, n));
    if (!buf)
        p2p_die("out of memory");
    fill_send(buf, l, n, seed);
    return buf;
}

/* One exchange round the ring: send n doubles of layout `from` to the
 * right, receive n of layout `to` from the left, by `how`. */
typedef enum {
    BLOCKING, SSEND, RSEND, BSEND, SENDRECV, REPLACE, MPROBE, IMPROBE, HOW_COUNT
} how_t;

static const char *how_name[] = {"Send/Recv", "Ssend/Recv", "Irecv/Rsend", "Bsend/Recv",
                                 "Sendrecv", "Sendrecv_replace", "Mprobe/Mrecv",
                                 "Improbe/Imrecv"};

/* Even ranks send first, odd ranks receive first: no cycle of blocking
 * sends round the ring, whatever the protocol. */
static void blocking_pair(how_t how, const void *out, layout_t from, void *in, layout_t to, int n,
                          int tag, MPI_Status *st)
{
    MPI_Message msg;
    int flag = 0;
    for (int step = 0; step < 2; step++) {
        if ((step == 0) == (p2p_rank % 2 == 0)) {
            if (how == SSEND)
                MPI_Ssend(out, n, type_of(from), right, tag, MPI_COMM_WORLD);
            else if (how == BSEND)
                MPI_Bsend(out, n, type_of(from), right, tag, MPI_COMM_WORLD);
            else
                MPI_Send(out, n, type_of(from), right, tag, MPI_COMM_WORLD);
        } else if (how == MPROBE) {
            MPI_Mprobe(left, tag, MPI_COMM_WORLD, &msg, st);
            MPI_Mrecv(in, n, type_of(to), &msg, st);
        } else if (how == IMPROBE) {
            MPI_Request req;
            while (!flag)
                MPI_Improbe(left, tag, MPI_COMM_WORLD, &flag, &msg, st);
            MPI_Imrecv(in, n, type_of(to), &msg, &req);
            MPI_Wait(&req, st);
        } else {
            MPI_Recv(in, n, type_of(to), left, tag, MPI_COMM_WORLD, st);
        }
    }
}

static void exchange(how_t how, layout_t from, layout_t to, int n, int tag)
{
    char what[160];
    unsigned seed = seed_of(p2p_rank, tag, 0), expect = seed_of(left, tag, 0);
    unsigned char *out = alloc_send(from, n, seed), *in = alloc_recv(to, n);
    MPI_Status st;
    MPI_Request req;

    snprintf(what, sizeof what, "%s of %d doubles, %s to %s", how_name[how], n,
             layout_name[from], layout_name[to]);
    switch (how) {
    case RSEND: /* the receive is posted before the barrier, the send after */
        MPI_Irecv(in, n, type_of(to), left, tag, MPI_COMM_WORLD, &req);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Rsend(out, n, type_of(from), right, tag, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        break;
    case SENDRECV:
        MPI_Sendrecv(out, n, type_of(from), right, tag, in, n, type_of(to), left, tag,
                     MPI_COMM_WORLD, &st);
        break;
    case REPLACE: /* one buffer in the receiver's layout, sent and replaced */
        place(in, to, n, seed);
        MPI_Sendrecv_replace(in, n, type_of(to), right, tag, left, tag, MPI_COMM_WORLD, &st);
        break;
    default:
        blocking_pair(how, out, from, in, to, n, tag, &st);
    }
    p2p_check_status(what, &st, left, tag, MPI_DOUBLE, n);
    check_recv(what, in, to, n, (size_t)n * sizeof(double), expect);
    free(out);
    free(in);
}

/* WINDOW messages each way in flight at once, each its own buffer and
 * tag; the receives are posted before the sends (expected messages) or
 * after a barrier that follows them (unexpected, for eager sizes). Then
 * ROUNDS persistent rounds of the same. */
static void window(layout_t from, layout_t to, int n, int tag, int receive_late)
{
    char what[160];
    unsigned char *out[WINDOW], *in[WINDOW];
    MPI_Request req[2 * WINDOW];
    MPI_Status st[2 * WINDOW];

    snprintf(what, sizeof what, "window of Isend/Irecv (%s) of %d doubles, %s to %s",
             receive_late ? "receives late" : "receives first", n, layout_name[from],
             layout_name[to]);
    for (int j = 0; j < WINDOW; j++) {
        out[j] = alloc_send(from, n, seed_of(p2p_rank, tag + j, 0));
        in[j] = alloc_recv(to, n);
    }
    for (int phase = 0; phase < 2; phase++) {
        if (phase == receive_late)
            for (int j = 0; j < WINDOW; j++)
                MPI_Irecv(in[j], n, type_of(to), left, tag + j, MPI_COMM_WORLD, &req[j]);
        else
            for (int j = 0; j < WINDOW; j++)
                MPI_Isend(out[j], n, type_of(from), right, tag + j, MPI_COMM_WORLD,
                          &req[WINDOW + j]);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    p2p_check_ok(what, MPI_Waitall(2 * WINDOW, req, st));
    for (int j = 0; j < WINDOW; j++) {
        p2p_check_status(what, &st[j], left, tag + j, MPI_DOUBLE, n);
        check_recv(what, in[j], to, n, (size_t)n * sizeof(double), seed_of(left, tag + j, 0));
    }

    snprintf(what, sizeof what, "persistent Send_init/Recv_init of %d doubles, %s to %s", n,
             layout_name[from], layout_name[to]);
    for (int j = 0; j < WINDOW; j++) {
        MPI_Recv_init(in[j], n, type_of(to), left, tag + j, MPI_COMM_WORLD, &req[j]);
        MPI_Send_init(out[j], n, type_of(from), right, tag + j, MPI_COMM_WORLD, &req[WINDOW + j]);
    }
    for (int round = 1; round <= ROUNDS; round++) {
        for (int j = 0; j < WINDOW; j++) {
            fill_send(out[j], from, n, seed_of(p2p_rank, tag + j, round));
            memset(in[j], FILL, buffer_bytes(to, n));
        }
        MPI_Startall(2 * WINDOW, req);
        p2p_check_ok(what, MPI_Waitall(2 * WINDOW, req, st));
        for (int j = 0; j < WINDOW; j++)
            check_recv(what, in[j], to, n, (size_t)n * sizeof(double),
                       seed_of(left, tag + j, round));
    }
    for (int j = 0; j < 2 * WINDOW; j++)
        MPI_Request_free(&req[j]);
    for (int j = 0; j < WINDOW; j++) {
        free(out[j]);
        free(in[j]);
    }
}

/* A message of n doubles sent contiguously into a vector type of n + 1
 * doubles, and of n + 1/2 (as bytes) into a strided receive of n + 1: the
 * message ends inside the receive's element, the rest stays untouched. */
static void shorter(int n, int tag)
{
    char what[160];
    MPI_Datatype vec;
    MPI_Status st;
    MPI_Count elements;
    size_t bytes[2] = {(size_t)n * sizeof(double), (size_t)n * sizeof(double) + 4};

    MPI_Type_vector(n + 1, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (int k = 0; k < 2; k++) {
        unsigned char *out = alloc_send(CONTIG, n + 1, seed_of(p2p_rank, tag + k, 0));
        unsigned char *in = alloc_recv(STRIDED, n + 1);
        snprintf(what, sizeof what, "%zu bytes into a receive of %d strided doubles (%s)",
                 bytes[k], n + 1, k ? "MPI_BYTE into strided" : "into a vector type");
        MPI_Sendrecv(out, (int)bytes[k], MPI_BYTE, right, tag + k, in, k ? n + 1 : 1,
                     k ? strided_double : vec, left, tag + k, MPI_COMM_WORLD, &st);
        p2p_check_status(what, &st, left, tag + k, MPI_BYTE, (MPI_Count)bytes[k]);
        MPI_Get_elements_c(&st, k ? strided_double : vec, &elements);
        if (elements != (k ? MPI_UNDEFINED : n))
            p2p_die("%s: MPI_Get_elements says %lld", what, (long long)elements);
        check_recv(what, in, STRIDED, n + 1, bytes[k], seed_of(left, tag + k, 0));
        free(out);
        free(in);
    }
    MPI_Type_free(&vec);
}

/* n + 1 doubles into a receive of n, contiguous and then strided: both
 * MPI_ERR_TRUNCATE, with the same count in the status; the strided
 * buffer's gaps and tail are untouched, its slots hold the message's first
 * bytes or are untouched. */
static void truncated(int n, int tag)
{
    char what[160];
    MPI_Count counts[2];
    MPI_Status st;

    for (int l = CONTIG; l <= STRIDED; l++) {
        unsigned char *out = alloc_send(STRIDED, n + 1, seed_of(p2p_rank, tag, l));
        unsigned char *in = alloc_recv((layout_t)l, n);
        snprintf(what, sizeof what, "%d doubles into a %s receive of %d", n + 1, layout_name[l],
                 n);
        MPI_Request send;
        MPI_Isend(out, n + 1, strided_double, right, tag, MPI_COMM_WORLD, &send);
        P2P_CHECK_CLASS(what, MPI_Recv(in, n, type_of((layout_t)l), left, tag, MPI_COMM_WORLD,
                                       &st),
                        MPI_ERR_TRUNCATE);
        p2p_check_ok("the send of a truncated message", MPI_Wait(&send, MPI_STATUS_IGNORE));
        if (st.MPI_SOURCE != left || st.MPI_TAG != tag)
            p2p_die("%s: status source %d tag %d", what, st.MPI_SOURCE, st.MPI_TAG);
        MPI_Get_count_c(&st, MPI_BYTE, &counts[l]);
        /* Each slot holds the message's byte or FILL, never anything else. */
        unsigned seed = seed_of(left, tag, l);
        for (size_t k = 0; k < buffer_bytes((layout_t)l, n); k++) {
            size_t element = k / slot_bytes((layout_t)l), within = k % slot_bytes((layout_t)l);
            int slot = element < (size_t)n && within < sizeof(double);
            unsigned char data = p2p_byte(seed, element * sizeof(double) + within);
            if (in[k] != FILL && !(slot && in[k] == data))
                p2p_die("%s: byte %zu is 0x%02x, expected 0x%02x or 0x%02x (untouched)", what, k,
                        in[k], data, FILL);
        }
        free(out);
        free(in);
    }
    if (counts[0] != counts[1])
        p2p_die("truncated %d doubles: status count %lld bytes for a strided receive, %lld for a "
                "contiguous one", n + 1, (long long)counts[1], (long long)counts[0]);
}

/* A strided receive that nothing matches, cancelled: untouched. */
static void cancelled(int n, int tag)
{
    unsigned char *in = alloc_recv(STRIDED, n);
    MPI_Request req;
    MPI_Status st;
    int flag = 0;

    MPI_Irecv(in, n, strided_double, left, tag, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &flag);
    if (!flag)
        p2p_die("a strided receive of %d doubles that nothing matches: not cancelled", n);
    check_recv("a cancelled strided receive", in, STRIDED, n, 0, 0);
    free(in);
}

static int sizes[5];

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < THREAD_ITERS; i++) {
        int n = sizes[i % 3];
        int tag = 30000 + t * 100;
        unsigned char *out = alloc_send(STRIDED, n, seed_of(p2p_rank, tag, i));
        unsigned char *in = alloc_recv(STRIDED, n);
        MPI_Request req[2];
        MPI_Status st[2];
        MPI_Irecv(in, n, strided_double, left, tag, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, n, strided_double, right, tag, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, st);
        p2p_check_status("a thread's strided exchange", &st[0], left, tag, MPI_DOUBLE, n);
        check_recv("a thread's strided exchange", in, STRIDED, n, (size_t)n * sizeof(double),
                   seed_of(left, tag, i));
        free(out);
        free(in);
    }
    return NULL;
}

static void threads(void)
{
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        if (pthread_create(&th[t], NULL, thread_main, (void *)t) != 0)
            p2p_die("pthread_create failed");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    int threaded = argc > 2 && strcmp(argv[2], "threads") == 0;
    int provided = p2p_init("p2p_bounce", &argc, &argv,
                            threaded ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE);
    int bounce = argc > 1 ? atoi(argv[1]) : 2048;
    int at = bounce / (int)sizeof(double);
    if (threaded && provided != MPI_THREAD_MULTIPLE)
        p2p_die("MPI_THREAD_MULTIPLE not provided (%d)", provided);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    sizes[0] = at > 1 ? at - 1 : 1;
    sizes[1] = at > 0 ? at : 1;
    sizes[2] = at + 1;
    sizes[3] = 1;
    sizes[4] = 4 * at + 4;
    MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &strided_double);
    MPI_Type_commit(&strided_double);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    size_t bsend_bytes = 2 * ((size_t)sizes[4] * sizeof(double) + MPI_BSEND_OVERHEAD);
    void *bsend_buffer = malloc(bsend_bytes);
    MPI_Buffer_attach(bsend_buffer, (int)bsend_bytes);

    if (threaded) {
        threads();
    } else {
        static const layout_t pairs[3][2] = {{STRIDED, STRIDED}, {STRIDED, CONTIG},
                                             {CONTIG, STRIDED}};
        int tag = 0;
        for (int s = 0; s < 5; s++)
            for (int p = 0; p < 3; p++) {
                for (how_t how = 0; how < HOW_COUNT; how++)
                    exchange(how, pairs[p][0], pairs[p][1], sizes[s], tag++);
                window(pairs[p][0], pairs[p][1], sizes[s], tag, 0);
                window(pairs[p][0], pairs[p][1], sizes[s], tag + WINDOW, 1);
                tag += 2 * WINDOW;
            }
        for (int s = 0; s < 3; s++) {
            shorter(sizes[s], tag);
            truncated(sizes[s], tag + 2);
            cancelled(sizes[s], tag + 3);
            tag += 4;
        }
    }
    MPI_Buffer_detach(&bsend_buffer, &(int){0});
    free(bsend_buffer);
    MPI_Type_free(&strided_double);
    p2p_finish();
    return 0;
}
