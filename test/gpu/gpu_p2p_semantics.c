/* gpu_p2p_semantics: what MPI promises about point-to-point, with device
 * buffers. In a ring (rank r sends to r+1 and receives from r-1, each case
 * in its own communicator):
 *   vector    a vector of doubles on the device on both sides, and into
 *             contiguous doubles on the device; gaps stay untouched
 *   probe     Probe, Iprobe, Mprobe+Mrecv and Improbe+Imrecv of messages
 *             sent from device memory: the status has the real size
 *   order     one sender's messages from host and device buffers, of mixed
 *             sizes, received with MPI_ANY_SOURCE/MPI_ANY_TAG into host and
 *             device buffers, arrive in the order sent (non-overtaking)
 *   reuse     the sender overwrites its device buffer as soon as its send
 *             completed, before the receiver even posted its receive: the
 *             receiver gets the old data
 *   realloc   a device buffer freed and a new one allocated (often at the
 *             same address) with new data: the receiver gets the new data
 *   offset    buffers that start inside a device allocation (odd offsets)
 *   self      a rank sends to itself, device and host on either side
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_test.h"

static int next_rank, prev_rank;

static MPI_Comm fresh_comm(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    return c;
}

static void check_status(const char *what, const MPI_Status *st, int source, int tag,
                         MPI_Datatype type, int count)
{
    int got = -1;
    MPI_Get_count(st, type, &got);
    if (st->MPI_SOURCE != source || st->MPI_TAG != tag || got != count)
        gt_fail("%s: status says source %d, tag %d, count %d; expected %d, %d, %d", what,
                st->MPI_SOURCE, st->MPI_TAG, got, source, tag, count);
}

/* ---- vector: MPI_Type_vector of doubles on the device, both sides ------- */

#define VEC_BLOCK 3
#define VEC_STRIDE 5

static double vec_value(int rank, size_t i)
{
    return rank * 1e6 + (double)i + 0.25;
}

