/* gpu_coll: every collective on device buffers, checked on the host against
 * what the MPI standard says the result is: bcast, reduce, allreduce
 * (blocking, nonblocking, persistent), gather(v), scatter(v), allgather(v),
 * alltoall(v/w), reduce_scatter(_block), scan, exscan and barrier; each in
 * place where MPI allows it, and not; blocks of 1, 5 and 65539 ints; v
 * variants with uneven counts and gaps that must stay untouched. Also
 * allreduce and bcast with device buffers on some ranks and host buffers on
 * the others. Data: MPI_INT, reductions MPI_SUM (every op and type: see
 * gpu_reduce). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test.h"

#define SENTINEL (-7)
#define MAX_RANKS 64

static int n, me;     /* ranks, this rank */
static int block;     /* elements per block of the current round */
static char label[64]; /* the round, for messages */

/* Element i of what rank r contributes. */
static int val(int r, size_t i)
{
    return (r + 1) * 1000000 + (int)i;
}

static int *ints(size_t count)
{
    int *p = malloc((count ? count : 1) * sizeof *p);
    if (!p)
        gt_die("out of host memory");
    return p;
}

/* A device buffer holding count copies of SENTINEL. */
static int *dev_sentinel(size_t count)
{
    int *host = ints(count), *dev = gt_alloc(GT_DEVICE, count * sizeof(int));
    for (size_t i = 0; i < count; i++)
        host[i] = SENTINEL;
    gt_put(GT_DEVICE, dev, host, count * sizeof(int));
    free(host);
    return dev;
}

/* A buffer (host or device) holding host[0..count-1]. */
static int *buf_from(enum gt_mem mem, const int *host, size_t count)
{
    int *buf = gt_alloc(mem, count * sizeof(int));
    gt_put(mem, buf, host, count * sizeof(int));
    return buf;
}

/* The buffer holds want[0..count-1]; a failure names the collective. */
static void expect(const char *coll, enum gt_mem mem, const int *buf, const int *want,
                   size_t count)
{
    int *got = ints(count);
    char what[200];
    gt_get(mem, got, buf, count * sizeof(int));
    snprintf(what, sizeof what, "%s (%s) on rank %d", coll, label, me);
    gt_check_bytes(what, got, want, count * sizeof(int));
    free(got);
}

/* want[i] = val(r, first + i) for `count` elements. */
static int *values(int r, size_t first, size_t count)
{
    int *p = ints(count);
    for (size_t i = 0; i < count; i++)
        p[i] = val(r, first + i);
    return p;
}

static int *sentinels(size_t count)
{
    int *p = ints(count);
    for (size_t i = 0; i < count; i++)
        p[i] = SENTINEL;
    return p;
}

/* Sum over ranks lo..hi-1 of val(r, first + i). */
static int *sums(int lo, int hi, size_t first, size_t count)
{
    int *p = ints(count);
    for (size_t i = 0; i < count; i++) {
        p[i] = 0;
        for (int r = lo; r < hi; r++)
            p[i] += val(r, first + i);
    }
    return p;
}

/* Uneven counts with gaps of 2 between blocks: count(r) and displ(r). */
static int vcount(int r)
{
    return block + r % 3;
}

static int vdispl(int r)
{
    int d = 0;
    for (int q = 0; q < r; q++)
        d += vcount(q) + 2;
    return d;
}

static size_t vspan(void)
{
    return (size_t)vdispl(n);
}

/* ---- rooted ---------------------------------------------------------- */

static void test_bcast(int root)
{
    size_t c = (size_t)block;
    int *want = values(root, 0, c), *buf = me == root ? buf_from(GT_DEVICE, want, c) : dev_sentinel(c);
    MPI_Bcast(buf, block, MPI_INT, root, MPI_COMM_WORLD);
    expect("MPI_Bcast", GT_DEVICE, buf, want, c);
    gt_free(GT_DEVICE, buf);
    free(want);
}

static void test_reduce(int root, int in_place)
{
    size_t c = (size_t)block;
    int *mine = values(me, 0, c), *want = sums(0, n, 0, c);
    int *send = buf_from(GT_DEVICE, mine, c);
    int *recv = me == root && in_place ? buf_from(GT_DEVICE, mine, c) : dev_sentinel(c);
    const void *sendbuf = me == root && in_place ? MPI_IN_PLACE : send;
    MPI_Reduce(sendbuf, recv, block, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (me == root)
        expect(in_place ? "MPI_Reduce in place" : "MPI_Reduce", GT_DEVICE, recv, want, c);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(want);
}

/* Root's buffer for gather: every block SENTINEL, its own block filled when
 * in place. */
static int *gathered_start(int in_place, size_t total, size_t my_first, size_t my_count)
{
    int *host = sentinels(total);
    if (in_place)
        for (size_t i = 0; i < my_count; i++)
            host[my_first + i] = val(me, i);
    return host;
}

static void test_gather(int root, int in_place)
{
    size_t c = (size_t)block, total = c * (size_t)n;
    int *mine = values(me, 0, c), *send = buf_from(GT_DEVICE, mine, c);
    int *start = gathered_start(in_place && me == root, total, (size_t)me * c, c);
    int *recv = buf_from(GT_DEVICE, start, total), *want = ints(total);
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < c; i++)
            want[(size_t)r * c + i] = val(r, i);
    MPI_Gather(me == root && in_place ? MPI_IN_PLACE : send, block, MPI_INT, recv, block, MPI_INT,
               root, MPI_COMM_WORLD);
    if (me == root)
        expect(in_place ? "MPI_Gather in place" : "MPI_Gather", GT_DEVICE, recv, want, total);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(start);
    free(want);
}

