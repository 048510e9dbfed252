/* gpu_half: MPIX_C_FLOAT16, MPIX_C_BF16 and MPI_REAL2 reduced on device
 * buffers, bit for bit against the reference of test/mpi/half_ref.h
 * (each step in float, rounded back to nearest even; canonical NaN):
 *
 * - local: MPI_Reduce_local of every op (SUM, PROD, MAX, MIN) on device
 *   buffers holding every pair of edge values, then on 65539 values of
 *   every bit pattern against edge values (the device kernel, in a defined
 *   order);
 * - allreduce: on 1, 1003 and 524291 elements (the last above the CUDA IPC
 *   allreduce's 1 MiB), data whose result has the same bits in any order;
 * - "repro" (run with OMPI_LITE_REPRODUCIBLE=1): allreduce of 524291
 *   elements where the order of rounding matters must give the bits of
 *   the in-order binomial tree, as on host buffers, whichever path device
 *   memory takes.
 *
 * gpu_half [local] [allreduce] [repro] runs some parts only. */
#include "gpu_test.h"
#include "half_ref.h"

#include <mpi-ext.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
enum { NOPS = sizeof(ops) / sizeof(ops[0]) };

/* The first wrong element of n, as a failure naming what. */
static void check_elements(const char *what, const uint16_t *got, const uint16_t *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            gt_fail("%s: element %zu is 0x%04x, expected 0x%04x", what, i, got[i], want[i]);
            return;
        }
}

/* inout = in op inout on the device, n elements, checked. */
static void reduce_local(int t, int k, const uint16_t *in, const uint16_t *inout, size_t n)
{
    size_t bytes = n * 2;
    void *din = gt_alloc(GT_DEVICE, bytes), *dio = gt_alloc(GT_DEVICE, bytes);
    gt_put(GT_DEVICE, din, in, bytes);
    gt_put(GT_DEVICE, dio, inout, bytes);
    char what[96];
    snprintf(what, sizeof(what), "MPI_Reduce_local %s %s of %zu", types[t].name, ops[k].name, n);
    gt_check_rc(what, MPI_Reduce_local(din, dio, (int)n, types[t].type, ops[k].op));
    uint16_t *got = malloc(bytes), *want = malloc(bytes);
    gt_get(GT_DEVICE, got, dio, bytes);
    for (size_t i = 0; i < n; i++)
        want[i] = ref_combine(types[t].format, ops[k].op, in[i], inout[i]);
    check_elements(what, got, want, n);
    free(got);
    free(want);
    gt_free(GT_DEVICE, din);
    gt_free(GT_DEVICE, dio);
}

static void check_local(void)
{
    enum { PAIRS = REF_EDGES * REF_EDGES, PATTERNS = 65539 };
    static uint16_t in[PATTERNS], io[PATTERNS];
    for (int t = 0; t < NTYPES; t++)
        for (int k = 0; k < NOPS; k++) {
            const uint16_t *edges = ref_edges(types[t].format);
            for (int i = 0; i < PAIRS; i++) {
                in[i] = edges[i / REF_EDGES];
                io[i] = edges[i % REF_EDGES];
            }
            reduce_local(t, k, in, io, PAIRS);
            for (int i = 0; i < PATTERNS; i++) {
                in[i] = (uint16_t)i;
                io[i] = edges[(i + gt_rank) % REF_EDGES];
            }
            reduce_local(t, k, in, io, PATTERNS);
        }
}

/* Rank r's element i: the same bits in any order of reduction (exact sums
 * of small integers, exact products of powers of two, distinct values for
 * MAX and MIN, and a NaN or infinity in every 16th element of sums and
 * products, whose result is NaN or infinity in any order). */
static uint16_t contribution(ref_format_t f, MPI_Op op, size_t i, int r)
{
    bool arithmetic = op == MPI_SUM || op == MPI_PROD;
    if (arithmetic && i % 16 == 5 && r == 0)
        return f == REF_F16 ? 0x7c00 : 0x7f80; /* +inf */
    if (arithmetic && i % 16 == 9 && r == gt_size - 1)
        return ref_formats[f].canonical_nan;
    if (op == MPI_PROD)
        return ref_round(f, (i + r) % 3 == 0 ? 2 : (i + r) % 3 == 1 ? -0.5 : 1);
    return ref_round(f, (double)((i * 7 + (size_t)r * 3) % 16) - 8);
}