/* Element i of the strided layout is in the vector when i % STRIDE < BLOCK. */
static void vector_case(MPI_Comm comm, int blocks)
{
    size_t span = (size_t)(blocks - 1) * VEC_STRIDE + VEC_BLOCK, n = (size_t)blocks * VEC_BLOCK;
    double *host = malloc(span * sizeof *host), *want = malloc(span * sizeof *want);
    double *dsend = gt_alloc(GT_DEVICE, span * sizeof(double));
    double *dstrided = gt_alloc(GT_DEVICE, span * sizeof(double));
    double *dpacked = gt_alloc(GT_DEVICE, n * sizeof(double));
    MPI_Datatype vec;
    MPI_Request req[3];
    MPI_Status st[3];
    char what[160];

    MPI_Type_vector(blocks, VEC_BLOCK, VEC_STRIDE, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    for (size_t i = 0; i < span; i++)
        host[i] = vec_value(gt_rank, i);
    gt_put(GT_DEVICE, dsend, host, span * sizeof(double));
    gt_set(GT_DEVICE, dstrided, 0xee, span * sizeof(double));
    gt_set(GT_DEVICE, dpacked, 0xee, n * sizeof(double));

    MPI_Irecv(dstrided, 1, vec, prev_rank, 1, comm, &req[0]);
    MPI_Irecv(dpacked, (int)n, MPI_DOUBLE, prev_rank, 2, comm, &req[1]);
    MPI_Isend(dsend, 1, vec, next_rank, 1, comm, &req[2]);
    MPI_Send(dsend, 1, vec, next_rank, 2, comm);
    MPI_Waitall(3, req, st);

    snprintf(what, sizeof what, "vector of %d x %d doubles (stride %d), device to device", blocks,
             VEC_BLOCK, VEC_STRIDE);
    check_status(what, &st[0], prev_rank, 1, vec, 1);
    memset(want, 0xee, span * sizeof *want);
    for (size_t i = 0; i < span; i++)
        if (i % VEC_STRIDE < VEC_BLOCK)
            want[i] = vec_value(prev_rank, i);
    gt_get(GT_DEVICE, host, dstrided, span * sizeof(double));
    gt_check_bytes(what, host, want, span * sizeof(double));

    snprintf(what, sizeof what, "vector of %d x %d doubles into %zu contiguous doubles on the device",
             blocks, VEC_BLOCK, n);
    check_status(what, &st[1], prev_rank, 2, MPI_DOUBLE, (int)n);
    for (size_t i = 0, k = 0; i < span; i++)
        if (i % VEC_STRIDE < VEC_BLOCK)
            want[k++] = vec_value(prev_rank, i);
    gt_get(GT_DEVICE, host, dpacked, n * sizeof(double));
    gt_check_bytes(what, host, want, n * sizeof(double));

    MPI_Type_free(&vec);
    gt_free(GT_DEVICE, dsend);
    gt_free(GT_DEVICE, dstrided);
    gt_free(GT_DEVICE, dpacked);
    free(host);
    free(want);
}

static void test_vector(void)
{
    MPI_Comm comm = fresh_comm();
    vector_case(comm, 1);
    vector_case(comm, 1000);
    vector_case(comm, 300000); /* 7 MiB of doubles in the span */
    MPI_Comm_free(&comm);
}

/* ---- probe --------------------------------------------------------------- */

enum probe_kind { PROBE, IPROBE, MPROBE, IMPROBE, PROBE_KINDS };
static const char *const probe_names[] = { "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe+MPI_Mrecv",
                                           "MPI_Improbe+MPI_Imrecv" };

static unsigned probe_seed(int sender, int kind, size_t size)
{
    return (unsigned)(sender * 100 + kind * 10) + (unsigned)size;
}

/* Receives the next message from prev_rank as `kind` says, into dev. */
static void probe_and_receive(MPI_Comm comm, enum probe_kind kind, void *dev, size_t size, int tag)
{
    MPI_Status st, rst;
    MPI_Message msg = MPI_MESSAGE_NULL;
    int flag = 0, count = -1;
    char what[160];

    snprintf(what, sizeof what, "%s of %zu bytes sent from device memory", probe_names[kind], size);
    switch (kind) {
    case PROBE: MPI_Probe(prev_rank, tag, comm, &st); break;
    case IPROBE:
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
        break;
    case MPROBE: MPI_Mprobe(prev_rank, MPI_ANY_TAG, comm, &msg, &st); break;
    default:
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, tag, comm, &flag, &msg, &st);
        break;
    }
    check_status(what, &st, prev_rank, tag, MPI_BYTE, (int)size);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (count < 0)
        count = 0;
    gt_set(GT_DEVICE, dev, 0xee, size + 16);
    if (kind == PROBE || kind == IPROBE) {
        MPI_Recv(dev, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, comm, &rst);
    } else if (kind == MPROBE) {
        MPI_Mrecv(dev, count, MPI_BYTE, &msg, &rst);
    } else {
        MPI_Request req;
        MPI_Imrecv(dev, count, MPI_BYTE, &msg, &req);
        MPI_Wait(&req, &rst);
    }
    check_status(what, &rst, prev_rank, tag, MPI_BYTE, (int)size);
    gt_check_buffer(what, GT_DEVICE, dev, size, probe_seed(prev_rank, kind, size));
    gt_check_value(what, GT_DEVICE, (char *)dev + size, 16, 0xee);
}

static void test_probe(void)
{
    static const size_t sizes[] = { 0, 100, (1 << 20) + 3 };
    MPI_Comm comm = fresh_comm();
    size_t max = (1 << 20) + 3;
    void *dsend = gt_alloc(GT_DEVICE, max), *drecv = gt_alloc(GT_DEVICE, max + 16);

    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < PROBE_KINDS; kind++) {
            MPI_Request req;
            int tag = 10 + kind;
            gt_put_pattern(GT_DEVICE, dsend, sizes[s], probe_seed(gt_rank, kind, sizes[s]));
            MPI_Isend(dsend, (int)sizes[s], MPI_BYTE, next_rank, tag, comm, &req);
            probe_and_receive(comm, (enum probe_kind)kind, drecv, sizes[s], tag);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    gt_free(GT_DEVICE, dsend);
    gt_free(GT_DEVICE, drecv);
    MPI_Comm_free(&comm);
}