static void vlayout(int *counts, int *displs)
{
    for (int r = 0; r < n; r++) {
        counts[r] = vcount(r);
        displs[r] = vdispl(r);
    }
}

static void test_gatherv(int root, int in_place)
{
    size_t total = vspan(), mc = (size_t)vcount(me);
    int counts[MAX_RANKS], displs[MAX_RANKS];
    int *mine = values(me, 0, mc), *send = buf_from(GT_DEVICE, mine, mc);
    int *start = gathered_start(in_place && me == root, total, (size_t)vdispl(me), mc);
    int *recv = buf_from(GT_DEVICE, start, total), *want = sentinels(total);
    vlayout(counts, displs);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < counts[r]; i++)
            want[displs[r] + i] = val(r, (size_t)i);
    MPI_Gatherv(me == root && in_place ? MPI_IN_PLACE : send, (int)mc, MPI_INT, recv, counts, displs,
                MPI_INT, root, MPI_COMM_WORLD);
    if (me == root)
        expect(in_place ? "MPI_Gatherv in place" : "MPI_Gatherv", GT_DEVICE, recv, want, total);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(start);
    free(want);
}

/* Root's send buffer for scatter: block r holds val(r, i) + 1 at displ(r). */
static int *scatter_source(size_t total, const int *counts, const int *displs)
{
    int *host = sentinels(total);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < counts[r]; i++)
            host[displs[r] + i] = val(r, (size_t)i) + 1;
    return host;
}

static void test_scatter(int root, int in_place, int v)
{
    int counts[MAX_RANKS], displs[MAX_RANKS];
    size_t total, mc;
    int *src, *send, *recv, *want;
    const char *name = v ? (in_place ? "MPI_Scatterv in place" : "MPI_Scatterv")
                         : (in_place ? "MPI_Scatter in place" : "MPI_Scatter");

    for (int r = 0; r < n; r++) {
        counts[r] = v ? vcount(r) : block;
        displs[r] = v ? vdispl(r) : r * block;
    }
    total = v ? vspan() : (size_t)block * (size_t)n;
    mc = (size_t)counts[me];
    src = scatter_source(total, counts, displs);
    send = me == root ? buf_from(GT_DEVICE, src, total) : dev_sentinel(1);
    recv = dev_sentinel(mc + 4); /* 4 more that must stay SENTINEL */
    want = sentinels(mc + 4);
    for (size_t i = 0; i < mc; i++)
        want[i] = val(me, i) + 1;
    if (v)
        MPI_Scatterv(send, counts, displs, MPI_INT, me == root && in_place ? MPI_IN_PLACE : recv,
                     (int)mc, MPI_INT, root, MPI_COMM_WORLD);
    else
        MPI_Scatter(send, block, MPI_INT, me == root && in_place ? MPI_IN_PLACE : recv, block,
                    MPI_INT, root, MPI_COMM_WORLD);
    if (me != root || !in_place)
        expect(name, GT_DEVICE, recv, want, mc + 4);
    if (me == root) /* the send buffer is only read */
        expect(name, GT_DEVICE, send, src, total);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(src);
    free(want);
}

/* ---- all-to-all family ------------------------------------------------- */

static void test_allgather(int in_place, int v)
{
    int counts[MAX_RANKS], displs[MAX_RANKS];
    size_t total, mc;
    int *mine, *send, *start, *recv, *want;
    const char *name = v ? (in_place ? "MPI_Allgatherv in place" : "MPI_Allgatherv")
                         : (in_place ? "MPI_Allgather in place" : "MPI_Allgather");

    for (int r = 0; r < n; r++) {
        counts[r] = v ? vcount(r) : block;
        displs[r] = v ? vdispl(r) : r * block;
    }
    total = v ? vspan() : (size_t)block * (size_t)n;
    mc = (size_t)counts[me];
    mine = values(me, 0, mc);
    send = buf_from(GT_DEVICE, mine, mc);
    start = gathered_start(in_place, total, (size_t)displs[me], mc);
    recv = buf_from(GT_DEVICE, start, total);
    want = sentinels(total);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < counts[r]; i++)
            want[displs[r] + i] = val(r, (size_t)i);
    if (v)
        MPI_Allgatherv(in_place ? MPI_IN_PLACE : send, (int)mc, MPI_INT, recv, counts, displs,
                       MPI_INT, MPI_COMM_WORLD);
    else
        MPI_Allgather(in_place ? MPI_IN_PLACE : send, block, MPI_INT, recv, block, MPI_INT,
                      MPI_COMM_WORLD);
    expect(name, GT_DEVICE, recv, want, total);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(start);
    free(want);
}

