/* coll_reduce: the reduction collectives (Reduce, Allreduce,
 * Reduce_scatter, Reduce_scatter_block, Scan, Exscan) checked against a
 * reference computed here from every rank's known input.
 *
 * usage: coll_reduce grid | repro | nonblocking | errors
 *   grid: every collective x counts 0, 1, 7, 100000 x in place or not x
 *         types and ops (int, double, float complex, MINLOC pairs, a
 *         contiguous of 3 doubles, a vector, a commutative user op, a 2x2
 *         matrix product, which does not commute), plus intercommunicators.
 *         Algorithms are forced by the environment (coll_reduce.sh).
 *   repro: floating-point sums of awkward values; prints a checksum of the
 *         bits, which coll_reduce.sh compares across forced algorithms
 *         (OMPI_LITE_REPRODUCIBLE=1); reduce, allreduce and reduce_scatter
 *         must also agree bitwise inside the run.
 *   nonblocking: I... collectives interleaved with point-to-point, and a
 *         persistent allreduce started 100 times.
 *   errors: bad arguments answered with the right error class.
 * Prints "coll_reduce MODE: OK" on rank 0 when every check passed. */
#include <mpi.h>

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            if (failures++ < 10) {                                                             \
                fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);                 \
                fprintf(stderr, __VA_ARGS__);                                                  \
                fputc('\n', stderr);                                                           \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* ---- the cases: a datatype, an op, how to fill and combine elements -------- */

enum { PRIME = 1009 };

/* 2x2 integer matrices mod PRIME: inout = in * inout (in is the lower rank). */
static void matmul(void *in_, void *inout_, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in_;
    int *b = inout_;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) % PRIME, (a[0] * b[1] + a[1] * b[3]) % PRIME,
                    (a[2] * b[0] + a[3] * b[2]) % PRIME, (a[2] * b[1] + a[3] * b[3]) % PRIME};
        memcpy(b, c, sizeof(c));
    }
}

static void user_sum(void *in_, void *inout_, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in_;
    int *b = inout_;
    for (int k = 0; k < *len; k++)
        b[k] += a[k];
}

typedef struct {
    double value;
    int index;
} double_int_t;

typedef enum {
    C_INT, C_DOUBLE, C_COMPLEX, C_MINLOC, C_DBL3, C_VECTOR, C_USER, C_MATRIX, NCASES
} case_t;
static const char *case_names[] = {"int sum",   "double sum", "float complex sum",
                                   "double_int minloc", "3-double contiguous sum",
                                   "vector max", "user sum", "2x2 matrix product"};

typedef struct {
    MPI_Datatype dt;
    MPI_Op op;
    size_t extent; /* bytes per element in memory */
} setup_t;

static setup_t setups[NCASES];

static void make_setups(void)
{
    MPI_Datatype dbl3, vec, mat;
    MPI_Type_contiguous(3, MPI_DOUBLE, &dbl3);
    MPI_Type_commit(&dbl3);
    /* 2 doubles, stride 2: elements 0 and 2 of each 4-double stretch, then
     * resized so that consecutive elements interleave nothing */
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, 4 * sizeof(double), &vec);
    MPI_Type_free(&v);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Op user, matop;
    MPI_Op_create(user_sum, 1, &user);
    MPI_Op_create(matmul, 0, &matop);
    setups[C_INT] = (setup_t){MPI_INT, MPI_SUM, sizeof(int)};
    setups[C_DOUBLE] = (setup_t){MPI_DOUBLE, MPI_SUM, sizeof(double)};
    setups[C_COMPLEX] = (setup_t){MPI_C_FLOAT_COMPLEX, MPI_SUM, sizeof(float complex)};
    setups[C_MINLOC] = (setup_t){MPI_DOUBLE_INT, MPI_MINLOC, sizeof(double_int_t)};
    setups[C_DBL3] = (setup_t){dbl3, MPI_SUM, 3 * sizeof(double)};
    setups[C_VECTOR] = (setup_t){vec, MPI_MAX, 4 * sizeof(double)};
    setups[C_USER] = (setup_t){MPI_INT, user, sizeof(int)};
    setups[C_MATRIX] = (setup_t){mat, matop, 4 * sizeof(int)};
}

static void free_setups(void)
{
    MPI_Type_free(&setups[C_DBL3].dt);
    MPI_Type_free(&setups[C_VECTOR].dt);
    MPI_Type_free(&setups[C_MATRIX].dt);
    MPI_Op_free(&setups[C_USER].op);
    MPI_Op_free(&setups[C_MATRIX].op);
}

