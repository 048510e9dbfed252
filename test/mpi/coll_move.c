/* coll_move: the data-movement collectives (barrier, bcast, gather(v),
 * scatter(v), allgather(v), alltoall(v, w)) as a grid, on MPI_COMM_WORLD
 * and on a split communicator: counts 0, 1, 7 and 5001 (and 33001, past
 * the size thresholds, for the rooted and regular collectives), roots 0 and last,
 * in place and not, a predefined type (MPI_INT), a derived one (a vector of
 * two ints with a gap) and the two mixed (vector elements sent, ints
 * received: the signatures match), each call blocking, nonblocking (with
 * point-to-point traffic of the same communicator in flight, received with
 * wildcards) and persistent. Then persistent bcast and allgather started
 * many times, the intercommunicator forms, and the neighbourhood
 * collectives on a periodic and a non-periodic 2-D Cartesian grid and on a
 * distributed graph. The algorithm is whatever the run's
 * OMPI_LITE_*_ALGORITHM variables force (coll_move.sh sets them).
 *
 * Every value received is checked against what the receiver computes
 * itself: value(source, destination, k) for the k-th int a block carries;
 * bytes that no block covers (gaps of the derived type, gaps between v
 * blocks, the element after the last) must keep the GAP pattern. */
#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GAP (-7)

static int world_rank;
static const char *where = "";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "coll_move: world rank %d: %s: ", world_rank, where);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static int value(int source, int dest, long k)
{
    unsigned v = (unsigned)source * 2654435761u ^ (unsigned)dest * 40503u ^ (unsigned)k * 3u;
    return (int)(v & 0x3fffffff);
}

/* ---- typed buffers as int arrays ----------------------------------------- */

/* A datatype as the test sees it: ints of data per element, the element's
 * extent in ints and where in it the data ints lie. */
typedef struct {
    MPI_Datatype type;
    int ints, extent, pos[2];
    const char *name;
} tspec_t;

static tspec_t t_int = {MPI_INT, 1, 1, {0, 0}, "int"};
static tspec_t t_vec = {MPI_DATATYPE_NULL, 2, 3, {0, 2}, "vector"};

static int *alloc_elements(const tspec_t *t, long elements)
{
    long n = (elements + 1) * t->extent; /* one more: nothing may spill past */
    int *buf = malloc(sizeof(int) * (size_t)n);
    if (!buf)
        die("out of memory");
    for (long i = 0; i < n; i++)
        buf[i] = GAP;
    return buf;
}

/* Index in the buffer of the k-th data int. */
static long slot(const tspec_t *t, long k)
{
    return k / t->ints * t->extent + t->pos[k % t->ints];
}

/* nints data ints from element first on: value(source, dest, 0 ..). */
static void put(int *buf, const tspec_t *t, long first, long nints, int source, int dest)
{
    for (long k = 0; k < nints; k++)
        buf[first * t->extent + slot(t, k)] = value(source, dest, k);
}

static void expect(const int *buf, const tspec_t *t, long first, long nints, int source,
                   int dest, const char *what)
{
    for (long k = 0; k < nints; k++) {
        int got = buf[first * t->extent + slot(t, k)], want = value(source, dest, k);
        if (got != want)
            die("%s: int %ld of the block from %d to %d is %d, expected %d (%s)", what, k, source,
                dest, got, want, t->name);
    }
}

/* Every int that is no data int of the given blocks is still GAP. */
static void expect_gaps(const int *buf, const tspec_t *t, long elements, const long *first,
                        const long *nints, int nblocks, const char *what)
{
    long n = (elements + 1) * t->extent;
    char *data = calloc((size_t)n, 1);
    if (!data)
        die("out of memory");
    for (int b = 0; b < nblocks; b++)
        for (long k = 0; k < nints[b]; k++)
            data[first[b] * t->extent + slot(t, k)] = 1;
    for (long i = 0; i < n; i++)
        if (!data[i] && buf[i] != GAP)
            die("%s: int %ld outside every block was written (%d)", what, i, buf[i]);
    free(data);
}

/* ---- how a call is issued -------------------------------------------------- */

typedef enum { BLOCKING, NONBLOCKING, PERSISTENT, MODES } mode_t_;
static const char *mode_names[] = {"blocking", "nonblocking", "persistent"};

/* Completes a nonblocking or persistent collective while point-to-point
 * traffic of the same communicator is in flight: a wildcard receive posted
 * before must get the user's message, never collective traffic. */