/* Alltoall(v/w): what rank s sends to rank d, element i: val(s, 100000*d + i).
 * Counts between s and d are symmetric (needed in place). */
static int pair_count(int s, int d, int v)
{
    return v ? block + (s + d) % 3 : block;
}

static void pair_layout(int v, int *counts, int *displs)
{
    int d = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = pair_count(me, r, v);
        displs[r] = d;
        d += counts[r] + (v ? 2 : 0);
    }
}

enum a2a { ALLTOALL, ALLTOALLV, ALLTOALLW };
static const char *const a2a_names[] = { "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw" };

static void test_alltoall(enum a2a kind, int in_place)
{
    int v = kind != ALLTOALL, counts[MAX_RANKS], displs[MAX_RANKS], bytes[MAX_RANKS];
    MPI_Datatype types[MAX_RANKS];
    size_t total;
    int *src, *send, *recv, *want;
    char name[64];

    pair_layout(v, counts, displs);
    total = (size_t)displs[n - 1] + (size_t)counts[n - 1];
    src = sentinels(total);
    want = sentinels(total);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < counts[r]; i++) {
            src[displs[r] + i] = val(me, (size_t)(100000 * r + i));
            want[displs[r] + i] = val(r, (size_t)(100000 * me + i));
        }
    for (int r = 0; r < n; r++) {
        bytes[r] = displs[r] * (int)sizeof(int);
        types[r] = MPI_INT;
    }
    send = buf_from(GT_DEVICE, src, total);
    recv = in_place ? buf_from(GT_DEVICE, src, total) : dev_sentinel(total);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send;
    if (kind == ALLTOALL)
        MPI_Alltoall(sendbuf, block, MPI_INT, recv, block, MPI_INT, MPI_COMM_WORLD);
    else if (kind == ALLTOALLV)
        MPI_Alltoallv(sendbuf, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                      MPI_COMM_WORLD);
    else
        MPI_Alltoallw(sendbuf, counts, bytes, types, recv, counts, bytes, types, MPI_COMM_WORLD);
    snprintf(name, sizeof name, "%s%s", a2a_names[kind], in_place ? " in place" : "");
    expect(name, GT_DEVICE, recv, want, total);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(src);
    free(want);
}

/* ---- reductions ---------------------------------------------------------- */

static void test_reduce_scatter(int in_place, int blockwise)
{
    int counts[MAX_RANKS] = { 0 }, displs[MAX_RANKS] = { 0 }, d = 0;
    size_t total, mc;
    int *mine, *send, *recv, *want;
    const char *name = blockwise
                           ? (in_place ? "MPI_Reduce_scatter_block in place" : "MPI_Reduce_scatter_block")
                           : (in_place ? "MPI_Reduce_scatter in place" : "MPI_Reduce_scatter");

    for (int r = 0; r < n; r++) {
        counts[r] = blockwise ? block : vcount(r);
        displs[r] = d;
        d += counts[r];
    }
    total = (size_t)d;
    mc = (size_t)counts[me];
    mine = values(me, 0, total);
    send = buf_from(GT_DEVICE, mine, total);
    recv = in_place ? buf_from(GT_DEVICE, mine, total) : dev_sentinel(mc);
    want = sums(0, n, (size_t)displs[me], mc);
    if (blockwise)
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send, recv, block, MPI_INT, MPI_SUM,
                                 MPI_COMM_WORLD);
    else
        MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : send, recv, counts, MPI_INT, MPI_SUM,
                           MPI_COMM_WORLD);
    expect(name, GT_DEVICE, recv, want, mc);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(want);
}

