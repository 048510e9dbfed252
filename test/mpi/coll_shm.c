/* coll_shm: the blocking collectives that the shared-memory path covers
 * (barrier, bcast, reduce, allreduce, gather, scatter, allgather, alltoall,
 * reduce_scatter_block), on the world, on split communicators and on
 * MPI_Comm_split_type(SHARED) ones: counts 0, 1, odd, at the path's limit
 * and one past it (OMPI_LITE_COLL_SHM_MAX_BYTES, read here too), several
 * slots' worth and an odd rest (the pieces of bcast and reduce on 3 or
 * more ranks), one past the pieces' limit where that is small
 * (OMPI_LITE_COLL_SHM_PIECES_BYTES, read too), in place
 * and not, a non-contiguous type on one side only, a non-commutative user op
 * (2x2 matrix product) checked against a product in rank order, 2000
 * back-to-back allreduces and bcasts (of 132 B and 8 KiB) and 8 KiB reduces
 * with changing data (slots reused while a slow rank may still read them),
 * and 300 communicators created, used and freed, after which /dev/shm must
 * hold no segment of this process. Plain MPI: it passes on any MPI; the
 * script checks that ompi-lite's log names the path. */
#include <mpi.h>

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int world_rank;
static int limit_bytes = 32768;    /* the default of COLL_SHM_MAX_BYTES */
/* the default of COLL_SHM_PIECES_BYTES; coll_shm_limits.sh sets the
 * reduce's limit (COLL_SHM_REDUCE_PIECES_BYTES) to the same value */
static int pieces_bytes = 1048576;

static void check(int ok, const char *fmt, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "coll_shm: rank %d: ", world_rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int value(int rank, int i, int salt)
{
    return rank * 100003 + i * 7 + salt;
}

/* The sum over the ranks of value(rank, i, salt), as MPI_SUM of MPI_INT
 * gives it. */
static int sum_of_values(int size, int i, int salt)
{
    long long e = 0;
    for (int q = 0; q < size; q++)
        e += value(q, i, salt);
    return (int)e;
}

static int *ints(size_t n)
{
    int *p = calloc(n ? n : 1, sizeof(int));
    check(p != NULL, "out of memory");
    return p;
}

/* A vector type over n ints spaced 2 apart: the same signature as n ints. */
static MPI_Datatype strided(int n)
{
    MPI_Datatype t;
    MPI_Type_vector(n, 1, 2, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

/* Element counts for a call of at most per_rank_limit elements of
 * elem_bytes per rank in a slot: 0, 1, odd, at the limit, one past it,
 * three slots and an odd rest; one past the pieces' limit where that costs
 * little. */
static int counts(int per_rank_limit, int elem_bytes, int out[7])
{
    int n = 0;
    out[n++] = 0;
    out[n++] = 1;
    out[n++] = 7;
    out[n++] = per_rank_limit;
    out[n++] = per_rank_limit + 1;
    out[n++] = 3 * per_rank_limit + 5;
    if (pieces_bytes <= 65536)
        out[n++] = pieces_bytes / elem_bytes + 1;
    return n;
}

/* ---- the data-movement collectives -------------------------------------- */

static void test_bcast(MPI_Comm comm, int rank, int size, int n, int salt)
{
    for (int root = 0; root < size; root += size - 1 > 0 ? size - 1 : 1) {
        /* the root's data is strided, the others' contiguous */
        int *buf = ints(2 * (size_t)n);
        if (rank == root) {
            for (int i = 0; i < n; i++)
                buf[2 * i] = value(root, i, salt);
            MPI_Datatype t = strided(n);
            MPI_Bcast(buf, 1, t, root, comm);
            MPI_Type_free(&t);
        } else {
            MPI_Bcast(buf, n, MPI_INT, root, comm);
            for (int i = 0; i < n; i++)
                check(buf[i] == value(root, i, salt), "bcast n=%d root=%d [%d]", n, root, i);
        }
        free(buf);
        if (size == 1)
            break;
    }
}

static void test_gather(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    int root = size - 1;
    int *send = ints(2 * (size_t)n), *recv = ints((size_t)n * size);
    for (int i = 0; i < n; i++)
        send[2 * i] = value(rank, i, 1);
    MPI_Datatype t = strided(n); /* senders strided, the root contiguous */
    if (rank == root && in_place) {
        for (int i = 0; i < n; i++)
            recv[(size_t)root * n + i] = value(root, i, 1);
        MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, root, comm);
    } else {
        MPI_Gather(send, 1, t, recv, n, MPI_INT, root, comm);
    }
    if (rank == root)
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                check(recv[(size_t)q * n + i] == value(q, i, 1), "gather n=%d from %d [%d]", n, q,
                      i);
    MPI_Type_free(&t);
    free(send);
    free(recv);
}

static void test_scatter(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    int root = 0;
    int *send = ints((size_t)n * size), *recv = ints(2 * (size_t)n);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++)
            send[(size_t)q * n + i] = value(q, i, 2);
    MPI_Datatype t = strided(n); /* receivers strided, the root contiguous */
    if (rank == root && in_place) {
        MPI_Scatter(send, n, MPI_INT, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm);
        for (int i = 0; i < n; i++)
            check(send[i] == value(root, i, 2), "scatter in place n=%d [%d]", n, i);
    } else {
        MPI_Scatter(send, n, MPI_INT, recv, 1, t, root, comm);
        for (int i = 0; i < n; i++)
            check(recv[2 * i] == value(rank, i, 2), "scatter n=%d [%d]", n, i);
    }
    MPI_Type_free(&t);
    free(send);
    free(recv);
}

static void test_allgather(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    int *send = ints(2 * (size_t)n), *recv = ints((size_t)n * size);
    for (int i = 0; i < n; i++)
        send[2 * i] = value(rank, i, 3);
    if (in_place) {
        for (int i = 0; i < n; i++)
            recv[(size_t)rank * n + i] = value(rank, i, 3);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm);
    } else {
        MPI_Datatype t = strided(n);
        MPI_Allgather(send, 1, t, recv, n, MPI_INT, comm);
        MPI_Type_free(&t);
    }
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++)
            check(recv[(size_t)q * n + i] == value(q, i, 3), "allgather n=%d from %d [%d]", n, q, i);
    free(send);
    free(recv);
}

