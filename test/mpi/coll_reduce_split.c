/* coll_reduce_split: MPI_Reduce on 2 ranks of one host from 128 KiB, where
 * both ranks reduce a part of the vector in each other's buffers
 * (coll/reduce_split.c), checked against the result computed here.
 *
 * Each root (0 and 1), in place at the root or not: doubles summed (whole
 * numbers, so the sum is exact), an odd count of ints with MPI_MAX, floats
 * with a commutative user op, a contiguous type of 3 doubles summed. The
 * non-root's receive buffer must stay untouched. Then, on a communicator
 * named "fallback", rank 1 gives its ints through a strided type of the
 * same signature (not contiguous, so it cannot take a part): both ranks
 * must then take the table's algorithm and still agree; so must they on
 * "mixed", where rank 1 gives pairs of ints for rank 0's ints. The script
 * checks which way the info log names. Prints "coll_reduce_split: OK" on
 * rank 0. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond) && failures++ < 10) {                                                      \
            fprintf(stderr, "coll_reduce_split: rank %d: ", rank);                            \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

enum { GUARD = 0x5a };

/* Rank r's element i, as a whole number that both types hold exactly. */
static double value(int r, long i)
{
    return (double)((i * 7 + r * 13) % 1000) - 500.0;
}

/* inout = the one of in and inout with the larger magnitude: commutative. */
static void larger_magnitude(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const float *a = in;
    float *b = inout;
    for (int i = 0; i < *len; i++)
        if ((a[i] < 0 ? -a[i] : a[i]) > (b[i] < 0 ? -b[i] : b[i]))
            b[i] = a[i];
}

static double expected_of(const char *what, long i)
{
    double a = value(0, i), b = value(1, i);
    if (strcmp(what, "max") == 0)
        return a > b ? a : b;
    if (strcmp(what, "magnitude") == 0)
        return (b < 0 ? -b : b) > (a < 0 ? -a : a) ? b : a;
    return a + b;
}

/* One reduce of n elements of `basic` (elements per `dt`: per), checked. */
static void reduce_once(const char *what, MPI_Datatype dt, MPI_Datatype basic, size_t basic_size,
                        long n, int per, MPI_Op op, int root, int in_place)
{
    long elems = n * per;
    size_t bytes = (size_t)elems * basic_size;
    char *send = malloc(bytes), *recv = malloc(bytes);
    if (!send || !recv) {
        fprintf(stderr, "coll_reduce_split: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < elems; i++) {
        double v = value(rank, i);
        if (basic == MPI_INT)
            ((int *)send)[i] = (int)v;
        else if (basic == MPI_FLOAT)
            ((float *)send)[i] = (float)v;
        else
            ((double *)send)[i] = v;
    }
    memset(recv, GUARD, bytes);
    if (rank == root && in_place)
        memcpy(recv, send, bytes);
    const void *from = rank == root && in_place ? MPI_IN_PLACE : send;
    int rc = MPI_Reduce(from, recv, (int)n, dt, op, root, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS, "%s (root %d, in place %d): MPI_Reduce returned %d", what, root,
          in_place, rc);
    for (long i = 0; rank == root && i < elems; i++) {
        double got = basic == MPI_INT     ? ((int *)recv)[i]
                     : basic == MPI_FLOAT ? ((float *)recv)[i]
                                          : ((double *)recv)[i];
        double want = expected_of(what, i);
        if (got != want) {
            CHECK(0, "%s (root %d, in place %d, %ld elements): [%ld] = %g, expected %g", what,
                  root, in_place, elems, i, got, want);
            break;
        }
    }
    for (size_t b = 0; rank != root && b < bytes; b++)
        if ((unsigned char)recv[b] != GUARD) {
            CHECK(0, "%s (root %d): the non-root's receive buffer changed at byte %zu", what,
                  root, b);
            break;
        }
    free(send);
    free(recv);
}

/* Rank 1's ints spread with a gap after each: the same signature as rank
 * 0's contiguous ints, in a type that is not contiguous. */
static void reduce_fallback(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "fallback");
    enum { N = 40000 }; /* 160000 bytes */
    int *send = malloc(2 * N * sizeof(int)), *recv = malloc(N * sizeof(int));
    MPI_Datatype spread, type = MPI_INT;
    MPI_Type_vector(1, 1, 2, MPI_INT, &spread);
    MPI_Type_create_resized(spread, 0, 2 * sizeof(int), &type);
    MPI_Type_commit(&type);
    for (long i = 0; i < N; i++) {
        send[rank == 1 ? 2 * i : i] = (int)value(rank, i);
        if (rank == 1)
            send[2 * i + 1] = -999999; /* a gap: never read */
    }
    int rc = MPI_Reduce(send, recv, N, rank == 1 ? type : MPI_INT, MPI_SUM, 0, comm);
    CHECK(rc == MPI_SUCCESS, "fallback: MPI_Reduce returned %d", rc);
    for (long i = 0; rank == 0 && i < N; i++)
        if (recv[i] != (int)expected_of("sum", i)) {
            CHECK(0, "fallback: [%ld] = %d, expected %d", i, recv[i], (int)expected_of("sum", i));
            break;
        }
    MPI_Type_free(&type);
    MPI_Type_free(&spread);
    MPI_Comm_free(&comm);
    free(send);
    free(recv);
}