static void check_allreduce(void)
{
    static const size_t counts[] = {1, 1003, 524291};
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        size_t n = counts[c], bytes = n * 2;
        uint16_t *host = malloc(bytes), *want = malloc(bytes);
        void *send = gt_alloc(GT_DEVICE, bytes), *recv = gt_alloc(GT_DEVICE, bytes);
        for (int t = 0; t < NTYPES; t++)
            for (int k = 0; k < NOPS; k++) {
                ref_format_t f = types[t].format;
                for (size_t i = 0; i < n; i++) {
                    host[i] = contribution(f, ops[k].op, i, gt_rank);
                    want[i] = contribution(f, ops[k].op, i, 0);
                    for (int r = 1; r < gt_size; r++)
                        want[i] = ref_combine(f, ops[k].op, want[i],
                                              contribution(f, ops[k].op, i, r));
                }
                gt_put(GT_DEVICE, send, host, bytes);
                char what[96];
                snprintf(what, sizeof(what), "MPI_Allreduce %s %s of %zu", types[t].name,
                         ops[k].name, n);
                gt_check_rc(what, MPI_Allreduce(send, recv, (int)n, types[t].type, ops[k].op,
                                                MPI_COMM_WORLD));
                gt_get(GT_DEVICE, host, recv, bytes);
                check_elements(what, host, want, n);
            }
        gt_free(GT_DEVICE, send);
        gt_free(GT_DEVICE, recv);
        free(host);
        free(want);
    }
}

/* Ranks hold 1, 0, half an ulp of 1, half an ulp of 1 (then again): left
 * to right the sum stays 1 at every step; the in-order binomial tree of
 * reproducible mode adds the two half-ulps first, (1 + 0) + (h + h), and
 * reaches 1 + 1 ulp on 4 ranks. */
static void check_reproducible(void)
{
    enum { N = 524291 };
    uint16_t *host = malloc(N * 2);
    void *send = gt_alloc(GT_DEVICE, N * 2), *recv = gt_alloc(GT_DEVICE, N * 2);
    for (int t = 0; t < NTYPES; t++) {
        ref_format_t f = types[t].format;
        uint16_t one = f == REF_F16 ? 0x3c00 : 0x3f80, h = f == REF_F16 ? 0x1000 : 0x3b80;
        uint16_t value[4] = {one, 0, h, h}, partial[4];
        for (int r = 0; r < 4; r++)
            partial[r] = value[r];
        for (int s = 1; s < gt_size; s *= 2)
            for (int i = 0; i + s < gt_size; i += 2 * s)
                partial[i] = ref_combine(f, MPI_SUM, partial[i], partial[i + s]);
        for (size_t i = 0; i < N; i++)
            host[i] = value[gt_rank % 4];
        gt_put(GT_DEVICE, send, host, N * 2);
        char what[96];
        snprintf(what, sizeof(what), "reproducible MPI_Allreduce %s SUM", types[t].name);
        gt_check_rc(what, MPI_Allreduce(send, recv, N, types[t].type, MPI_SUM, MPI_COMM_WORLD));
        gt_get(GT_DEVICE, host, recv, N * 2);
        for (size_t i = 0; i < N; i++)
            if (host[i] != partial[0]) {
                gt_fail("%s: element %zu is 0x%04x, expected 0x%04x (the tree's order)", what, i,
                        host[i], partial[0]);
                break;
            }
    }
    gt_free(GT_DEVICE, send);
    gt_free(GT_DEVICE, recv);
    free(host);
}

static bool wanted(int argc, char **argv, const char *part)
{
    if (argc < 2)
        return strcmp(part, "repro") != 0; /* repro needs reproducible mode */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    gt_init("gpu_half", &argc, &argv);
    if (gt_size > 4)
        gt_die("run on 1 to 4 ranks");
    if (wanted(argc, argv, "local"))
        check_local();
    if (wanted(argc, argv, "allreduce"))
        check_allreduce();
    if (wanted(argc, argv, "repro"))
        check_reproducible();
    return gt_finish();
}
