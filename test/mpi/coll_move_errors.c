/* coll_move_errors: bad arguments of the data-movement collectives that a
 * process can see by itself, under MPI_ERRORS_RETURN: each call fails on
 * every process alike (so no process is left waiting in a collective) with
 * the standard's error class, and the communicator still works afterwards.
 * Root-only arguments are checked on MPI_COMM_SELF, where the caller is the
 * root. Among them: the same memory as send and receive buffer, or as the
 * process's own block, instead of MPI_IN_PLACE. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

static int rank, failed;

static void expect_class(int rc, int cls, const char *what)
{
    int got;
    MPI_Error_class(rc, &got);
    if (got != cls) {
        fprintf(stderr, "coll_move_errors: rank %d: %s returned class %d, expected %d\n", rank,
                what, got, cls);
        failed = 1;
    }
}

int main(int argc, char **argv)
{
    int size, buf[64] = {0}, buf2[64] = {0}, counts[8], displs[8];
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    MPI_Comm_set_errhandler(world, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    for (int i = 0; i < 8; i++)
        counts[i] = 1, displs[i] = i;

    expect_class(MPI_Bcast(buf, 1, MPI_INT, size, world), MPI_ERR_ROOT, "Bcast, root = size");
    expect_class(MPI_Gather(buf, 1, MPI_INT, buf2, 1, MPI_INT, -1, world), MPI_ERR_ROOT,
                 "Gather, root -1");
    expect_class(MPI_Bcast(buf, -1, MPI_INT, 0, world), MPI_ERR_COUNT, "Bcast, count -1");
    expect_class(MPI_Allgather(buf, -2, MPI_INT, buf2, 1, MPI_INT, world), MPI_ERR_COUNT,
                 "Allgather, sendcount -2");
    expect_class(MPI_Ibcast(NULL, 4, MPI_INT, 0, world, &req), MPI_ERR_BUFFER,
                 "Ibcast, NULL buffer");
    expect_class(MPI_Alltoall(buf, 1, MPI_INT, NULL, 1, MPI_INT, world), MPI_ERR_BUFFER,
                 "Alltoall, NULL recvbuf");
    expect_class(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, world), MPI_ERR_BUFFER,
                 "Bcast, MPI_IN_PLACE");
    expect_class(MPI_Allgather(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, world), MPI_ERR_BUFFER,
                 "Allgather, recvbuf MPI_IN_PLACE");
    expect_class(MPI_Alltoall_init(buf, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, world,
                                   MPI_INFO_NULL, &req),
                 MPI_ERR_BUFFER, "Alltoall_init, recvbuf MPI_IN_PLACE");
    /* in place at a non-root, and as the root's receive buffer */
    expect_class(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, rank == 0 ? MPI_IN_PLACE : buf2, 1,
                            MPI_INT, 0, world),
                 MPI_ERR_BUFFER, "Gather, MPI_IN_PLACE where not allowed");
    expect_class(MPI_Scatter(rank == 0 ? MPI_IN_PLACE : buf, 1, MPI_INT, MPI_IN_PLACE, 1,
                             MPI_INT, 0, world),
                 MPI_ERR_BUFFER, "Scatter, MPI_IN_PLACE where not allowed");

    /* the same memory given for both sides, where MPI_IN_PLACE is meant */
    expect_class(MPI_Gather(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, self), MPI_ERR_BUFFER,
                 "Gather on MPI_COMM_SELF, sendbuf = recvbuf");
    /* a nonblocking call is refused at once too, and makes no request */
    req = MPI_REQUEST_NULL;
    expect_class(MPI_Iscatter(buf, 1, MPI_INT, buf, 1, MPI_INT, 0, self, &req), MPI_ERR_BUFFER,
                 "Iscatter on MPI_COMM_SELF, recvbuf = sendbuf");
    if (req != MPI_REQUEST_NULL) {
        fprintf(stderr, "coll_move_errors: a refused MPI_Iscatter made a request\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    expect_class(MPI_Allgather(buf + rank, 1, MPI_INT, buf, 1, MPI_INT, world), MPI_ERR_BUFFER,
                 "Allgather, sendbuf = this rank's block of recvbuf");
    expect_class(MPI_Alltoall(buf, 1, MPI_INT, buf, 1, MPI_INT, world), MPI_ERR_BUFFER,
                 "Alltoall, sendbuf = recvbuf");
    expect_class(MPI_Reduce_local(buf, buf, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "Reduce_local, inbuf = inoutbuf");

    counts[size - 1] = -1;
    expect_class(MPI_Alltoallv(buf, counts, displs, MPI_INT, buf2, counts, displs, MPI_INT, world),
                 MPI_ERR_COUNT, "Alltoallv, a negative count");
    expect_class(MPI_Allgatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, world),
                 MPI_ERR_COUNT, "Allgatherv, a negative count");
    counts[0] = -3;
    expect_class(MPI_Gatherv(buf, 1, MPI_INT, buf2, counts, displs, MPI_INT, 0, self),
                 MPI_ERR_COUNT, "Gatherv on MPI_COMM_SELF, a negative count");
    expect_class(MPI_Iscatterv(buf, counts, displs, MPI_INT, buf2, 1, MPI_INT, 0, self, &req),
                 MPI_ERR_COUNT, "Iscatterv on MPI_COMM_SELF, a negative count");
    counts[0] = 1;
    expect_class(MPI_Gatherv(buf, 1, MPI_INT, buf2, NULL, displs, MPI_INT, 0, self), MPI_ERR_ARG,
                 "Gatherv on MPI_COMM_SELF, recvcounts NULL");
    MPI_Datatype types[8] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT,
                             MPI_INT, MPI_INT, MPI_INT, MPI_INT};
    types[0] = MPI_DATATYPE_NULL;
    counts[size - 1] = 1;
    expect_class(MPI_Alltoallw(buf, counts, displs, types, buf2, counts, displs, types, world),
                 MPI_ERR_TYPE, "Alltoallw, MPI_DATATYPE_NULL");

    expect_class(MPI_Neighbor_allgather(buf, 1, MPI_INT, buf2, 1, MPI_INT, world),
                 MPI_ERR_TOPOLOGY, "Neighbor_allgather without a topology");
    expect_class(MPI_Ineighbor_alltoallv(buf, counts, displs, MPI_INT, buf2, counts, displs,
                                         MPI_INT, world, &req),
                 MPI_ERR_TOPOLOGY, "Ineighbor_alltoallv without a topology");

    /* the communicator still works */
    buf[0] = rank == 0 ? 42 : 0;
    MPI_Bcast(buf, 1, MPI_INT, 0, world);
    if (buf[0] != 42) {
        fprintf(stderr, "coll_move_errors: rank %d: the bcast after the errors got %d\n", rank,
                buf[0]);
        failed = 1;
    }
    MPI_Finalize();
    if (!failed && rank == 0)
        printf("coll_move_errors: %d ranks OK\n", size);
    return failed;
}