/* Element i of rank r's input; values keep sums exact in every type. */
static void fill(case_t c, void *buf, long i, int r)
{
    int v = (int)((i * 7 + r * 13) % 97) - 40;
    switch (c) {
    case C_INT:
    case C_USER: *(int *)buf = v; break;
    case C_DOUBLE: *(double *)buf = v * 0.5; break;
    case C_COMPLEX: *(float complex *)buf = v + (r - v % 5) * I; break;
    case C_MINLOC: *(double_int_t *)buf = (double_int_t){(double)((v * v) % 11), r}; break;
    case C_DBL3:
        for (int k = 0; k < 3; k++)
            ((double *)buf)[k] = v + k * 0.25;
        break;
    case C_VECTOR: /* the holes (1 and 3) keep a marker */
        for (int k = 0; k < 4; k++)
            ((double *)buf)[k] = k % 2 ? -1000.0 - k : v * 1.5 + k;
        break;
    case C_MATRIX: {
        int *m = buf; /* upper/lower triangular mixes do not commute */
        m[0] = 1 + (r + i) % 5, m[1] = (r * 3 + i) % 7, m[2] = (r + 2 * i) % 3, m[3] = 1 + r % 4;
        break;
    }
    default: break;
    }
}

/* acc = acc op x (acc covers lower ranks). */
static void combine(case_t c, void *acc, const void *x)
{
    switch (c) {
    case C_INT:
    case C_USER: *(int *)acc += *(const int *)x; break;
    case C_DOUBLE: *(double *)acc += *(const double *)x; break;
    case C_COMPLEX: *(float complex *)acc += *(const float complex *)x; break;
    case C_MINLOC: {
        double_int_t *a = acc;
        const double_int_t *b = x;
        if (b->value < a->value || (b->value == a->value && b->index < a->index))
            *a = *b;
        break;
    }
    case C_DBL3:
        for (int k = 0; k < 3; k++)
            ((double *)acc)[k] += ((const double *)x)[k];
        break;
    case C_VECTOR:
        for (int k = 0; k < 4; k += 2)
            if (((const double *)x)[k] > ((double *)acc)[k])
                ((double *)acc)[k] = ((const double *)x)[k];
        break;
    case C_MATRIX: {
        int tmp[4];
        memcpy(tmp, x, sizeof(tmp));
        int len = 1;
        matmul(acc, tmp, &len, NULL); /* tmp = acc * x */
        memcpy(acc, tmp, sizeof(tmp));
        break;
    }
    default: break;
    }
}

/* Reference reduction of element i over ranks lo..hi-1 in rank order. */
static void reference(case_t c, void *out, long i, int lo, int hi)
{
    unsigned char x[64];
    fill(c, out, i, lo);
    for (int r = lo + 1; r < hi; r++) {
        fill(c, x, i, r);
        combine(c, out, x);
    }
}

static bool same(case_t c, const void *a, const void *b)
{
    if (c == C_VECTOR) { /* data at 0 and 2; the holes are not ours to compare */
        const double *x = a, *y = b;
        return x[0] == y[0] && x[2] == y[2];
    }
    if (c == C_MINLOC) {
        const double_int_t *x = a, *y = b;
        return x->value == y->value && x->index == y->index;
    }
    return memcmp(a, b, setups[c].extent) == 0;
}

/* ---- the grid ---------------------------------------------------------------- */

typedef enum { K_REDUCE, K_ALLREDUCE, K_RSB, K_RS, K_SCAN, K_EXSCAN, NKINDS } kind_t;
static const char *kind_names[] = {"reduce", "allreduce", "reduce_scatter_block",
                                   "reduce_scatter", "scan", "exscan"};

/* Checks element k of recv, which should hold the reduction of element i
 * over ranks lo..hi-1. */
static void expect(case_t c, kind_t kind, const char *buf, long k, long i, int lo, int hi,
                   long n, int in_place)
{
    unsigned char want[64];
    reference(c, want, i, lo, hi);
    const void *got = buf + k * setups[c].extent;
    CHECK(same(c, got, want), "%s %s n=%ld in_place=%d: element %ld wrong", kind_names[kind],
          case_names[c], n, in_place, i);
}

