/* coll_bottom: collectives whose buffers are MPI_BOTTOM and whose data is
 * placed by datatypes or displacements of absolute addresses
 * (MPI_Get_address), as programs send scattered variables; and the
 * aliasing that the standard forbids, judged by the bytes the datatypes
 * touch: refused at once on the process that made the mistake, before any
 * message (as MPICH refuses it), so that its correct call
 * afterwards is the one the others' calls meet.
 *
 * Rank r's value for process d is value(r, d); every received int is
 * checked, and the ints that must stay untouched too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXP 8

static int rank, size;

static void fail(const char *what, long expected, long got)
{
    fprintf(stderr, "coll_bottom: rank %d: %s: expected %ld, got %ld\n", rank, what, expected,
            got);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(int rc, const char *call)
{
    if (rc == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    fprintf(stderr, "coll_bottom: rank %d: %s failed: %s\n", rank, call, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The call must fail with MPI_ERR_BUFFER. */
static void expect_buffer_error(int rc, const char *call)
{
    int class;
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_BUFFER)
        fail(call, MPI_ERR_BUFFER, class);
}

static int value(int from, int to)
{
    return 1000 * (from + 1) + to + 1;
}

static MPI_Aint address_of(const void *p)
{
    MPI_Aint a;
    MPI_Get_address(p, &a);
    return a;
}

/* One int at p, absolute, with an extent of `stride` ints: count n of it at
 * MPI_BOTTOM is the ints p[0], p[stride], ... p[(n-1) * stride]. */
static MPI_Datatype int_at(const int *p, int stride)
{
    int one = 1;
    MPI_Aint displ = address_of(p);
    MPI_Datatype type = MPI_INT, s, t;
    check(MPI_Type_create_struct(1, &one, &displ, &type, &s), "MPI_Type_create_struct");
    check(MPI_Type_create_resized(s, displ, (MPI_Aint)(stride * sizeof(int)), &t),
          "MPI_Type_create_resized");
    check(MPI_Type_commit(&t), "MPI_Type_commit");
    MPI_Type_free(&s);
    return t;
}

static void fill(int *a, int n, int v)
{
    for (int i = 0; i < n; i++)
        a[i] = v;
}

/* The ints a[first], a[first + stride] ... for each process i hold
 * value(from(i), to(i)); with from < 0 it is i, with to < 0 it is i. */
static void expect_ints(const char *call, const int *a, int first, int stride, int from, int to)
{
    for (int i = 0; i < size; i++) {
        int expected = value(from < 0 ? i : from, to < 0 ? i : to);
        if (a[first + i * stride] != expected)
            fail(call, expected, a[first + i * stride]);
    }
}

/* Both buffers MPI_BOTTOM in every data-movement collective: separate
 * arrays, each described by an absolute type. */
static void separate_arrays(void)
{
    int send[MAXP], recv[MAXP];
    MPI_Datatype s1 = int_at(send, 1), r1 = int_at(recv, 1);

    for (int i = 0; i < size; i++)
        send[i] = value(rank, i);
    fill(recv, MAXP, -1);
    check(MPI_Alltoall(MPI_BOTTOM, 1, s1, MPI_BOTTOM, 1, r1, MPI_COMM_WORLD), "MPI_Alltoall");
    expect_ints("MPI_Alltoall", recv, 0, 1, -1, rank);

    send[0] = value(rank, 0);
    fill(recv, MAXP, -1);
    check(MPI_Allgather(MPI_BOTTOM, 1, s1, MPI_BOTTOM, 1, r1, MPI_COMM_WORLD), "MPI_Allgather");
    expect_ints("MPI_Allgather", recv, 0, 1, -1, 0);

    for (int root = 0; root < size; root++) {
        send[0] = value(rank, root);
        fill(recv, MAXP, -1);
        check(MPI_Gather(MPI_BOTTOM, 1, s1, MPI_BOTTOM, 1, r1, root, MPI_COMM_WORLD),
              "MPI_Gather");
        if (rank == root)
            expect_ints("MPI_Gather", recv, 0, 1, -1, root);

        for (int i = 0; i < size; i++)
            send[i] = value(root, i);
        fill(recv, MAXP, -1);
        check(MPI_Scatter(MPI_BOTTOM, 1, s1, MPI_BOTTOM, 1, r1, root, MPI_COMM_WORLD),
              "MPI_Scatter");
        if (recv[0] != value(root, rank) || recv[1] != -1)
            fail("MPI_Scatter", value(root, rank), recv[0]);

        fill(recv, MAXP, rank == root ? value(root, 7) : -1);
        check(MPI_Bcast(MPI_BOTTOM, size, r1, root, MPI_COMM_WORLD), "MPI_Bcast");
        expect_ints("MPI_Bcast", recv, 0, 1, root, 7);
    }
    MPI_Type_free(&s1);
    MPI_Type_free(&r1);
}