static void test_alltoall(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    int *send = ints((size_t)n * size), *recv = ints((size_t)n * size);
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++)
            send[(size_t)q * n + i] = value(rank, i, 100 * q);
    if (in_place) {
        memcpy(recv, send, sizeof(int) * (size_t)n * size);
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, n, MPI_INT, comm);
    } else {
        MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, comm);
    }
    for (int q = 0; q < size; q++)
        for (int i = 0; i < n; i++)
            check(recv[(size_t)q * n + i] == value(q, i, 100 * rank), "alltoall n=%d from %d [%d]",
                  n, q, i);
    free(send);
    free(recv);
}

/* ---- reductions ------------------------------------------------------------ */

/* 2x2 matrices of unsigned ints (wrapping): a product is not commutative. */
typedef struct {
    unsigned m[4];
} mat_t;

static mat_t mat_of(int rank, int i, int salt)
{
    return (mat_t){{1u + (unsigned)rank, (unsigned)(i + salt), (unsigned)(rank * i % 5), 1u}};
}

static mat_t mat_mul(mat_t a, mat_t b)
{
    return (mat_t){{a.m[0] * b.m[0] + a.m[1] * b.m[2], a.m[0] * b.m[1] + a.m[1] * b.m[3],
                    a.m[2] * b.m[0] + a.m[3] * b.m[2], a.m[2] * b.m[1] + a.m[3] * b.m[3]}};
}

/* inout = in * inout: in is the lower rank's */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat_t *a = in, *b = inout;
    for (int k = 0; k < *len; k++)
        b[k] = mat_mul(a[k], b[k]);
}

static MPI_Datatype mat_type;
static MPI_Op mat_product;

static mat_t mat_expected(int size, int i, int salt)
{
    mat_t r = mat_of(0, i, salt);
    for (int q = 1; q < size; q++)
        r = mat_mul(r, mat_of(q, i, salt));
    return r;
}

static void check_mats(const mat_t *got, int n, int first, int size, int salt, const char *what)
{
    for (int i = 0; i < n; i++) {
        mat_t e = mat_expected(size, first + i, salt);
        check(memcmp(&got[i], &e, sizeof(e)) == 0, "%s n=%d: matrix %d out of rank order", what,
              n, first + i);
    }
}

