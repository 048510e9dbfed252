/* half: the 16-bit floating-point types MPIX_C_FLOAT16 (binary16),
 * MPIX_C_BF16 (bfloat16) and MPI_REAL2 (binary16) on host buffers,
 * checked bit for bit against the reference of half_ref.h:
 *
 * - facts: size and extent 2, named envelope and name, toint/fromint,
 *   MPI_Pack/Unpack, MPI_Pack_external (external32: big-endian);
 * - MPI_Reduce_local of every op (SUM, PROD, MAX, MIN) on every pair of
 *   edge values (NaNs, infinities, subnormals, ties, overflow), on a
 *   contiguous derived type of them, and a chain of steps where rounding
 *   each step differs from accumulating in float;
 * - point-to-point around a ring with a vector type (gaps untouched) and
 *   MPI_Get_count;
 * - collectives (bcast, allgather, reduce, allreduce on a derived type,
 *   reduce_scatter_block, scan) on data whose result has the same bits in
 *   any order (exact sums, NaN and infinity cases);
 * - with OMPI_LITE_REPRODUCIBLE=1 set, allreduce and reduce of values where
 *   the order of rounding matters, against the reference combined in the
 *   order of the in-order binomial tree.
 *
 * Prints "half: OK" on rank 0 when every rank passed. */
#include "half_ref.h"

#include <mpi.h>
#include <mpi-ext.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            if (failures++ < 20) {                                                             \
                printf("rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                     \
                printf(__VA_ARGS__);                                                           \
                printf("\n");                                                                  \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static const struct {
    MPI_Datatype type;
    const char *name;
    ref_format_t format;
} types[] = {
    {MPIX_C_FLOAT16, "MPIX_C_FLOAT16", REF_F16},
    {MPI_REAL2, "MPI_REAL2", REF_F16},
    {MPIX_C_BF16, "MPIX_C_BF16", REF_BF16},
};
enum { NTYPES = sizeof(types) / sizeof(types[0]) };

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {{MPI_SUM, "SUM"}, {MPI_PROD, "PROD"}, {MPI_MAX, "MAX"}, {MPI_MIN, "MIN"}};

static uint16_t one(ref_format_t f)
{
    return f == REF_F16 ? 0x3c00 : 0x3f80;
}

/* Half an ulp of one: 1 + this is a tie that rounds to 1. */
static uint16_t half_ulp_of_one(ref_format_t f)
{
    return f == REF_F16 ? 0x1000 : 0x3b80;
}

static void check_facts(int t)
{
    MPI_Datatype type = types[t].type;
    int sz, ni, na, nd, combiner, len;
    MPI_Aint lb, extent;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Type_size(type, &sz);
    MPI_Type_get_extent(type, &lb, &extent);
    CHECK(sz == 2 && lb == 0 && extent == 2, "%s: size %d, lb %ld, extent %ld", types[t].name, sz,
          (long)lb, (long)extent);
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    CHECK(combiner == MPI_COMBINER_NAMED, "%s: combiner %d", types[t].name, combiner);
    MPI_Type_get_name(type, name, &len);
    CHECK(strcmp(name, types[t].name) == 0, "%s: named %s", types[t].name, name);
    CHECK(MPI_Type_fromint(MPI_Type_toint(type)) == type, "%s: toint/fromint", types[t].name);

    uint16_t values[3] = {0x3c00, 0x8001, 0x7bff}, back[3] = {0};
    unsigned char packed[16], external[16];
    int position = 0;
    MPI_Pack(values, 3, type, packed, sizeof(packed), &position, MPI_COMM_SELF);
    CHECK(position == 6, "%s: MPI_Pack wrote %d bytes", types[t].name, position);
    position = 0;
    MPI_Unpack(packed, sizeof(packed), &position, back, 3, type, MPI_COMM_SELF);
    CHECK(memcmp(values, back, sizeof(values)) == 0, "%s: MPI_Unpack", types[t].name);
    MPI_Aint xsize, xpos = 0;
    MPI_Pack_external_size("external32", 3, type, &xsize);
    CHECK(xsize == 6, "%s: external32 size %ld", types[t].name, (long)xsize);
    MPI_Pack_external("external32", values, 3, type, external, sizeof(external), &xpos);
    static const unsigned char big_endian[6] = {0x3c, 0x00, 0x80, 0x01, 0x7b, 0xff};
    CHECK(xpos == 6 && memcmp(external, big_endian, 6) == 0,
          "%s: external32 bytes %02x %02x ..., not big-endian", types[t].name, external[0],
          external[1]);
    memset(back, 0, sizeof(back));
    xpos = 0;
    MPI_Unpack_external("external32", external, 6, &xpos, back, 3, type);
    CHECK(memcmp(values, back, sizeof(values)) == 0, "%s: MPI_Unpack_external", types[t].name);
}