static void complete(MPI_Request *req, MPI_Comm comm, int posted_tag)
{
    int rank, size, got = -1;
    MPI_Status st;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request r;
    MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r);
    int mine = rank * 1000 + posted_tag;
    MPI_Send(&mine, 1, MPI_INT, (rank + 1) % size, posted_tag, comm);
    MPI_Wait(req, MPI_STATUS_IGNORE);
    MPI_Wait(&r, &st);
    int left = (rank - 1 + size) % size;
    if (got != left * 1000 + posted_tag || st.MPI_SOURCE != left || st.MPI_TAG != posted_tag)
        die("the wildcard receive got %d from %d tag %d, expected %d from %d tag %d", got,
            st.MPI_SOURCE, st.MPI_TAG, left * 1000 + posted_tag, left, posted_tag);
}

/* Runs a persistent request once; a blocking or nonblocking call is issued
 * by the caller. */
static void finish(mode_t_ mode, MPI_Request *req, MPI_Comm comm)
{
    if (mode == NONBLOCKING) {
        complete(req, comm, 5);
    } else if (mode == PERSISTENT) {
        MPI_Start(req);
        complete(req, comm, 6);
        MPI_Request_free(req);
    }
}

/* ---- the grid's collectives -------------------------------------------------- */

typedef struct {
    MPI_Comm comm;
    int rank, size;
    long count;          /* elements of the send type */
    const tspec_t *send, *recv;
    int in_place, root;
    mode_t_ mode;
} case_t;

static long recv_elements(const case_t *c, long count)
{
    return count * c->send->ints / c->recv->ints;
}