static void test_allreduce(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    int *send = ints((size_t)n), *recv = ints((size_t)n);
    for (int i = 0; i < n; i++)
        send[i] = value(rank, i, 4);
    if (in_place) {
        memcpy(recv, send, sizeof(int) * (size_t)n);
        MPI_Allreduce(MPI_IN_PLACE, recv, n, MPI_INT, MPI_SUM, comm);
    } else {
        MPI_Allreduce(send, recv, n, MPI_INT, MPI_SUM, comm);
    }
    for (int i = 0; i < n; i++)
        check(recv[i] == sum_of_values(size, i, 4), "allreduce sum n=%d [%d]", n, i);
    free(send);
    free(recv);
}

/* A strided type on every rank: reductions on non-contiguous data. */
static void test_allreduce_strided(MPI_Comm comm, int rank, int size, int n)
{
    int *send = ints(2 * (size_t)n), *recv = ints(2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        send[2 * i] = value(rank, i, 5);
        recv[2 * i + 1] = -1; /* the gaps stay untouched */
    }
    MPI_Datatype r; /* an int, then a gap of one */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &r);
    MPI_Type_commit(&r);
    MPI_Allreduce(send, recv, n, r, MPI_MAX, comm);
    for (int i = 0; i < n; i++) {
        check(recv[2 * i] == value(size - 1, i, 5), "allreduce strided n=%d [%d]", n, i);
        check(recv[2 * i + 1] == -1, "allreduce strided n=%d wrote a gap", n);
    }
    MPI_Type_free(&r);
    free(send);
    free(recv);
}

static void test_allreduce_user(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    mat_t *send = calloc((size_t)n + 1, sizeof(mat_t)), *recv = calloc((size_t)n + 1, sizeof(mat_t));
    for (int i = 0; i < n; i++)
        send[i] = recv[i] = mat_of(rank, i, 6);
    MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, n, mat_type, mat_product, comm);
    check_mats(recv, n, 0, size, 6, "allreduce matrix product");
    free(send);
    free(recv);
}

static void test_reduce(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    for (int root = 0; root < size; root += size - 1 > 0 ? size - 1 : 1) {
        mat_t *send = calloc((size_t)n + 1, sizeof(mat_t)),
              *recv = calloc((size_t)n + 1, sizeof(mat_t));
        for (int i = 0; i < n; i++)
            send[i] = recv[i] = mat_of(rank, i, 7);
        int at_root = rank == root;
        MPI_Reduce(at_root && in_place ? MPI_IN_PLACE : send, recv, n, mat_type, mat_product, root,
                   comm);
        if (at_root)
            check_mats(recv, n, 0, size, 7, "reduce matrix product");
        int *isend = ints((size_t)n), *irecv = ints((size_t)n);
        for (int i = 0; i < n; i++)
            isend[i] = irecv[i] = value(rank, i, 8);
        MPI_Reduce(at_root && in_place ? MPI_IN_PLACE : isend, irecv, n, MPI_INT, MPI_SUM, root,
                   comm);
        for (int i = 0; at_root && i < n; i++)
            check(irecv[i] == sum_of_values(size, i, 8), "reduce sum n=%d root=%d [%d]", n, root,
                  i);
        free(send);
        free(recv);
        free(isend);
        free(irecv);
        if (size == 1)
            break;
    }
}

static void test_reduce_scatter_block(MPI_Comm comm, int rank, int size, int n, int in_place)
{
    size_t total = (size_t)n * size;
    mat_t *send = calloc(total + 1, sizeof(mat_t)), *recv = calloc(total + 1, sizeof(mat_t));
    for (size_t i = 0; i < total; i++)
        send[i] = recv[i] = mat_of(rank, (int)i, 9);
    MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send, recv, n, mat_type, mat_product, comm);
    check_mats(recv, n, rank * n, size, 9, "reduce_scatter_block matrix product");
    free(send);
    free(recv);
}

/* ---- the grid --------------------------------------------------------------- */