/* Every op on every pair of edge values, as one vector of REF_EDGES^2. */
static void check_reduce_local(int t)
{
    ref_format_t f = types[t].format;
    const uint16_t *edges = ref_edges(f);
    enum { N = REF_EDGES * REF_EDGES };
    static uint16_t in[N], io[N];
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        for (int i = 0; i < N; i++) {
            in[i] = edges[i / REF_EDGES];
            io[i] = edges[i % REF_EDGES];
        }
        MPI_Reduce_local(in, io, N, types[t].type, ops[k].op);
        int wrong = 0;
        for (int i = 0; i < N; i++) {
            uint16_t want = ref_combine(f, ops[k].op, in[i], edges[i % REF_EDGES]);
            if (io[i] != want && wrong++ < 3)
                CHECK(0, "%s %s: 0x%04x op 0x%04x = 0x%04x, expected 0x%04x", types[t].name,
                      ops[k].name, in[i], edges[i % REF_EDGES], io[i], want);
        }
    }
    /* a derived type of them: contiguous pairs */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, types[t].type, &pair);
    MPI_Type_commit(&pair);
    for (int i = 0; i < N; i++) {
        in[i] = edges[i / REF_EDGES];
        io[i] = edges[i % REF_EDGES];
    }
    MPI_Reduce_local(in, io, N / 2, pair, MPI_SUM);
    for (int i = 0; i < N; i++)
        CHECK(io[i] == ref_combine(f, MPI_SUM, in[i], edges[i % REF_EDGES]),
              "%s pairs SUM: element %d", types[t].name, i);
    MPI_Type_free(&pair);

    /* 1 + half an ulp, three times, rounded each step: stays 1; in float
     * it would be 1 + 1.5 ulp, which rounds to 1 + 2 ulp */
    uint16_t acc = one(f), step = half_ulp_of_one(f);
    for (int k = 0; k < 3; k++)
        MPI_Reduce_local(&step, &acc, 1, types[t].type, MPI_SUM);
    float in_float = (float)ref_to_double(f, one(f)) + 3 * (float)ref_to_double(f, step);
    CHECK(acc == one(f) && ref_round(f, in_float) != one(f),
          "%s: 1 + 3 half-ulps rounded each step = 0x%04x, expected 0x%04x", types[t].name, acc,
          one(f));
}

/* Around the ring: every other element of a vector type, gaps untouched. */
static void check_p2p(int t)
{
    enum { COUNT = 2 * REF_EDGES };
    MPI_Datatype every_other;
    MPI_Type_vector(REF_EDGES, 1, 2, types[t].type, &every_other);
    MPI_Type_commit(&every_other);
    uint16_t send[COUNT], recv[COUNT];
    for (int i = 0; i < COUNT; i++) {
        send[i] = ref_edges(types[t].format)[i / 2] ^ (uint16_t)(i % 2 ? 0x5555 : 0);
        recv[i] = 0xdead;
    }
    MPI_Status status;
    MPI_Sendrecv(send, 1, every_other, (rank + 1) % size, 7, recv, 1, every_other,
                 (rank + size - 1) % size, 7, MPI_COMM_WORLD, &status);
    int count;
    MPI_Get_count(&status, types[t].type, &count);
    CHECK(count == REF_EDGES, "%s: MPI_Get_count %d, expected %d", types[t].name, count,
          REF_EDGES);
    for (int i = 0; i < COUNT; i++)
        CHECK(recv[i] == (i % 2 ? 0xdead : send[i]), "%s: element %d = 0x%04x", types[t].name,
              i, recv[i]);
    MPI_Type_free(&every_other);
}

/* Per element, rank r's contribution, chosen so that every order of the
 * reduction gives the same bits: small integers (exact sums), powers of
 * two (exact products), and for SUM and PROD the NaN and infinity cases
 * (every order gives NaN, or infinity). MAX and MIN see no NaN: with one,
 * their result depends on the order, as a > b ? a : b does. */
enum { ELEMENTS = 8 };
static uint16_t contribution(ref_format_t f, MPI_Op op, int element, int r)
{
    bool arithmetic = op == MPI_SUM || op == MPI_PROD;
    double infinity = INFINITY, nan = NAN;
    double v;
    switch (element) {
    case 0: v = r + 1; break;
    case 1: v = op == MPI_PROD ? (r % 2 ? 0.5 : 4) : -2.0 * r - 3; break;
    case 2: v = r == size - 1 ? (arithmetic ? nan : 2) : 1; break;
    case 3: v = r == 0 ? infinity : 1; break;
    case 4: /* a signalling NaN and -inf */
        if (arithmetic && r == 0)
            return f == REF_F16 ? 0x7c01 : 0x7f81;
        v = r == 1 ? -infinity : r;
        break;
    case 5: return (uint16_t)(r + 1); /* subnormals */
    case 6: v = op == MPI_PROD ? -1 : 0.25 * (r + 1); break;
    default: v = op == MPI_PROD ? 2 : 16 * (r + 1); break;
    }
    return ref_round(f, v);
}

static void fill(uint16_t *v, ref_format_t f, MPI_Op op, int r)
{
    for (int e = 0; e < ELEMENTS; e++)
        v[e] = contribution(f, op, e, r);
}

/* The reduction of ranks 0..upto's contributions, left to right. */
static uint16_t expected(ref_format_t f, MPI_Op op, int element, int upto)
{
    uint16_t acc = contribution(f, op, element, 0);
    for (int r = 1; r <= upto; r++)
        acc = ref_combine(f, op, acc, contribution(f, op, element, r));
    return acc;
}