static void test_bcast(const case_t *c)
{
    const tspec_t *t = c->rank == c->root ? c->send : c->recv;
    long n = c->rank == c->root ? c->count : recv_elements(c, c->count);
    long nints = c->count * c->send->ints, zero = 0;
    int *buf = alloc_elements(t, n);
    MPI_Request req;
    if (c->rank == c->root)
        put(buf, t, 0, nints, c->root, 0);
    if (c->mode == BLOCKING)
        MPI_Bcast(buf, (int)n, t->type, c->root, c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Ibcast(buf, (int)n, t->type, c->root, c->comm, &req);
    else
        MPI_Bcast_init(buf, (int)n, t->type, c->root, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    expect(buf, t, 0, nints, c->root, 0, "bcast");
    expect_gaps(buf, t, n, &zero, &nints, 1, "bcast");
    free(buf);
}

static void test_gather(const case_t *c)
{
    long nints = c->count * c->send->ints, rn = recv_elements(c, c->count);
    int root = c->rank == c->root, p = c->size;
    int *sbuf = alloc_elements(c->send, c->count);
    int *rbuf = root ? alloc_elements(c->recv, rn * p) : NULL;
    const void *sendbuf = sbuf;
    MPI_Request req;
    put(sbuf, c->send, 0, nints, c->rank, c->root);
    if (root && c->in_place) {
        put(rbuf, c->recv, c->rank * rn, nints, c->rank, c->root);
        sendbuf = MPI_IN_PLACE;
    }
    if (c->mode == BLOCKING)
        MPI_Gather(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type, c->root,
                   c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Igather(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type, c->root,
                    c->comm, &req);
    else
        MPI_Gather_init(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                        c->root, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    if (root) {
        long first[8], len[8];
        for (int i = 0; i < p; i++) {
            expect(rbuf, c->recv, i * rn, nints, i, c->root, "gather");
            first[i] = i * rn, len[i] = nints;
        }
        expect_gaps(rbuf, c->recv, rn * p, first, len, p, "gather");
    }
    free(sbuf);
    free(rbuf);
}

static void test_scatter(const case_t *c)
{
    long nints = c->count * c->send->ints, rn = recv_elements(c, c->count), zero = 0;
    int root = c->rank == c->root, p = c->size;
    int *sbuf = root ? alloc_elements(c->send, c->count * p) : NULL;
    int *rbuf = alloc_elements(c->recv, rn);
    void *recvbuf = root && c->in_place ? MPI_IN_PLACE : rbuf;
    MPI_Request req;
    for (int i = 0; root && i < p; i++)
        put(sbuf, c->send, i * c->count, nints, c->root, i);
    if (c->mode == BLOCKING)
        MPI_Scatter(sbuf, (int)c->count, c->send->type, recvbuf, (int)rn, c->recv->type, c->root,
                    c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Iscatter(sbuf, (int)c->count, c->send->type, recvbuf, (int)rn, c->recv->type,
                     c->root, c->comm, &req);
    else
        MPI_Scatter_init(sbuf, (int)c->count, c->send->type, recvbuf, (int)rn, c->recv->type,
                         c->root, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    if (recvbuf != MPI_IN_PLACE) {
        expect(rbuf, c->recv, 0, nints, c->root, c->rank, "scatter");
        expect_gaps(rbuf, c->recv, rn, &zero, &nints, 1, "scatter");
    } else {
        expect(sbuf, c->send, c->rank * c->count, nints, c->root, c->rank, "scatter in place");
    }
    free(sbuf);
    free(rbuf);
}

static void test_allgather(const case_t *c)
{
    long nints = c->count * c->send->ints, rn = recv_elements(c, c->count);
    int p = c->size;
    int *sbuf = alloc_elements(c->send, c->count), *rbuf = alloc_elements(c->recv, rn * p);
    const void *sendbuf = sbuf;
    MPI_Request req;
    put(sbuf, c->send, 0, nints, c->rank, 0);
    if (c->in_place) {
        put(rbuf, c->recv, c->rank * rn, nints, c->rank, 0);
        sendbuf = MPI_IN_PLACE;
    }
    if (c->mode == BLOCKING)
        MPI_Allgather(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                      c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Iallgather(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                       c->comm, &req);
    else
        MPI_Allgather_init(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                           c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    long first[8], len[8];
    for (int i = 0; i < p; i++) {
        expect(rbuf, c->recv, i * rn, nints, i, 0, "allgather");
        first[i] = i * rn, len[i] = nints;
    }
    expect_gaps(rbuf, c->recv, rn * p, first, len, p, "allgather");
    free(sbuf);
    free(rbuf);
}

static void test_alltoall(const case_t *c)
{
    long nints = c->count * c->send->ints, rn = recv_elements(c, c->count);
    int p = c->size;
    int *sbuf = alloc_elements(c->send, c->count * p), *rbuf = alloc_elements(c->recv, rn * p);
    const void *sendbuf = sbuf;
    MPI_Request req;
    for (int i = 0; i < p; i++)
        put(sbuf, c->send, i * c->count, nints, c->rank, i);
    if (c->in_place) {
        for (int i = 0; i < p; i++)
            put(rbuf, c->recv, i * rn, nints, c->rank, i);
        sendbuf = MPI_IN_PLACE;
    }
    if (c->mode == BLOCKING)
        MPI_Alltoall(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                     c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Ialltoall(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                      c->comm, &req);
    else
        MPI_Alltoall_init(sendbuf, (int)c->count, c->send->type, rbuf, (int)rn, c->recv->type,
                          c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    long first[8], len[8];
    for (int i = 0; i < p; i++) {
        expect(rbuf, c->recv, i * rn, nints, i, c->rank, "alltoall");
        first[i] = i * rn, len[i] = nints;
    }
    expect_gaps(rbuf, c->recv, rn * p, first, len, p, "alltoall");
    free(sbuf);
    free(rbuf);
}

/* ---- v and w forms ---------------------------------------------------------- */

/* Elements (of the send type) from i to j: varies with the pair, the same
 * both ways, some blocks empty when count is 0. */
static long pair_count(const case_t *c, int i, int j)
{
    return c->count + (i + j) % 3;
}

/* Receive blocks laid out in reverse rank order with a one-element gap
 * between them: displacement (in receive elements) of block i of p. */
static void reverse_layout(const long *elements, int p, long *displ, long *total)
{
    long at = 0;
    for (int i = p - 1; i >= 0; i--) {
        displ[i] = at;
        at += elements[i] + 1;
    }
    *total = at;
}

static void test_gatherv(const case_t *c)
{
    int p = c->size, root = c->rank == c->root;
    long rn[8], displ[8], nints[8], total;
    int counts[8], displs[8];
    for (int i = 0; i < p; i++) {
        nints[i] = pair_count(c, i, c->root) * c->send->ints;
        rn[i] = nints[i] / c->recv->ints;
        counts[i] = (int)rn[i];
    }
    reverse_layout(rn, p, displ, &total);
    for (int i = 0; i < p; i++)
        displs[i] = (int)displ[i];
    long mine = pair_count(c, c->rank, c->root);
    int *sbuf = alloc_elements(c->send, mine), *rbuf = root ? alloc_elements(c->recv, total) : NULL;
    const void *sendbuf = sbuf;
    MPI_Request req;
    put(sbuf, c->send, 0, nints[c->rank], c->rank, c->root);
    if (root && c->in_place) {
        put(rbuf, c->recv, displ[c->rank], nints[c->rank], c->rank, c->root);
        sendbuf = MPI_IN_PLACE;
    }
    if (c->mode == BLOCKING)
        MPI_Gatherv(sendbuf, (int)mine, c->send->type, rbuf, counts, displs, c->recv->type,
                    c->root, c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Igatherv(sendbuf, (int)mine, c->send->type, rbuf, counts, displs, c->recv->type,
                     c->root, c->comm, &req);
    else
        MPI_Gatherv_init(sendbuf, (int)mine, c->send->type, rbuf, counts, displs, c->recv->type,
                         c->root, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    for (int i = 0; root && i < p; i++)
        expect(rbuf, c->recv, displ[i], nints[i], i, c->root, "gatherv");
    if (root)
        expect_gaps(rbuf, c->recv, total, displ, nints, p, "gatherv");
    free(sbuf);
    free(rbuf);
}

static void test_scatterv(const case_t *c)
{
    int p = c->size, root = c->rank == c->root;
    long sn[8], displ[8], nints[8], total;
    int counts[8], displs[8];
    for (int i = 0; i < p; i++) {
        sn[i] = pair_count(c, c->root, i);
        nints[i] = sn[i] * c->send->ints;
        counts[i] = (int)sn[i];
    }
    reverse_layout(sn, p, displ, &total);
    for (int i = 0; i < p; i++)
        displs[i] = (int)displ[i];
    long rn = nints[c->rank] / c->recv->ints, zero = 0;
    int *sbuf = root ? alloc_elements(c->send, total) : NULL, *rbuf = alloc_elements(c->recv, rn);
    void *recvbuf = root && c->in_place ? MPI_IN_PLACE : rbuf;
    MPI_Request req;
    for (int i = 0; root && i < p; i++)
        put(sbuf, c->send, displ[i], nints[i], c->root, i);
    if (c->mode == BLOCKING)
        MPI_Scatterv(sbuf, counts, displs, c->send->type, recvbuf, (int)rn, c->recv->type,
                     c->root, c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Iscatterv(sbuf, counts, displs, c->send->type, recvbuf, (int)rn, c->recv->type,
                      c->root, c->comm, &req);
    else
        MPI_Scatterv_init(sbuf, counts, displs, c->send->type, recvbuf, (int)rn, c->recv->type,
                          c->root, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    if (recvbuf != MPI_IN_PLACE) {
        expect(rbuf, c->recv, 0, nints[c->rank], c->root, c->rank, "scatterv");
        expect_gaps(rbuf, c->recv, rn, &zero, &nints[c->rank], 1, "scatterv");
    }
    free(sbuf);
    free(rbuf);
}

static void test_allgatherv(const case_t *c)
{
    int p = c->size;
    long rn[8], displ[8], nints[8], total;
    int counts[8], displs[8];
    for (int i = 0; i < p; i++) {
        nints[i] = pair_count(c, i, 0) * c->send->ints;
        rn[i] = nints[i] / c->recv->ints;
        counts[i] = (int)rn[i];
    }
    reverse_layout(rn, p, displ, &total);
    for (int i = 0; i < p; i++)
        displs[i] = (int)displ[i];
    long mine = pair_count(c, c->rank, 0);
    int *sbuf = alloc_elements(c->send, mine), *rbuf = alloc_elements(c->recv, total);
    const void *sendbuf = sbuf;
    MPI_Request req;
    put(sbuf, c->send, 0, nints[c->rank], c->rank, 0);
    if (c->in_place) {
        put(rbuf, c->recv, displ[c->rank], nints[c->rank], c->rank, 0);
        sendbuf = MPI_IN_PLACE;
    }
    if (c->mode == BLOCKING)
        MPI_Allgatherv(sendbuf, (int)mine, c->send->type, rbuf, counts, displs, c->recv->type,
                       c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Iallgatherv(sendbuf, (int)mine, c->send->type, rbuf, counts, displs, c->recv->type,
                        c->comm, &req);
    else
        MPI_Allgatherv_init(sendbuf, (int)mine, c->send->type, rbuf, counts, displs,
                            c->recv->type, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    for (int i = 0; i < p; i++)
        expect(rbuf, c->recv, displ[i], nints[i], i, 0, "allgatherv");
    expect_gaps(rbuf, c->recv, total, displ, nints, p, "allgatherv");
    free(sbuf);
    free(rbuf);
}

static void test_alltoallv(const case_t *c)
{
    int p = c->size;
    long sn[8], sdispl[8], rn[8], rdispl[8], nints[8], stotal, rtotal;
    int scounts[8], sdispls[8], rcounts[8], rdispls[8];
    for (int i = 0; i < p; i++) {
        sn[i] = pair_count(c, c->rank, i);
        nints[i] = sn[i] * c->send->ints; /* the same both ways */
        rn[i] = nints[i] / c->recv->ints;
        scounts[i] = (int)sn[i], rcounts[i] = (int)rn[i];
    }
    reverse_layout(sn, p, sdispl, &stotal);
    reverse_layout(rn, p, rdispl, &rtotal);
    for (int i = 0; i < p; i++)
        sdispls[i] = (int)sdispl[i], rdispls[i] = (int)rdispl[i];
    int *sbuf = alloc_elements(c->send, stotal), *rbuf = alloc_elements(c->recv, rtotal);
    const void *sendbuf = sbuf;
    MPI_Request req;
    for (int i = 0; i < p; i++)
        put(c->in_place ? rbuf : sbuf, c->in_place ? c->recv : c->send,
            c->in_place ? rdispl[i] : sdispl[i], nints[i], c->rank, i);
    if (c->in_place)
        sendbuf = MPI_IN_PLACE;
    if (c->mode == BLOCKING)
        MPI_Alltoallv(sendbuf, scounts, sdispls, c->send->type, rbuf, rcounts, rdispls,
                      c->recv->type, c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Ialltoallv(sendbuf, scounts, sdispls, c->send->type, rbuf, rcounts, rdispls,
                       c->recv->type, c->comm, &req);
    else
        MPI_Alltoallv_init(sendbuf, scounts, sdispls, c->send->type, rbuf, rcounts, rdispls,
                           c->recv->type, c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    for (int i = 0; i < p; i++)
        expect(rbuf, c->recv, rdispl[i], nints[i], i, c->rank, "alltoallv");
    expect_gaps(rbuf, c->recv, rtotal, rdispl, nints, p, "alltoallv");
    free(sbuf);
    free(rbuf);
}

/* Alltoallw: block i of both sides is of t_int for even peers and of
 * c->send's type for odd ones, at byte displacements; the receive side
 * is a buffer of ints. */
static void test_alltoallw(const case_t *c)
{
    int p = c->size;
    int scounts[8], sdispls[8], rcounts[8], rdispls[8];
    MPI_Datatype stypes[8], rtypes[8];
    long nints[8], at = 0;
    for (int i = 0; i < p; i++) {
        const tspec_t *t = i % 2 ? c->send : &t_int;
        long elements = pair_count(c, c->rank, i) * c->send->ints / t->ints;
        nints[i] = elements * t->ints;
        stypes[i] = rtypes[i] = t->type;
        scounts[i] = rcounts[i] = (int)elements;
        sdispls[i] = rdispls[i] = (int)(at * sizeof(int));
        at += (elements + 1) * t->extent;
    }
    int *sbuf = alloc_elements(&t_int, at), *rbuf = alloc_elements(&t_int, at);
    const void *sendbuf = c->in_place ? MPI_IN_PLACE : sbuf;
    MPI_Request req;
    for (int i = 0; i < p; i++) {
        const tspec_t *t = i % 2 ? c->send : &t_int;
        put((c->in_place ? rbuf : sbuf) + sdispls[i] / (int)sizeof(int), t, 0, nints[i], c->rank,
            i);
    }
    if (c->mode == BLOCKING)
        MPI_Alltoallw(sendbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Ialltoallw(sendbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes, c->comm,
                       &req);
    else
        MPI_Alltoallw_init(sendbuf, scounts, sdispls, stypes, rbuf, rcounts, rdispls, rtypes,
                           c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
    for (int i = 0; i < p; i++) {
        const tspec_t *t = i % 2 ? c->send : &t_int;
        expect(rbuf + rdispls[i] / (int)sizeof(int), t, 0, nints[i], i, c->rank, "alltoallw");
    }
    free(sbuf);
    free(rbuf);
}

static void test_barrier(const case_t *c)
{
    MPI_Request req;
    if (c->mode == BLOCKING)
        MPI_Barrier(c->comm);
    else if (c->mode == NONBLOCKING)
        MPI_Ibarrier(c->comm, &req);
    else
        MPI_Barrier_init(c->comm, MPI_INFO_NULL, &req);
    finish(c->mode, &req, c->comm);
}

/* ---- the grid ------------------------------------------------------------ */

typedef struct {
    const char *name;
    void (*run)(const case_t *c);
    int rooted, in_place; /* in_place: 0 never, 1 at the root, 2 everywhere */
} coll_t;

static const coll_t colls[] = {
    {"barrier", test_barrier, 0, 0},      {"bcast", test_bcast, 1, 0},
    {"gather", test_gather, 1, 1},        {"gatherv", test_gatherv, 1, 1},
    {"scatter", test_scatter, 1, 1},      {"scatterv", test_scatterv, 1, 1},
    {"allgather", test_allgather, 0, 2},  {"allgatherv", test_allgatherv, 0, 2},
    {"alltoall", test_alltoall, 0, 2},    {"alltoallv", test_alltoallv, 0, 2},
    {"alltoallw", test_alltoallw, 0, 2},
};

static long grid(MPI_Comm comm, const char *comm_name)
{
    static const long counts[] = {0, 1, 7, 5001};
    const tspec_t *sends[] = {&t_int, &t_vec, &t_vec}, *recvs[] = {&t_int, &t_vec, &t_int};
    case_t c = {.comm = comm};
    long cases = 0;
    char label[256];
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.size);
    for (size_t k = 0; k < sizeof(colls) / sizeof(colls[0]); k++) {
        const coll_t *co = &colls[k];
        for (int ci = 0; ci < 4; ci++) {
            for (int ti = 0; ti < 3; ti++) {
                /* in place: the data are already in the receive type */
                for (int ip = 0; ip <= (co->in_place && ti != 2); ip++) {
                    for (int ri = 0; ri <= co->rooted; ri++) {
                        /* the large count once per type pair and collective, blocking */
                        int modes = counts[ci] > 100 ? 1 : MODES;
                        for (int m = 0; m < modes; m++) {
                            c.count = counts[ci], c.send = sends[ti], c.recv = recvs[ti];
                            c.in_place = ip;
                            c.root = ri ? c.size - 1 : 0;
                            c.mode = (mode_t_)m;
                            snprintf(label, sizeof(label),
                                     "%s on %s, count %ld, %s -> %s, %s, root %d, %s", co->name,
                                     comm_name, c.count, c.send->name, c.recv->name,
                                     c.in_place ? "in place" : "not in place", c.root,
                                     mode_names[m]);
                            where = label;
                            co->run(&c);
                            cases++;
                        }
                    }
                }
            }
        }
    }
    return cases;
}

/* Messages past the default size thresholds (the large-message algorithms
 * of the automatic choice), blocking, on MPI_COMM_WORLD. */
static long big(void)
{
    const coll_t *rooted[] = {&colls[1], &colls[2], &colls[4], &colls[6], &colls[8]};
    case_t c = {.comm = MPI_COMM_WORLD, .count = 33001, .recv = &t_int, .mode = BLOCKING};
    char label[128];
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.size);
    c.root = c.size - 1;
    for (int k = 0; k < 5; k++) {
        for (int ti = 0; ti < 2; ti++) {
            c.send = ti ? &t_vec : &t_int;
            snprintf(label, sizeof(label), "%s, count 33001, %s -> int", rooted[k]->name,
                     c.send->name);
            where = label;
            rooted[k]->run(&c);
        }
    }
    return 10;
}

/* ---- persistent requests started many times --------------------------------- */

static void persistent_many(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 1000, STARTS = 60 };
    int *bbuf = alloc_elements(&t_int, N), *sbuf = alloc_elements(&t_int, N);
    int *gbuf = alloc_elements(&t_int, (long)N * size);
    MPI_Request req[2];
    MPI_Bcast_init(bbuf, N, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
    MPI_Allgather_init(sbuf, N, MPI_INT, gbuf, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &req[1]);
    where = "persistent bcast and allgather started many times";
    for (int start = 0; start < STARTS; start++) {
        if (rank == size - 1)
            put(bbuf, &t_int, 0, N, size - 1, start);
        put(sbuf, &t_int, 0, N, rank, start);
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        expect(bbuf, &t_int, 0, N, size - 1, start, "persistent bcast");
        for (int i = 0; i < size; i++)
            expect(gbuf, &t_int, (long)i * N, N, i, start, "persistent allgather");
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    free(bbuf);
    free(sbuf);
    free(gbuf);
}

/* ---- intercommunicators ------------------------------------------------------ */

/* Groups: world ranks below size / 2, and the rest. Root: the last process
 * of the low group broadcasts, gathers and scatters to the high group. */
static void intercomm(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2)
        return;
    int low = rank < size / 2, nlow = size / 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? nlow : 0, 7, &inter);
    int me, remote;
    MPI_Comm_rank(inter, &me);
    MPI_Comm_remote_size(inter, &remote);
    int root_rank = nlow - 1; /* in the low group */
    int root = low ? (me == root_rank ? MPI_ROOT : MPI_PROC_NULL) : root_rank;
    enum { N = 33 };
    int *buf = alloc_elements(&t_int, (long)N * 8), *all = alloc_elements(&t_int, (long)N * 8);
    where = "intercommunicator barrier";
    MPI_Barrier(inter);

    where = "intercommunicator bcast";
    if (root == MPI_ROOT)
        put(buf, &t_int, 0, N, 100, 0);
    MPI_Bcast(buf, N, MPI_INT, root, inter);
    if (!low)
        expect(buf, &t_int, 0, N, 100, 0, where);

    where = "intercommunicator gather";
    put(buf, &t_int, 0, N, me, 1);
    MPI_Gather(buf, N, MPI_INT, all, N, MPI_INT, root, inter);
    for (int i = 0; root == MPI_ROOT && i < remote; i++)
        expect(all, &t_int, (long)i * N, N, i, 1, where);

    where = "intercommunicator scatter";
    for (int i = 0; root == MPI_ROOT && i < remote; i++)
        put(all, &t_int, (long)i * N, N, 200, i);
    MPI_Scatter(all, N, MPI_INT, buf, N, MPI_INT, root, inter);
    if (!low)
        expect(buf, &t_int, 0, N, 200, me, where);

    where = "intercommunicator allgather";
    put(buf, &t_int, 0, N, me + (low ? 0 : 50), 2);
    MPI_Request req;
    MPI_Iallgather(buf, N, MPI_INT, all, N, MPI_INT, inter, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < remote; i++)
        expect(all, &t_int, (long)i * N, N, i + (low ? 50 : 0), 2, where);

    where = "intercommunicator alltoall";
    for (int i = 0; i < remote; i++)
        put(buf, &t_int, (long)i * N, N, me + (low ? 0 : 50), i);
    MPI_Alltoall(buf, N, MPI_INT, all, N, MPI_INT, inter);
    for (int i = 0; i < remote; i++)
        expect(all, &t_int, (long)i * N, N, i + (low ? 50 : 0), me, where);
    free(buf);
    free(all);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* ---- neighbourhood collectives ---------------------------------------------- */

/* What neighbour index i of this process receives: the sender s =
 * sources[i] and the index under which s sent it (its destination index
 * that names this process). Cartesian: from the -1 neighbour in dimension
 * d, what it sent to its +1 neighbour, and the other way round. */
typedef struct {
    int n, peer[16], index[16];
} nbrs_t;

static void neighbor_exchanges(MPI_Comm comm, const char *name, const nbrs_t *in,
                               const nbrs_t *out)
{
    enum { N = 9 };
    int rank;
    MPI_Comm_rank(comm, &rank);
    char label[128];
    int *sbuf = alloc_elements(&t_int, (long)N * 16), *rbuf = alloc_elements(&t_int, 16 * N);
    MPI_Request req;

    snprintf(label, sizeof(label), "neighbor_allgather on %s", name);
    where = label;
    put(sbuf, &t_int, 0, N, rank, 99);
    MPI_Neighbor_allgather(sbuf, N, MPI_INT, rbuf, N, MPI_INT, comm);
    for (int i = 0; i < in->n; i++)
        if (in->peer[i] != MPI_PROC_NULL)
            expect(rbuf, &t_int, (long)i * N, N, in->peer[i], 99, label);
        else if (rbuf[i * N] != GAP)
            die("the block from MPI_PROC_NULL was written");

    snprintf(label, sizeof(label), "neighbor_alltoall on %s (nonblocking)", name);
    for (int i = 0; i < out->n; i++)
        put(sbuf, &t_int, (long)i * N, N, rank, i);
    MPI_Ineighbor_alltoall(sbuf, N, MPI_INT, rbuf, N, MPI_INT, comm, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < in->n; i++)
        if (in->peer[i] != MPI_PROC_NULL)
            expect(rbuf, &t_int, (long)i * N, N, in->peer[i], in->index[i], label);

    /* v and w forms: block i has i % 3 + 1 ints, at a stride of N ints */
    int scounts[16], rcounts[16], sd[16], rd[16];
    MPI_Aint sdb[16], rdb[16];
    MPI_Datatype types[16];
    for (int i = 0; i < 16; i++) {
        sd[i] = rd[i] = i * N;
        sdb[i] = rdb[i] = (MPI_Aint)i * N * (MPI_Aint)sizeof(int);
        types[i] = MPI_INT;
    }
    for (int i = 0; i < out->n; i++)
        scounts[i] = (i % 3) + 1;
    for (int i = 0; i < in->n; i++)
        rcounts[i] = (in->index[i] % 3) + 1;
    snprintf(label, sizeof(label), "neighbor_alltoallv on %s (persistent)", name);
    MPI_Neighbor_alltoallv_init(sbuf, scounts, sd, MPI_INT, rbuf, rcounts, rd, MPI_INT, comm,
                                MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    for (int i = 0; i < in->n; i++)
        if (in->peer[i] != MPI_PROC_NULL)
            expect(rbuf, &t_int, (long)i * N, rcounts[i], in->peer[i], in->index[i], label);

    snprintf(label, sizeof(label), "neighbor_alltoallw on %s", name);
    MPI_Neighbor_alltoallw(sbuf, scounts, sdb, types, rbuf, rcounts, rdb, types, comm);
    for (int i = 0; i < in->n; i++)
        if (in->peer[i] != MPI_PROC_NULL)
            expect(rbuf, &t_int, (long)i * N, rcounts[i], in->peer[i], in->index[i], label);

    snprintf(label, sizeof(label), "neighbor_allgatherv on %s", name);
    for (int i = 0; i < in->n; i++)
        rcounts[i] = N, rd[i] = (in->n - 1 - i) * N; /* reversed */
    put(sbuf, &t_int, 0, N, rank, 98);
    MPI_Neighbor_allgatherv(sbuf, N, MPI_INT, rbuf, rcounts, rd, MPI_INT, comm);
    for (int i = 0; i < in->n; i++)
        if (in->peer[i] != MPI_PROC_NULL)
            expect(rbuf, &t_int, (long)(in->n - 1 - i) * N, N, in->peer[i], 98, label);
    free(sbuf);
    free(rbuf);
}

static void cartesian(int periodic)
{
    int size, dims[2] = {0, 0}, periods[2] = {periodic, periodic};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    nbrs_t in = {4, {0}, {0}}, out;
    for (int d = 0; d < 2; d++) {
        MPI_Cart_shift(cart, d, 1, &in.peer[2 * d], &in.peer[2 * d + 1]);
        in.index[2 * d] = 2 * d + 1; /* the -1 neighbour sent it to its +1 */
        in.index[2 * d + 1] = 2 * d;
    }
    out = in;
    neighbor_exchanges(cart, periodic ? "a periodic 2-D grid" : "a non-periodic 2-D grid", &in,
                       &out);
    MPI_Comm_free(&cart);
}

/* Edges r -> r + 1 and r -> r + 3 (mod p), in that order. */
static void dist_graph(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sources[2] = {(rank - 1 + size) % size, ((rank - 3) % size + size) % size};
    int dests[2] = {(rank + 1) % size, (rank + 3) % size};
    int weights[2] = {1, 1};
    MPI_Comm graph;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weights, 2, dests, weights,
                                   MPI_INFO_NULL, 0, &graph);
    nbrs_t in = {2, {sources[0], sources[1]}, {0, 1}};
    nbrs_t out = {2, {dests[0], dests[1]}, {0, 1}};
    neighbor_exchanges(graph, "a distributed graph", &in, &out);
    MPI_Comm_free(&graph);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t_vec.type);
    MPI_Type_commit(&t_vec.type);

    long cases = grid(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    MPI_Comm split; /* odd and even ranks, in reverse order */
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, size - world_rank, &split);
    cases += grid(split, "a split communicator") + big();
    MPI_Comm_free(&split);
    persistent_many();
    intercomm();
    cartesian(1);
    cartesian(0);
    dist_graph();

    MPI_Type_free(&t_vec.type);
    MPI_Finalize();
    if (world_rank == 0)
        printf("coll_move: %d ranks OK (%ld cases per process)\n", size, cases);
    return 0;
}
