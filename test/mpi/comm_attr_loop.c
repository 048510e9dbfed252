/* comm_attr_loop: 10,000 MPI_Comm_dup/MPI_Comm_free pairs of a
 * communicator with attributes (copied by callback, by MPI_COMM_DUP_FN,
 * hints, a user error handler) leave the heap as it was: mallinfo2's bytes
 * in use after the loop are within a small margin of those after a
 * warm-up, and every copy has its delete. */
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PAIRS 10000
#define WARMUP 200
#define MARGIN (64 * 1024)

static long copies, deletes;

static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)k;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c;
    (void)k;
    (void)value;
    (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void dup_free(MPI_Comm base, int n)
{
    for (int i = 0; i < n; i++) {
        MPI_Comm c;
        MPI_Comm_dup(base, &c);
        MPI_Comm_free(&c);
    }
}

int main(int argc, char **argv)
{
    int rank, k1, k2;
    MPI_Comm base;
    MPI_Info info;
    MPI_Errhandler eh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &base);
    MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k2, NULL);
    MPI_Comm_set_attr(base, k1, (void *)1);
    MPI_Comm_set_attr(base, k2, (void *)2);
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm_set_info(base, info);
    MPI_Info_free(&info);
    MPI_Comm_create_errhandler(on_error, &eh);
    MPI_Comm_set_errhandler(base, eh);
    MPI_Errhandler_free(&eh);

    dup_free(base, WARMUP);
    size_t before = mallinfo2().uordblks;
    dup_free(base, PAIRS);
    size_t after = mallinfo2().uordblks;
    long grown = (long)after - (long)before;
    if (grown > MARGIN || copies != PAIRS + WARMUP || deletes != copies) {
        fprintf(stderr, "comm_attr_loop: rank %d: heap grew by %ld bytes over %d pairs; "
                "%ld copies, %ld deletes\n", rank, grown, PAIRS, copies, deletes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm_free(&base);
    MPI_Comm_free_keyval(&k1);
    MPI_Comm_free_keyval(&k2);
    if (rank == 0)
        printf("comm_attr_loop: heap grew by %ld bytes over %d pairs, OK\n", grown, PAIRS);
    MPI_Finalize();
    return 0;
}