static void run_case(kind_t kind, case_t c, long n, int in_place, int root)
{
    setup_t *s = &setups[c];
    /* reduce_scatter: rank r gets r % 3 + n blocks-worth; block form: n each */
    long *counts = malloc(sizeof(long) * (size_t)size), total = 0, mine_at = 0;
    int *icounts = malloc(sizeof(int) * (size_t)size);
    /* the scatters' whole vector stays near n elements, not p n */
    long block = (kind == K_RS || kind == K_RSB) && n > 1000 ? n / size : n;
    for (int r = 0; r < size; r++) {
        counts[r] = kind == K_RS ? (r % 3 == 1 ? 0 : block + r % 3) : block;
        icounts[r] = (int)counts[r];
        if (r < rank)
            mine_at += counts[r];
        total += counts[r];
    }
    long vec = (kind == K_RS || kind == K_RSB) ? total : n;
    size_t bytes = (size_t)(vec + 1) * s->extent;
    char *send = malloc(bytes), *recv = malloc(bytes);
    for (long i = 0; i < vec; i++)
        fill(c, send + i * s->extent, i, rank);
    memset(recv, 0x5a, bytes);
    const void *sb = send;
    if (in_place && (kind != K_REDUCE || rank == root)) {
        memcpy(recv, send, (size_t)vec * s->extent);
        sb = MPI_IN_PLACE;
    }
    int rc = MPI_SUCCESS;
    switch (kind) {
    case K_REDUCE: rc = MPI_Reduce(sb, recv, (int)n, s->dt, s->op, root, MPI_COMM_WORLD); break;
    case K_ALLREDUCE: rc = MPI_Allreduce(sb, recv, (int)n, s->dt, s->op, MPI_COMM_WORLD); break;
    case K_RSB:
        rc = MPI_Reduce_scatter_block(sb, recv, (int)block, s->dt, s->op, MPI_COMM_WORLD);
        break;
    case K_RS: rc = MPI_Reduce_scatter(sb, recv, icounts, s->dt, s->op, MPI_COMM_WORLD); break;
    case K_SCAN: rc = MPI_Scan(sb, recv, (int)n, s->dt, s->op, MPI_COMM_WORLD); break;
    case K_EXSCAN: rc = MPI_Exscan(sb, recv, (int)n, s->dt, s->op, MPI_COMM_WORLD); break;
    default: break;
    }
    CHECK(rc == MPI_SUCCESS, "%s %s: error %d", kind_names[kind], case_names[c], rc);
    /* big vectors: check a sample of elements, the ends included */
    long step = n > 1000 ? 997 : 1;
    switch (kind) {
    case K_REDUCE:
        if (rank != root)
            break;
        /* fall through */
    case K_ALLREDUCE:
        for (long i = 0; i < n; i += step)
            expect(c, kind, recv, i, i, 0, size, n, in_place);
        if (n)
            expect(c, kind, recv, n - 1, n - 1, 0, size, n, in_place);
        break;
    case K_RSB:
    case K_RS:
        for (long k = 0; k < counts[rank]; k += step)
            expect(c, kind, recv, k, mine_at + k, 0, size, n, in_place);
        break;
    case K_SCAN:
        for (long i = 0; i < n; i += step)
            expect(c, kind, recv, i, i, 0, rank + 1, n, in_place);
        break;
    case K_EXSCAN:
        for (long i = 0; rank > 0 && i < n; i += step)
            expect(c, kind, recv, i, i, 0, rank, n, in_place);
        break;
    default: break;
    }
    free(send);
    free(recv);
    free(counts);
    free(icounts);
}

static void grid(void)
{
    static const long counts[] = {0, 1, 7, 100000};
    for (int kind = 0; kind < NKINDS; kind++)
        for (int c = 0; c < NCASES; c++)
            for (int ci = 0; ci < 4; ci++) {
                /* the large count for a few cases only: time */
                if (counts[ci] > 1000 && c != C_DOUBLE && c != C_MATRIX && c != C_VECTOR)
                    continue;
                for (int in_place = 0; in_place < 2; in_place++) {
                    run_case(kind, c, counts[ci], in_place, 0);
                    if (kind == K_REDUCE && size > 1)
                        run_case(kind, c, counts[ci], in_place, size - 1);
                }
            }
}