static void check_collectives(int t)
{
    ref_format_t f = types[t].format;
    MPI_Datatype type = types[t].type;
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
        MPI_Op op = ops[k].op;
        uint16_t mine[ELEMENTS], result[ELEMENTS], block[ELEMENTS * 4];
        fill(mine, f, op, rank);
        /* allreduce on a derived type: 2 elements of 4 */
        MPI_Datatype four;
        MPI_Type_contiguous(4, type, &four);
        MPI_Type_commit(&four);
        MPI_Allreduce(mine, result, ELEMENTS / 4, four, op, MPI_COMM_WORLD);
        MPI_Type_free(&four);
        for (int e = 0; e < ELEMENTS; e++)
            CHECK(result[e] == expected(f, op, e, size - 1),
                  "%s %s allreduce element %d = 0x%04x, expected 0x%04x", types[t].name,
                  ops[k].name, e, result[e], expected(f, op, e, size - 1));
        memset(result, 0, sizeof(result));
        MPI_Reduce(mine, result, ELEMENTS, type, op, size - 1, MPI_COMM_WORLD);
        for (int e = 0; rank == size - 1 && e < ELEMENTS; e++)
            CHECK(result[e] == expected(f, op, e, size - 1), "%s %s reduce element %d",
                  types[t].name, ops[k].name, e);
        MPI_Scan(mine, result, ELEMENTS, type, op, MPI_COMM_WORLD);
        for (int e = 0; e < ELEMENTS; e++)
            CHECK(result[e] == expected(f, op, e, rank), "%s %s scan element %d = 0x%04x",
                  types[t].name, ops[k].name, e, result[e]);
        /* reduce_scatter_block: rank r gets element r % ELEMENTS of a block per rank */
        for (int r = 0; r < size; r++)
            block[r] = mine[r % ELEMENTS];
        MPI_Reduce_scatter_block(block, result, 1, type, op, MPI_COMM_WORLD);
        CHECK(result[0] == expected(f, op, rank % ELEMENTS, size - 1),
              "%s %s reduce_scatter_block = 0x%04x", types[t].name, ops[k].name, result[0]);
    }
    uint16_t all[4 * ELEMENTS], root[ELEMENTS];
    fill(root, f, MPI_SUM, size - 1);
    MPI_Bcast(root, ELEMENTS, type, size - 1, MPI_COMM_WORLD);
    uint16_t want[ELEMENTS];
    fill(want, f, MPI_SUM, size - 1);
    CHECK(memcmp(root, want, sizeof(want)) == 0, "%s bcast", types[t].name);
    fill(root, f, MPI_SUM, rank);
    MPI_Allgather(root, ELEMENTS, type, all, ELEMENTS, type, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        fill(want, f, MPI_SUM, r);
        CHECK(memcmp(all + r * ELEMENTS, want, sizeof(want)) == 0, "%s allgather from %d",
              types[t].name, r);
    }
}

/* Reproducible mode: the in-order binomial tree over ranks 0..p-1 (at
 * step s, rank i, a multiple of 2s, takes in rank i + s's partial result).
 * Rank 0 holds 1, ranks 1 and 2 half an ulp of 1, rank 3 zero: each step
 * rounds back to 1, where a sum in float would reach 1 + 1 ulp. */
static void check_reproducible(int t)
{
    ref_format_t f = types[t].format;
    uint16_t value[4] = {one(f), half_ulp_of_one(f), half_ulp_of_one(f), 0};
    uint16_t partial[4];
    memcpy(partial, value, sizeof(partial));
    for (int s = 1; s < size; s *= 2)
        for (int i = 0; i + s < size; i += 2 * s)
            partial[i] = ref_combine(f, MPI_SUM, partial[i], partial[i + s]);
    uint16_t mine[1000], result[1000];
    for (int i = 0; i < 1000; i++)
        mine[i] = value[rank % 4];
    MPI_Allreduce(mine, result, 1000, types[t].type, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 1000; i++)
        CHECK(result[i] == partial[0], "%s reproducible allreduce element %d = 0x%04x, "
              "expected 0x%04x", types[t].name, i, result[i], partial[0]);
    MPI_Reduce(mine, result, 1000, types[t].type, MPI_SUM, 0, MPI_COMM_WORLD);
    CHECK(rank != 0 || result[999] == partial[0], "%s reproducible reduce = 0x%04x",
          types[t].name, result[999]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *repro = getenv("OMPI_LITE_REPRODUCIBLE");
    bool reproducible = repro && strcmp(repro, "1") == 0;
    if (size > 4) {
        if (rank == 0)
            printf("half: run on 1 to 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int t = 0; t < NTYPES; t++) {
        check_facts(t);
        check_reduce_local(t);
        check_p2p(t);
        check_collectives(t);
        if (reproducible)
            check_reproducible(t);
    }
    int all_failures;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all_failures == 0)
        printf("half: OK%s\n", reproducible ? " (reproducible)" : "");
    MPI_Finalize();
    return all_failures != 0;
}