/* Alltoallw with MPI_BOTTOM on both sides: each block its own scattered
 * variable, given once by a type of its absolute address (displacement 0)
 * and once by MPI_INT at its address as the byte displacement. */
static void scattered_variables(void)
{
    int *sends[MAXP], *recvs[MAXP];
    int counts[MAXP], zeros[MAXP];
    MPI_Aint sdispls[MAXP], rdispls[MAXP];
    MPI_Datatype stypes[MAXP], rtypes[MAXP], ints[MAXP];
    for (int i = 0; i < size; i++) {
        sends[i] = malloc(sizeof(int));
        recvs[i] = malloc(sizeof(int));
        *sends[i] = value(rank, i);
        *recvs[i] = -1;
        stypes[i] = int_at(sends[i], 1);
        rtypes[i] = int_at(recvs[i], 1);
        ints[i] = MPI_INT;
        counts[i] = 1, zeros[i] = 0;
        sdispls[i] = address_of(sends[i]);
        rdispls[i] = address_of(recvs[i]);
    }
    check(MPI_Alltoallw(MPI_BOTTOM, counts, zeros, stypes, MPI_BOTTOM, counts, zeros, rtypes,
                        MPI_COMM_WORLD),
          "MPI_Alltoallw (absolute types)");
    for (int i = 0; i < size; i++)
        if (*recvs[i] != value(i, rank))
            fail("MPI_Alltoallw (absolute types)", value(i, rank), *recvs[i]);

    for (int i = 0; i < size; i++)
        *recvs[i] = -1;
    check(MPI_Alltoallw_c(MPI_BOTTOM, (MPI_Count[MAXP]){1, 1, 1, 1, 1, 1, 1, 1}, sdispls, ints,
                          MPI_BOTTOM, (MPI_Count[MAXP]){1, 1, 1, 1, 1, 1, 1, 1}, rdispls, ints,
                          MPI_COMM_WORLD),
          "MPI_Alltoallw_c (absolute displacements)");
    for (int i = 0; i < size; i++)
        if (*recvs[i] != value(i, rank))
            fail("MPI_Alltoallw_c (absolute displacements)", value(i, rank), *recvs[i]);

    /* The neighbourhood form on a ring: from the left and right neighbour. */
    MPI_Comm ring;
    int periodic = 1, dims = size;
    check(MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periodic, 0, &ring), "MPI_Cart_create");
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int n = size >= 2 ? 2 : 0;
    if (n) {
        *sends[0] = value(rank, left);
        *sends[1] = value(rank, right);
        *recvs[0] = *recvs[1] = -1;
        check(MPI_Neighbor_alltoallw(MPI_BOTTOM, counts, sdispls, ints, MPI_BOTTOM, counts,
                                     rdispls, ints, ring),
              "MPI_Neighbor_alltoallw");
        if (*recvs[0] != value(left, rank))
            fail("MPI_Neighbor_alltoallw from the left", value(left, rank), *recvs[0]);
        if (*recvs[1] != value(right, rank))
            fail("MPI_Neighbor_alltoallw from the right", value(right, rank), *recvs[1]);
    }
    MPI_Comm_free(&ring);
    for (int i = 0; i < size; i++) {
        MPI_Type_free(&stypes[i]);
        MPI_Type_free(&rtypes[i]);
        free(sends[i]);
        free(recvs[i]);
    }
}

/* Point-to-point the same way: to the next rank round a ring, blocking,
 * nonblocking and in place (Sendrecv_replace). */