static void test_scan(int in_place, int exclusive)
{
    size_t c = (size_t)block;
    int *mine = values(me, 0, c), *send = buf_from(GT_DEVICE, mine, c);
    int *recv = in_place ? buf_from(GT_DEVICE, mine, c) : dev_sentinel(c);
    int *want = sums(0, exclusive ? me : me + 1, 0, c);
    const char *name = exclusive ? (in_place ? "MPI_Exscan in place" : "MPI_Exscan")
                                 : (in_place ? "MPI_Scan in place" : "MPI_Scan");
    if (exclusive)
        MPI_Exscan(in_place ? MPI_IN_PLACE : send, recv, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else
        MPI_Scan(in_place ? MPI_IN_PLACE : send, recv, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (!exclusive || me > 0) /* rank 0's exscan result is undefined */
        expect(name, GT_DEVICE, recv, want, c);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(want);
}

enum allreduce_form { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const form_names[] = { "MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init" };

/* Persistent: started twice, the input changed in between. */
static void test_allreduce(enum allreduce_form form, int in_place)
{
    size_t c = (size_t)block;
    int *mine = values(me, 0, c), *want = sums(0, n, 0, c);
    int *send = buf_from(GT_DEVICE, mine, c);
    int *recv = in_place ? buf_from(GT_DEVICE, mine, c) : dev_sentinel(c);
    const void *sendbuf = in_place ? MPI_IN_PLACE : send;
    MPI_Request req;
    char name[64];

    snprintf(name, sizeof name, "%s%s", form_names[form], in_place ? " in place" : "");
    if (form == BLOCKING) {
        MPI_Allreduce(sendbuf, recv, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (form == NONBLOCKING) {
        MPI_Iallreduce(sendbuf, recv, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce_init(sendbuf, recv, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        expect(name, GT_DEVICE, recv, want, c);
        /* second start: every input doubled */
        for (size_t i = 0; i < c; i++) {
            mine[i] *= 2;
            want[i] *= 2;
        }
        gt_put(GT_DEVICE, in_place ? recv : send, mine, c * sizeof(int));
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
        strcat(name, " (2nd start)");
    }
    expect(name, GT_DEVICE, recv, want, c);
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(mine);
    free(want);
}

/* ---- device buffers on some ranks, host buffers on the others ----------- */

static void test_mixed(void)
{
    size_t c = (size_t)block;
    enum gt_mem mem = me % 2 ? GT_HOST : GT_DEVICE;
    int *mine = values(me, 0, c), *want = sums(0, n, 0, c), *bwant = values(n - 1, 0, c);
    int *send = buf_from(mem, mine, c), *recv = buf_from(mem, mine, c);
    int *bbuf = me == n - 1 ? buf_from(mem, bwant, c) : buf_from(mem, mine, c);

    MPI_Allreduce(send, recv, block, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    expect(mem == GT_DEVICE ? "MPI_Allreduce, device here, host on odd ranks"
                            : "MPI_Allreduce, host here, device on even ranks",
           mem, recv, want, c);
    MPI_Bcast(bbuf, block, MPI_INT, n - 1, MPI_COMM_WORLD);
    expect(mem == GT_DEVICE ? "MPI_Bcast, device here, host on odd ranks"
                            : "MPI_Bcast, host here, device on even ranks",
           mem, bbuf, bwant, c);
    gt_free(mem, send);
    gt_free(mem, recv);
    gt_free(mem, bbuf);
    free(mine);
    free(want);
    free(bwant);
}

static void round_of(int count)
{
    block = count;
    for (int in_place = 0; in_place < 2; in_place++) {
        snprintf(label, sizeof label, "blocks of %d ints, %s", count,
                 in_place ? "in place at the root" : "not in place");
        for (int root = 0; root < n; root += n - 1 > 0 ? n - 1 : 1) {
            if (!in_place)
                test_bcast(root);
            test_reduce(root, in_place);
            test_gather(root, in_place);
            test_gatherv(root, in_place);
            test_scatter(root, in_place, 0);
            test_scatter(root, in_place, 1);
            if (n == 1)
                break;
        }
        snprintf(label, sizeof label, "blocks of %d ints, %s", count,
                 in_place ? "in place" : "not in place");
        test_allgather(in_place, 0);
        test_allgather(in_place, 1);
        test_alltoall(ALLTOALL, in_place);
        test_alltoall(ALLTOALLV, in_place);
        test_alltoall(ALLTOALLW, in_place);
        test_reduce_scatter(in_place, 0);
        test_reduce_scatter(in_place, 1);
        test_scan(in_place, 0);
        test_scan(in_place, 1);
        for (int form = 0; form < 3; form++)
            test_allreduce((enum allreduce_form)form, in_place);
    }
    snprintf(label, sizeof label, "blocks of %d ints", count);
    test_mixed();
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    static const int counts[] = { 1, 5, 65539 };
    gt_init("gpu_coll", &argc, &argv);
    n = gt_size;
    if (n > MAX_RANKS)
        gt_die("at most %d ranks", MAX_RANKS);
    me = gt_rank;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        round_of(counts[i]);
        if (me == 0)
            printf("gpu_coll: blocks of %d: %s so far\n", counts[i],
                   gt_failures() ? "FAILED" : "passed on rank 0");
    }
    return gt_finish();
}