/* Rank 0, the root, gives 2N ints and rank 1 N pairs of ints: one
 * signature, elements of two sizes, which cannot be split at one element
 * (a third of 2N ints and of N pairs end apart): both must take the
 * table's algorithm, on a communicator named "mixed". */
static void reduce_mixed_elements(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_name(comm, "mixed");
    enum { N = 20000 }; /* 160000 bytes; 2N - 2N/3 ints end before N - N/3 pairs */
    int *send = malloc(2 * N * sizeof(int)), *recv = malloc(2 * N * sizeof(int));
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    for (long i = 0; i < 2 * N; i++)
        send[i] = (int)value(rank, i);
    int rc = rank == 0 ? MPI_Reduce(send, recv, 2 * N, MPI_INT, MPI_SUM, 0, comm)
                       : MPI_Reduce(send, recv, N, pair, MPI_SUM, 0, comm);
    CHECK(rc == MPI_SUCCESS, "mixed: MPI_Reduce returned %d", rc);
    for (long i = 0; rank == 0 && i < 2 * N; i++)
        if (recv[i] != (int)expected_of("sum", i)) {
            CHECK(0, "mixed: [%ld] = %d, expected %d", i, recv[i], (int)expected_of("sum", i));
            break;
        }
    MPI_Type_free(&pair);
    MPI_Comm_free(&comm);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "coll_reduce_split: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Op magnitude;
    MPI_Op_create(larger_magnitude, 1, &magnitude);
    MPI_Datatype triple;
    MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
    MPI_Type_commit(&triple);
    for (int root = 0; root < 2; root++)
        for (int in_place = 0; in_place < 2; in_place++) {
            reduce_once("sum", MPI_DOUBLE, MPI_DOUBLE, sizeof(double), 40000, 1, MPI_SUM, root,
                        in_place);
            reduce_once("max", MPI_INT, MPI_INT, sizeof(int), 32771, 1, MPI_MAX, root,
                        in_place);
            reduce_once("magnitude", MPI_FLOAT, MPI_FLOAT, sizeof(float), 262147, 1, magnitude,
                        root, in_place);
            reduce_once("sum", triple, MPI_DOUBLE, sizeof(double), 6001, 3, MPI_SUM, root,
                        in_place);
        }
    reduce_fallback();
    reduce_mixed_elements();
    MPI_Type_free(&triple);
    MPI_Op_free(&magnitude);
    int all = 0;
    MPI_Reduce(&failures, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("coll_reduce_split: OK\n");
    MPI_Finalize();
    return all != 0;
}