static void point_to_point(void)
{
    int send[2], recv[2] = {-1, -1};
    MPI_Datatype s2 = int_at(send, 1), r2 = int_at(recv, 1);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    send[0] = value(rank, next), send[1] = value(rank, 7);
    check(MPI_Sendrecv(MPI_BOTTOM, 2, s2, next, 3, MPI_BOTTOM, 2, r2, prev, 3, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    if (recv[0] != value(prev, rank) || recv[1] != value(prev, 7))
        fail("MPI_Sendrecv", value(prev, rank), recv[0]);
    recv[0] = recv[1] = -1;
    MPI_Request requests[2];
    check(MPI_Irecv(MPI_BOTTOM, 2, r2, prev, 4, MPI_COMM_WORLD, &requests[0]), "MPI_Irecv");
    check(MPI_Isend(MPI_BOTTOM, 2, s2, next, 4, MPI_COMM_WORLD, &requests[1]), "MPI_Isend");
    check(MPI_Waitall(2, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (recv[0] != value(prev, rank) || recv[1] != value(prev, 7))
        fail("MPI_Isend/MPI_Irecv", value(prev, rank), recv[0]);
    check(MPI_Sendrecv_replace(MPI_BOTTOM, 2, s2, next, 5, prev, 5, MPI_COMM_WORLD,
                               MPI_STATUS_IGNORE),
          "MPI_Sendrecv_replace");
    if (send[0] != value(prev, rank) || send[1] != value(prev, 7))
        fail("MPI_Sendrecv_replace", value(prev, rank), send[0]);
    MPI_Type_free(&s2);
    MPI_Type_free(&r2);
}

/* Send and receive data interleaved in one array: their spans overlap but
 * no byte is in both, which is legal. Process i's block is x[2i + 1]; the
 * sends are at even places. */
static void interleaved(void)
{
    int x[2 * MAXP + 1];
    MPI_Datatype evens = int_at(&x[0], 2), odds = int_at(&x[1], 2), third = int_at(&x[2], 2);

    fill(x, 2 * MAXP + 1, -1);
    for (int i = 0; i < size; i++)
        x[2 * i] = value(rank, i);
    check(MPI_Alltoall(MPI_BOTTOM, 1, evens, MPI_BOTTOM, 1, odds, MPI_COMM_WORLD),
          "MPI_Alltoall (interleaved)");
    expect_ints("MPI_Alltoall (interleaved)", x, 1, 2, -1, rank);
    expect_ints("MPI_Alltoall (interleaved) sends untouched", x, 0, 2, rank, -1);

    fill(x, 2 * MAXP + 1, -1);
    x[2] = value(rank, 0);
    check(MPI_Allgather(MPI_BOTTOM, 1, third, MPI_BOTTOM, 1, odds, MPI_COMM_WORLD),
          "MPI_Allgather (interleaved)");
    expect_ints("MPI_Allgather (interleaved)", x, 1, 2, -1, 0);
    MPI_Type_free(&evens);
    MPI_Type_free(&odds);
    MPI_Type_free(&third);
}

/* Alltoall and alltoallv where rank 0 alone passes one buffer as both
 * send and receive buffer: rank 0 gets MPI_ERR_BUFFER at once, its buffer
 * untouched, and then makes the call right; the others' single call meets
 * that one, and every process receives what the others sent. */
static void alltoall_one_aliased(void)
{
    for (int v = 0; v < 2; v++) {
        const char *call = v ? "MPI_Alltoallv (rank 0: sendbuf = recvbuf)"
                             : "MPI_Alltoall (rank 0: sendbuf = recvbuf)";
        int send[MAXP], recv[MAXP], counts[MAXP], displs[MAXP];
        for (int i = 0; i < size; i++) {
            send[i] = recv[i] = value(rank, i);
            counts[i] = 1, displs[i] = i;
        }
        int tries = rank == 0 ? 2 : 1;
        for (int t = 0; t < tries; t++) {
            int *sendbuf = rank == 0 && t == 0 ? recv : send;
            int rc = v ? MPI_Alltoallv(sendbuf, counts, displs, MPI_INT, recv, counts, displs,
                                       MPI_INT, MPI_COMM_WORLD)
                       : MPI_Alltoall(sendbuf, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
            if (t < tries - 1) {
                expect_buffer_error(rc, call);
                expect_ints(call, recv, 0, 1, rank, -1);
            } else {
                check(rc, call);
            }
        }
        expect_ints(call, recv, 0, 1, -1, rank);
    }
}

/* The root's gather of its own block as sendbuf, blocking, nonblocking or
 * persistent (how 0, 1, 2): rc of the call that is refused. */
static int gather_own_block(int how, int *x, int root)
{
    const char *calls[] = {"MPI_Gather made a request", "MPI_Igather made a request",
                           "MPI_Gather_init made a request"};
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = how == 0   ? MPI_Gather(&x[rank], 1, MPI_INT, x, 1, MPI_INT, root, MPI_COMM_WORLD)
             : how == 1 ? MPI_Igather(&x[rank], 1, MPI_INT, x, 1, MPI_INT, root, MPI_COMM_WORLD,
                                      &request)
                        : MPI_Gather_init(&x[rank], 1, MPI_INT, x, 1, MPI_INT, root,
                                          MPI_COMM_WORLD, MPI_INFO_NULL, &request);
    if (request != MPI_REQUEST_NULL) /* a refused call makes none */
        fail(calls[how], 0, 1);
    return rc;
}

/* A send whose bytes are the process's own receive block: every process
 * of an allgather gets MPI_ERR_BUFFER at once, its buffer untouched. At a
 * gather's root alone, blocking, nonblocking and persistent: the root gets
 * the error from the call (no request), then gathers with MPI_IN_PLACE,
 * which completes the others' single gather. */
static void aliased(void)
{
    int x[MAXP];
    MPI_Datatype all = int_at(&x[0], 1), own = int_at(&x[rank], 1);

    fill(x, MAXP, -1);
    x[rank] = value(rank, 0);
    expect_buffer_error(MPI_Allgather(MPI_BOTTOM, 1, own, MPI_BOTTOM, 1, all, MPI_COMM_WORLD),
                        "MPI_Allgather (own block as sendbuf)");
    for (int i = 0; i < size; i++)
        if (x[i] != (i == rank ? value(rank, 0) : -1))
            fail("MPI_Allgather (own block as sendbuf) left the buffer", -1, x[i]);

    for (int root = 0; root < size; root++) {
        for (int how = 0; how < 3; how++) {
            const char *call = how == 0 ? "MPI_Gather (root's block as sendbuf)"
                               : how == 1 ? "MPI_Igather (root's block as sendbuf)"
                                          : "MPI_Gather_init (root's block as sendbuf)";
            int mine = value(rank, root);
            fill(x, MAXP, -1);
            x[rank] = mine;
            if (rank == root) {
                expect_buffer_error(gather_own_block(how, x, root), call);
                for (int i = 0; i < size; i++)
                    if (x[i] != (i == rank ? mine : -1))
                        fail("a refused gather left the root's buffer", -1, x[i]);
                check(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, root, MPI_COMM_WORLD),
                      "MPI_Gather (MPI_IN_PLACE after the refused call)");
                expect_ints(call, x, 0, 1, -1, root);
            } else {
                check(MPI_Gather(&mine, 1, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD),
                      "MPI_Gather beside an aliased root");
            }
        }
    }
    MPI_Type_free(&all);
    MPI_Type_free(&own);
    alltoall_one_aliased();
}

/* MPI_BOTTOM (NULL) with data that would begin at address 0, or just
 * above it where no memory can be (a forgotten allocation with relative
 * displacements), stays an error, on every process alike. */
static void bottom_at_zero(void)
{
    int rc = MPI_Bcast(MPI_BOTTOM, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int class;
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_BUFFER)
        fail("MPI_Bcast(MPI_BOTTOM, 1, MPI_INT) error class", MPI_ERR_BUFFER, class);
    int counts[MAXP], displs[MAXP], send[MAXP];
    for (int i = 0; i < size; i++)
        counts[i] = 1, displs[i] = i + 1, send[i] = i;
    rc = MPI_Alltoallv(send, counts, displs, MPI_INT, NULL, counts, displs, MPI_INT,
                       MPI_COMM_WORLD);
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_BUFFER)
        fail("MPI_Alltoallv into NULL at displacements 1.. error class", MPI_ERR_BUFFER, class);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) {
        fprintf(stderr, "coll_bottom: at most %d processes\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (argc > 1 && argv[1][0] == 'f') { /* "fatal": the message a user sees */
        int x[MAXP] = {0};
        MPI_Allgather(&x[rank], 1, MPI_INT, x, 1, MPI_INT, MPI_COMM_WORLD);
        fprintf(stderr, "coll_bottom: MPI_Allgather of an aliased buffer returned\n");
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    separate_arrays();
    scattered_variables();
    point_to_point();
    interleaved();
    aliased();
    bottom_at_zero();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_bottom: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