static void run_grid(MPI_Comm comm)
{
    int rank, size, c[7];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int one = limit_bytes / (int)sizeof(int);        /* ints per rank at the limit */
    int per_block = one / size;                       /* scatter, alltoall */
    int mats = limit_bytes / (int)sizeof(mat_t);      /* matrices per rank */
    MPI_Barrier(comm);
    for (int k = 0; k < counts(one, (int)sizeof(int), c); k++) {
        test_bcast(comm, rank, size, c[k], k);
        test_allgather(comm, rank, size, c[k], k % 2);
        test_allgather(comm, rank, size, c[k], 1 - k % 2);
        test_gather(comm, rank, size, c[k], 0);
        test_gather(comm, rank, size, c[k], 1);
        test_allreduce(comm, rank, size, c[k], 0);
        test_allreduce(comm, rank, size, c[k], 1);
        test_allreduce_strided(comm, rank, size, c[k]);
        MPI_Barrier(comm);
    }
    for (int k = 0; k < counts(per_block, (int)sizeof(int) * size, c); k++) {
        test_scatter(comm, rank, size, c[k], 0);
        test_scatter(comm, rank, size, c[k], 1);
        test_alltoall(comm, rank, size, c[k], 0);
        test_alltoall(comm, rank, size, c[k], 1);
    }
    for (int k = 0; k < counts(mats, (int)sizeof(mat_t), c); k++) {
        test_allreduce_user(comm, rank, size, c[k], k % 2);
        test_reduce(comm, rank, size, c[k], 0);
        test_reduce(comm, rank, size, c[k], 1);
    }
    for (int k = 0; k < counts(mats / size, (int)sizeof(mat_t) * size, c); k++) {
        test_reduce_scatter_block(comm, rank, size, c[k], 0);
        test_reduce_scatter_block(comm, rank, size, c[k], 1);
    }
}

/* Back to back, data changing every call: a rank that ran ahead into a
 * slot still being read would show here. */
static void run_repetitions(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { N = 33, BIG = 2048 }; /* BIG: 8 KiB, which takes the segment on 2 ranks too */
    int v[N], r[N];
    int *big = malloc(BIG * sizeof(int));
    for (int it = 0; it < 2000; it++) {
        for (int i = 0; i < N; i++)
            v[i] = value(rank, i, it);
        MPI_Allreduce(v, r, N, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < N; i++)
            check(r[i] == sum_of_values(size, i, it), "allreduce repetition %d [%d]", it, i);
        int root = it % size;
        for (int i = 0; i < N; i++)
            v[i] = rank == root ? value(root, i, it) : -1;
        MPI_Bcast(v, N, MPI_INT, root, comm);
        for (int i = 0; i < N; i++)
            check(v[i] == value(root, i, it), "bcast repetition %d [%d]", it, i);
        for (int i = 0; i < BIG; i++)
            big[i] = rank == root ? value(root, i, it) : -1;
        MPI_Bcast(big, BIG, MPI_INT, root, comm);
        for (int i = 0; i < BIG; i++)
            check(big[i] == value(root, i, it), "8 KiB bcast repetition %d [%d]", it, i);
        for (int i = 0; i < BIG; i++)
            big[i] = value(rank, i, it);
        MPI_Reduce(rank == root ? MPI_IN_PLACE : big, big, BIG, MPI_INT, MPI_SUM, root, comm);
        for (int i = 0; rank == root && i < BIG; i++)
            check(big[i] == sum_of_values(size, i, it), "8 KiB reduce repetition %d [%d]", it, i);
        for (int i = 0; i < BIG; i++)
            big[i] = value(rank, i, it);
        MPI_Allreduce(MPI_IN_PLACE, big, BIG, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < BIG; i++)
            check(big[i] == sum_of_values(size, i, it), "8 KiB allreduce repetition %d [%d]", it,
                  i);
    }
    free(big);
}

/* Segments are files only until every member has mapped them. */
static void check_no_segment_left(void)
{
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "ompi-lite-coll-%d-", (int)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        check(strncmp(e->d_name, prefix, strlen(prefix)) != 0, "/dev/shm/%s was left behind",
              e->d_name);
    closedir(d);
}

static void run_comm_loop(void)
{
    for (int it = 0; it < 300; it++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
        int size;
        MPI_Comm_size(dup, &size);
        check(sum == size, "allreduce on dup %d", it);
        MPI_Comm_free(&dup);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_no_segment_left();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    const char *limit = getenv("OMPI_LITE_COLL_SHM_MAX_BYTES");
    if (limit)
        limit_bytes = atoi(limit);
    const char *pieces = getenv("OMPI_LITE_COLL_SHM_PIECES_BYTES");
    if (pieces)
        pieces_bytes = atoi(pieces);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(mat_op, 0, &mat_product);

    run_grid(MPI_COMM_WORLD);
    MPI_Comm halves, shared;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &halves);
    run_grid(halves);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
    run_grid(shared);
    run_repetitions(MPI_COMM_WORLD);
    run_repetitions(halves);
    MPI_Comm_free(&halves);
    MPI_Comm_free(&shared);
    run_comm_loop();

    MPI_Op_free(&mat_product);
    MPI_Type_free(&mat_type);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (world_rank == 0)
        printf("coll_shm: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