/* ---- order: non-overtaking with host and device senders ----------------- */

#define ORDER_MSGS 12
#define ORDER_MAX ((size_t)(1 << 20) + 3)

static size_t order_size(int i)
{
    static const size_t sizes[] = { 16, ORDER_MAX, 65536, 0, 1, 300000 };
    return sizes[i % 6];
}

static enum gt_mem order_send_mem(int i)
{
    return i % 2 ? GT_DEVICE : GT_HOST;
}

static enum gt_mem order_recv_mem(int i)
{
    return i % 3 ? GT_DEVICE : GT_HOST;
}

static void test_order(void)
{
    MPI_Comm comm = fresh_comm();
    void *sbuf[ORDER_MSGS], *rbuf[ORDER_MSGS];
    MPI_Request req[ORDER_MSGS];

    for (int i = 0; i < ORDER_MSGS; i++) {
        sbuf[i] = gt_alloc(order_send_mem(i), order_size(i));
        rbuf[i] = gt_alloc(order_recv_mem(i), ORDER_MAX);
        gt_put_pattern(order_send_mem(i), sbuf[i], order_size(i), (unsigned)(gt_rank * 50 + i));
    }
    MPI_Barrier(comm);
    /* All in flight at once; tags differ, but the receives use MPI_ANY_TAG. */
    for (int i = 0; i < ORDER_MSGS; i++)
        MPI_Isend(sbuf[i], (int)order_size(i), MPI_BYTE, next_rank, 100 + i, comm, &req[i]);
    for (int i = 0; i < ORDER_MSGS; i++) {
        MPI_Status st;
        char what[200];
        MPI_Recv(rbuf[i], (int)ORDER_MAX, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        snprintf(what, sizeof what,
                 "wildcard receive %d into %s memory (message %d was %zu bytes from %s memory)", i,
                 gt_mem_name(order_recv_mem(i)), i, order_size(i), gt_mem_name(order_send_mem(i)));
        check_status(what, &st, prev_rank, 100 + i, MPI_BYTE, (int)order_size(i));
        gt_check_buffer(what, order_recv_mem(i), rbuf[i], order_size(i),
                        (unsigned)(prev_rank * 50 + i));
    }
    MPI_Waitall(ORDER_MSGS, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < ORDER_MSGS; i++) {
        gt_free(order_send_mem(i), sbuf[i]);
        gt_free(order_recv_mem(i), rbuf[i]);
    }
    MPI_Comm_free(&comm);
}

/* ---- reuse: the send buffer is the user's again once the send completed - */

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

enum reuse_call { REUSE_SEND, REUSE_ISEND_WAIT, REUSE_CALLS };
static const char *const reuse_names[] = { "MPI_Send", "MPI_Isend+MPI_Wait" };

/* Pairs (0-1, 2-3), each rank sending in turn: the sender overwrites its
 * buffer as soon as the send completed; the receiver posts its receive
 * 100 ms late, so that a send that completes too early is caught. */
static void reuse_case(MPI_Comm comm, size_t size, enum reuse_call call, int sender, void *dsend,
                       void *drecv)
{
    unsigned seed = (unsigned)(sender * 7 + call) * 1000u + (unsigned)size;
    char what[200];
    int me;

    MPI_Comm_rank(comm, &me);
    if (me == sender) {
        MPI_Request req;
        gt_put_pattern(GT_DEVICE, dsend, size, seed);
        MPI_Barrier(comm);
        if (call == REUSE_SEND) {
            MPI_Send(dsend, (int)size, MPI_BYTE, sender ^ 1, 1, comm);
        } else {
            MPI_Isend(dsend, (int)size, MPI_BYTE, sender ^ 1, 1, comm, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        gt_set(GT_DEVICE, dsend, 0x5a, size);
    } else {
        gt_set(GT_DEVICE, drecv, 0, size);
        MPI_Barrier(comm);
        sleep_ms(100);
        MPI_Recv(drecv, (int)size, MPI_BYTE, sender, 1, comm, MPI_STATUS_IGNORE);
        snprintf(what, sizeof what,
                 "%s of %zu bytes from device memory, overwritten once the send completed",
                 reuse_names[call], size);
        gt_check_buffer(what, GT_DEVICE, drecv, size, seed);
    }
}

static void test_reuse(void)
{
    static const size_t sizes[] = { 64, 100000, (size_t)8 << 20 };
    void *dsend = gt_alloc(GT_DEVICE, (size_t)8 << 20), *drecv = gt_alloc(GT_DEVICE, (size_t)8 << 20);
    MPI_Comm pair;

    /* An odd last rank has no partner and only frees its communicator. */
    MPI_Comm_split(MPI_COMM_WORLD, (gt_rank ^ 1) < gt_size ? gt_rank / 2 : MPI_UNDEFINED, gt_rank,
                   &pair);
    if (pair != MPI_COMM_NULL) {
        for (size_t s = 0; s < 3; s++)
            for (int call = 0; call < REUSE_CALLS; call++)
                for (int first = 0; first < 2; first++)
                    reuse_case(pair, sizes[s], (enum reuse_call)call, first, dsend, drecv);
        MPI_Comm_free(&pair);
    }
    gt_free(GT_DEVICE, dsend);
    gt_free(GT_DEVICE, drecv);
}

/* ---- realloc: freed and reallocated device memory ----------------------- */

/* One ring exchange from a fresh device buffer into a fresh device buffer;
 * both are freed afterwards, so the next call's buffers are often at the
 * same addresses, holding different data. */
static void realloc_round(MPI_Comm comm, size_t size, int round, void **last_send)
{
    void *dsend = gt_alloc(GT_DEVICE, size), *drecv = gt_alloc(GT_DEVICE, size);
    MPI_Request req[2];
    char what[200];

    gt_put_pattern(GT_DEVICE, dsend, size, (unsigned)(gt_rank * 100 + round));
    MPI_Irecv(drecv, (int)size, MPI_BYTE, prev_rank, round, comm, &req[0]);
    MPI_Isend(dsend, (int)size, MPI_BYTE, next_rank, round, comm, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    snprintf(what, sizeof what,
             "round %d: %zu bytes from a newly allocated device buffer (%s address as the freed one)",
             round, size, dsend == *last_send ? "same" : "another");
    gt_check_buffer(what, GT_DEVICE, drecv, size, (unsigned)(prev_rank * 100 + round));
    *last_send = dsend;
    gt_free(GT_DEVICE, dsend);
    gt_free(GT_DEVICE, drecv);
}

static void test_realloc(void)
{
    MPI_Comm comm = fresh_comm();
    void *last = NULL;
    for (int round = 0; round < 4; round++)
        realloc_round(comm, round % 2 ? 4000 : (size_t)4 << 20, round, &last);
    for (int round = 4; round < 8; round++)
        realloc_round(comm, (size_t)4 << 20, round, &last);
    MPI_Comm_free(&comm);
}

/* ---- offset: buffers that start inside an allocation -------------------- */

#define SEND_OFFSET 4099
#define RECV_OFFSET 77

static void offset_case(MPI_Comm comm, enum gt_mem send_mem, size_t size)
{
    size_t total = size + 8192;
    char *sbase = gt_alloc(send_mem, total), *rbase = gt_alloc(GT_DEVICE, total);
    MPI_Request req[2];
    MPI_Status st;
    char what[200];

    gt_put_pattern(send_mem, sbase + SEND_OFFSET, size, (unsigned)(gt_rank + 3000) + (unsigned)size);
    gt_set(GT_DEVICE, rbase, 0xee, total);
    MPI_Irecv(rbase + RECV_OFFSET, (int)size, MPI_BYTE, prev_rank, 5, comm, &req[0]);
    MPI_Isend(sbase + SEND_OFFSET, (int)size, MPI_BYTE, next_rank, 5, comm, &req[1]);
    MPI_Wait(&req[0], &st);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    snprintf(what, sizeof what, "%zu bytes from %s memory at offset %d into device memory at offset %d",
             size, gt_mem_name(send_mem), SEND_OFFSET, RECV_OFFSET);
    check_status(what, &st, prev_rank, 5, MPI_BYTE, (int)size);
    gt_check_buffer(what, GT_DEVICE, rbase + RECV_OFFSET, size,
                    (unsigned)(prev_rank + 3000) + (unsigned)size);
    snprintf(what, sizeof what, "%zu bytes into device memory at offset %d: the bytes before it",
             size, RECV_OFFSET);
    gt_check_value(what, GT_DEVICE, rbase, RECV_OFFSET, 0xee);
    snprintf(what, sizeof what, "%zu bytes into device memory at offset %d: the bytes after it",
             size, RECV_OFFSET);
    gt_check_value(what, GT_DEVICE, rbase + RECV_OFFSET + size, total - RECV_OFFSET - size, 0xee);
    gt_free(send_mem, sbase);
    gt_free(GT_DEVICE, rbase);
}

static void test_offset(void)
{
    MPI_Comm comm = fresh_comm();
    offset_case(comm, GT_DEVICE, 1000);
    offset_case(comm, GT_DEVICE, (1 << 20) + 3);
    offset_case(comm, GT_HOST, (1 << 20) + 3);
    MPI_Comm_free(&comm);
}

/* ---- self: a rank sends to itself ---------------------------------------- */

static void self_case(enum gt_mem send_mem, enum gt_mem recv_mem, size_t size, int use_sendrecv)
{
    void *sbuf = gt_alloc(send_mem, size), *rbuf = gt_alloc(recv_mem, size + 16);
    unsigned seed = (unsigned)(gt_rank * 10 + use_sendrecv) + (unsigned)size;
    MPI_Request req;
    MPI_Status st;
    char what[200];

    gt_put_pattern(send_mem, sbuf, size, seed);
    gt_set(recv_mem, rbuf, 0xee, size + 16);
    if (use_sendrecv) {
        MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, gt_rank, 3, rbuf, (int)size + 16, MPI_BYTE, gt_rank,
                     3, MPI_COMM_WORLD, &st);
    } else {
        MPI_Isend(sbuf, (int)size, MPI_BYTE, gt_rank, 3, MPI_COMM_WORLD, &req);
        MPI_Recv(rbuf, (int)size + 16, MPI_BYTE, gt_rank, 3, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    snprintf(what, sizeof what, "%s to self of %zu bytes, %s to %s memory",
             use_sendrecv ? "MPI_Sendrecv" : "MPI_Isend+MPI_Recv", size, gt_mem_name(send_mem),
             gt_mem_name(recv_mem));
    check_status(what, &st, gt_rank, 3, MPI_BYTE, (int)size);
    gt_check_buffer(what, recv_mem, rbuf, size, seed);
    gt_check_value(what, recv_mem, (char *)rbuf + size, 16, 0xee);
    gt_free(send_mem, sbuf);
    gt_free(recv_mem, rbuf);
}

static void test_self(void)
{
    static const size_t sizes[] = { 1, 8 * 1024 - 1, (1 << 20) + 3 };
    static const enum gt_mem pairs[][2] = {
        { GT_DEVICE, GT_DEVICE }, { GT_HOST, GT_DEVICE }, { GT_DEVICE, GT_HOST },
    };
    for (size_t s = 0; s < 3; s++)
        for (int p = 0; p < 3; p++)
            for (int sr = 0; sr < 2; sr++)
                self_case(pairs[p][0], pairs[p][1], sizes[s], sr);
}

/* ---- main ---------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    { "vector", test_vector }, { "probe", test_probe },   { "order", test_order },
    { "reuse", test_reuse },   { "realloc", test_realloc }, { "offset", test_offset },
    { "self", test_self },
};

/* Without arguments every case; otherwise the cases named. */
int main(int argc, char **argv)
{
    gt_init("gpu_p2p_semantics", &argc, &argv);
    next_rank = (gt_rank + 1) % gt_size;
    prev_rank = (gt_rank + gt_size - 1) % gt_size;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strcmp(argv[a], cases[c].name) == 0;
        if (!wanted)
            continue;
        int before = gt_failures();
        cases[c].run();
        if (gt_rank == 0)
            printf("gpu_p2p_semantics: %s: %s on rank 0\n", cases[c].name,
                   gt_failures() == before ? "passed" : "FAILED");
    }
    return gt_finish();
}