/* Intercommunicator forms: the lower half and the upper half of the world. */
static void intercomm(void)
{
    if (size < 2)
        return;
    int low = rank < size / 2, lsize = low ? size / 2 : size - size / 2;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter);
    int lrank;
    MPI_Comm_rank(local, &lrank);
    /* the other group: world ranks [olo, ohi) */
    int olo = low ? size / 2 : 0, ohi = low ? size : size / 2;
    enum { N = 5 };
    int send[N * 8], recv[N * 8], want;
    for (int i = 0; i < N * lsize; i++)
        send[i] = rank * 100 + i;
    MPI_Allreduce(send, recv, N, MPI_INT, MPI_SUM, inter);
    for (int i = 0; i < N; i++) {
        want = 0;
        for (int r = olo; r < ohi; r++)
            want += r * 100 + i;
        CHECK(recv[i] == want, "intercomm allreduce element %d: %d, want %d", i, recv[i], want);
    }
    /* reduce to the upper group's rank 0 */
    int root = low ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    memset(recv, 0, sizeof(recv));
    MPI_Reduce(send, recv, N, MPI_INT, MPI_SUM, root, inter);
    if (root == MPI_ROOT)
        for (int i = 0; i < N; i++) {
            want = 0;
            for (int r = 0; r < size / 2; r++)
                want += r * 100 + i;
            CHECK(recv[i] == want, "intercomm reduce element %d: %d, want %d", i, recv[i], want);
        }
    /* reduce_scatter_block: both groups' vectors must have the same length */
    if (size % 2 == 0) {
        MPI_Reduce_scatter_block(send, recv, N, MPI_INT, MPI_SUM, inter);
        for (int k = 0; k < N; k++) {
            want = 0;
            for (int r = olo; r < ohi; r++)
                want += r * 100 + lrank * N + k;
            CHECK(recv[k] == want, "intercomm reduce_scatter_block element %d", k);
        }
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* ---- reproducibility ---------------------------------------------------------- */

static uint64_t checksum(const double *x, long n)
{
    uint64_t h = 1469598103934665603ULL;
    for (long i = 0; i < n; i++) {
        uint64_t bits;
        memcpy(&bits, &x[i], sizeof(bits));
        h = (h ^ bits) * 1099511628211ULL;
    }
    return h;
}

static void repro(void)
{
    enum { N = 1 << 17 };
    double *send = malloc(sizeof(double) * N), *all = malloc(sizeof(double) * N);
    double *red = malloc(sizeof(double) * N), *part = malloc(sizeof(double) * N);
    uint64_t sum = 0;
    for (long n = 1; n <= N; n *= 8) {
        for (long i = 0; i < n; i++) /* magnitudes that make the order matter */
            send[i] = 1.0 / (3.0 + rank + i % 17) * (rank % 2 ? 1e8 : 1e-3);
        MPI_Allreduce(send, all, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Reduce(send, red, (int)n, MPI_DOUBLE, MPI_SUM, size - 1, MPI_COMM_WORLD);
        if (rank == size - 1)
            CHECK(checksum(all, n) == checksum(red, n), "n=%ld: reduce and allreduce differ", n);
        long block = n / size;
        if (block) {
            MPI_Reduce_scatter_block(send, part, (int)block, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            CHECK(checksum(all + rank * block, block) == checksum(part, block),
                  "n=%ld: reduce_scatter_block and allreduce differ", n);
        }
        sum ^= checksum(all, n) + (uint64_t)n;
    }
    if (rank == 0)
        printf("coll_reduce repro: checksum %016llx\n", (unsigned long long)sum);
    free(send);
    free(all);
    free(red);
    free(part);
}

/* ---- nonblocking and persistent ------------------------------------------------- */

static void nonblocking(void)
{
    enum { N = 50000 };
    int *send = malloc(sizeof(int) * N), *recv = malloc(sizeof(int) * N);
    int *scan = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        send[i] = rank + i;
    MPI_Request req[2];
    MPI_Iallreduce(send, recv, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Iscan(send, scan, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[1]);
    /* point-to-point round the ring while the collectives are in flight */
    int token = rank, got = -1;
    for (int lap = 0; lap < 20; lap++) {
        MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT,
                     (rank - 1 + size) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token = got;
    }
    CHECK(token == ((rank - 20) % size + size) % size, "the token went astray: %d", token);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i += 101) {
        CHECK(recv[i] == size * (size - 1) / 2 + size * i, "iallreduce element %d", i);
        CHECK(scan[i] == rank * (rank + 1) / 2 + (rank + 1) * i, "iscan element %d", i);
    }
    /* persistent: started 100 times, the input changing in between */
    MPI_Request p;
    int x, sum;
    MPI_Allreduce_init(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &p);
    for (int k = 0; k < 100; k++) {
        x = rank * k;
        MPI_Start(&p);
        MPI_Wait(&p, MPI_STATUS_IGNORE);
        CHECK(sum == k * size * (size - 1) / 2, "persistent allreduce start %d: %d", k, sum);
    }
    MPI_Request_free(&p);
    /* the other persistent and nonblocking forms, once each */
    MPI_Request r[4];
    int a = rank + 1, b = 0, c = 0, d = 0, e = 0;
    MPI_Reduce_init(&a, &b, 1, MPI_INT, MPI_PROD, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Exscan_init(&a, &c, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Startall(2, r);
    MPI_Ireduce_scatter_block(send, &d, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]);
    MPI_Iexscan(&a, &e, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    int fact = 1;
    for (int k = 2; k <= size; k++)
        fact *= k;
    CHECK(rank != 0 || size > 12 || b == fact, "reduce_init: %d, want %d", b, fact);
    CHECK(rank == 0 || c == rank * (rank + 1) / 2, "exscan_init: %d", c);
    CHECK(d == size * (size - 1) / 2 + size * rank, "ireduce_scatter_block: %d", d);
    CHECK(rank == 0 || e == rank, "iexscan max: %d", e);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    free(send);
    free(recv);
    free(scan);
}

/* ---- errors --------------------------------------------------------------------- */

static void expect_class(int rc, int want, const char *what)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, want %d", what, cls, want);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* MPI_Reduce_local's */
    int a[4] = {1, 2, 3, 4}, b[4];
    expect_class(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
                 "negative count");
    expect_class(MPI_Allreduce(NULL, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "NULL sendbuf");
    expect_class(MPI_Allreduce(a, b, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
                 "MPI_OP_NULL");
    expect_class(MPI_Allreduce(a, b, 4, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP,
                 "MPI_SUM on MPI_BYTE");
    expect_class(MPI_Allreduce(a, b, 2, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP,
                 "MPI_SUM on MPI_2INT");
    expect_class(MPI_Allreduce(a, b, 4, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP,
                 "MPI_REPLACE in a reduction");
    expect_class(MPI_Allreduce(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER, "recvbuf MPI_IN_PLACE");
    expect_class(MPI_Allreduce(a, a, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "aliased buffers");
    expect_class(MPI_Reduce(a, b, 4, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT,
                 "root out of range");
    if (rank != 0)
        expect_class(MPI_Reduce(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
                     MPI_ERR_BUFFER, "MPI_IN_PLACE at a non-root");
    int counts[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    counts[size - 1] = -2;
    expect_class(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                 MPI_ERR_COUNT, "negative recvcounts entry");
    expect_class(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_ARG,
                 "NULL recvcounts");
    expect_class(MPI_Scan(a, b, 4, MPI_DOUBLE_INT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP,
                 "MPI_BAND on pairs");
    /* local ops */
    int in[3] = {1, 2, 3}, io[3] = {10, 20, 30};
    expect_class(MPI_Reduce_local(in, io, 3, MPI_INT, MPI_SUM), MPI_SUCCESS, "reduce_local");
    CHECK(io[0] == 11 && io[1] == 22 && io[2] == 33, "reduce_local result");
    expect_class(MPI_Reduce_local(MPI_IN_PLACE, io, 3, MPI_INT, MPI_SUM), MPI_ERR_BUFFER,
                 "reduce_local in place");
    expect_class(MPI_Reduce_local(in, io, 3, MPI_FLOAT, MPI_BXOR), MPI_ERR_OP,
                 "MPI_BXOR on float");
    MPI_Op sum = MPI_SUM;
    expect_class(MPI_Op_free(&sum), MPI_ERR_OP, "freeing MPI_SUM");
    int commute = -1;
    MPI_Op_commutative(setups[C_MATRIX].op, &commute);
    CHECK(commute == 0, "the matrix op says it commutes");
    MPI_Op_commutative(MPI_MAX, &commute);
    CHECK(commute == 1, "MPI_MAX says it does not commute");
    /* a derived type that mixes basic types takes no predefined op */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, mixed;
    MPI_Type_create_struct(2, bl, disp, types, &mixed);
    MPI_Type_commit(&mixed);
    char buf[32] = {0}, buf2[32] = {0};
    expect_class(MPI_Reduce_local(buf, buf2, 1, mixed, MPI_SUM), MPI_ERR_OP, "sum on a struct");
    MPI_Type_free(&mixed);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone is past its local errors */
    /* the collective still works afterwards */
    expect_class(MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS, "after");
    CHECK(b[3] == 4 * size, "allreduce after errors");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "grid";
    make_setups();
    if (!strcmp(mode, "grid")) {
        grid();
        intercomm();
    } else if (!strcmp(mode, "repro")) {
        repro();
    } else if (!strcmp(mode, "nonblocking")) {
        nonblocking();
    } else if (!strcmp(mode, "errors")) {
        errors();
    } else {
        fprintf(stderr, "usage: coll_reduce grid|repro|nonblocking|errors\n");
        failures++;
    }
    free_setups();
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("coll_reduce %s: OK\n", mode);
    MPI_Finalize();
    return all != 0;
}
