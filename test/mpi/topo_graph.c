/* topo_graph: graph and distributed graph topologies.
 *
 * 1. MPI_Graph_create of a ring with chords and a self-loop at node 0
 *    (node i: i+1, i-1, and i+2 for even i; edges listed in that order),
 *    over all ranks and over all but the last: MPI_Topo_test,
 *    MPI_Graphdims_get, MPI_Graph_get,
 *    MPI_Graph_neighbors_count and MPI_Graph_neighbors of every node,
 *    MPI_Graph_map, MPI_COMM_NULL beyond nnodes, and a message to every
 *    neighbour; an empty graph gives MPI_COMM_NULL.
 * 2. MPI_Dist_graph_create_adjacent, each rank r with sources r-1, r+2 and
 *    destinations r+1, r-2 (mod size), weighted (edge a->b weighs
 *    100a+b) and MPI_UNWEIGHTED: counts, the weighted flag, neighbours and
 *    weights in the order given, and traffic along the edges.
 * 3. MPI_Dist_graph_create where each rank gives the edges of node r+1
 *    (to r+2 and r+4, mod size), and where rank 0 gives every edge of the
 *    graph of 2 and the others none (MPI_WEIGHTS_EMPTY): every rank's in-
 *    and out-neighbours, with weights, as multisets (the standard leaves
 *    their order to the implementation).
 * 4. MPI_Comm_dup keeps every kind of topology. */
#include "topo_util.h"

#include <stdio.h>
#include <stdlib.h>

static int mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* ---- graph ---- */

/* The test graph over n nodes: index and edges (caller's arrays of n and
 * 3n entries). */
static void ring_with_chords(int n, int *index, int *edges)
{
    int e = 0;

    for (int i = 0; i < n; i++) {
        edges[e++] = mod(i + 1, n);
        edges[e++] = mod(i - 1, n);
        if (i % 2 == 0)
            edges[e++] = i == 0 ? 0 : mod(i + 2, n); /* node 0: a self-loop */
        index[i] = e;
    }
}

static void check_graph_queries(MPI_Comm g, int n, const int *index, const int *edges)
{
    int status, nn, ne, gi[n], ge[index[n - 1]];

    MPI_Topo_test(g, &status);
    TU_CHECK(status == MPI_GRAPH, "Topo_test says %d, expected MPI_GRAPH", status);
    MPI_Graphdims_get(g, &nn, &ne);
    TU_CHECK(nn == n && ne == index[n - 1], "Graphdims_get: %d nodes %d edges, expected %d %d",
             nn, ne, n, index[n - 1]);
    MPI_Graph_get(g, n, index[n - 1], gi, ge);
    for (int i = 0; i < n; i++)
        TU_CHECK(gi[i] == index[i], "Graph_get index[%d] = %d, expected %d", i, gi[i], index[i]);
    for (int i = 0; i < index[n - 1]; i++)
        TU_CHECK(ge[i] == edges[i], "Graph_get edges[%d] = %d, expected %d", i, ge[i], edges[i]);
    for (int r = 0; r < n; r++) {
        int first = r ? index[r - 1] : 0, count, nb[4];

        MPI_Graph_neighbors_count(g, r, &count);
        TU_CHECK(count == index[r] - first, "Graph_neighbors_count(%d) = %d, expected %d", r,
                 count, index[r] - first);
        MPI_Graph_neighbors(g, r, 4, nb);
        for (int i = 0; i < count; i++)
            TU_CHECK(nb[i] == edges[first + i], "Graph_neighbors(%d)[%d] = %d, expected %d", r,
                     i, nb[i], edges[first + i]);
    }
}

/* Every node sends its rank to each neighbour and receives from each; the
 * graph is symmetric but for the chords, so only the ring edges carry
 * messages (node i sends to i+1 and i-1, receives from i-1 and i+1). */
static void ring_traffic(MPI_Comm g, int n, int rank)
{
    int left = mod(rank - 1, n), right = mod(rank + 1, n), from_left = -1, from_right = -1;

    MPI_Sendrecv(&rank, 1, MPI_INT, right, 1, &from_left, 1, MPI_INT, left, 1, g,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&rank, 1, MPI_INT, left, 2, &from_right, 1, MPI_INT, right, 2, g,
                 MPI_STATUS_IGNORE);
    TU_CHECK(from_left == left && from_right == right,
             "graph traffic: got %d and %d, expected %d and %d", from_left, from_right, left,
             right);
}

static void graphs(void)
{
    for (int n = tu_size; n >= tu_size - 1 && n > 0; n--) {
        int index[n], edges[3 * n], newrank;
        MPI_Comm g;

        ring_with_chords(n, index, edges);
        MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
        MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &newrank);
        if (tu_rank >= n) {
            TU_CHECK(g == MPI_COMM_NULL, "rank %d beyond %d nodes got a communicator", tu_rank,
                     n);
            TU_CHECK(newrank == MPI_UNDEFINED, "Graph_map beyond the graph gave %d", newrank);
            continue;
        }
        TU_CHECK(newrank == tu_rank, "Graph_map gave %d, expected %d", newrank, tu_rank);
        check_graph_queries(g, n, index, edges);
        ring_traffic(g, n, tu_rank);
        MPI_Comm copy;
        MPI_Comm_dup(g, &copy);
        check_graph_queries(copy, n, index, edges);
        MPI_Comm_free(&copy);
        MPI_Comm_free(&g);
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &g);
    TU_CHECK(g == MPI_COMM_NULL, "an empty graph gave a communicator");
}

/* ---- distributed graphs ---- */

static int weight(int from, int to)
{
    return 100 * from + to;
}

static void check_dist_counts(MPI_Comm g, int in, int out, int weighted)
{
    int status, gin, gout, gw;

    MPI_Topo_test(g, &status);
    TU_CHECK(status == MPI_DIST_GRAPH, "Topo_test says %d, expected MPI_DIST_GRAPH", status);
    MPI_Dist_graph_neighbors_count(g, &gin, &gout, &gw);
    TU_CHECK(gin == in && gout == out && !gw == !weighted,
             "Dist_graph_neighbors_count: in %d out %d weighted %d, expected %d %d %d", gin,
             gout, gw, in, out, weighted);
}

/* Each rank sends its rank along every out-edge and receives one message
 * along every in-edge. */
static void dist_traffic(MPI_Comm g, int in, const int *sources, int out, const int *dests)
{
    MPI_Request req[in + out];
    int got[in > 0 ? in : 1];

    for (int i = 0; i < in; i++)
        MPI_Irecv(&got[i], 1, MPI_INT, sources[i], 9, g, &req[i]);
    for (int i = 0; i < out; i++)
        MPI_Isend(&tu_rank, 1, MPI_INT, dests[i], 9, g, &req[in + i]);
    MPI_Waitall(in + out, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < in; i++)
        TU_CHECK(got[i] == sources[i], "along in-edge %d got %d, expected %d", i, got[i],
                 sources[i]);
}

static void adjacent(int weighted)
{
    int n = tu_size, r = tu_rank;
    int sources[2] = {mod(r - 1, n), mod(r + 2, n)}, dests[2] = {mod(r + 1, n), mod(r - 2, n)};
    int sw[2] = {weight(sources[0], r), weight(sources[1], r)};
    int dw[2] = {weight(r, dests[0]), weight(r, dests[1])};
    int gs[2], gd[2], gsw[2] = {-1, -1}, gdw[2] = {-1, -1};
    MPI_Comm g, copy;

    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weighted ? sw : MPI_UNWEIGHTED, 2,
                                   dests, weighted ? dw : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    MPI_Comm_dup(g, &copy);
    MPI_Comm_free(&g);
    check_dist_counts(copy, 2, 2, weighted);
    MPI_Dist_graph_neighbors(copy, 2, gs, gsw, 2, gd, gdw);
    for (int i = 0; i < 2; i++) {
        TU_CHECK(gs[i] == sources[i] && gd[i] == dests[i],
                 "adjacent: neighbour %d is %d/%d, expected %d/%d", i, gs[i], gd[i], sources[i],
                 dests[i]);
        if (weighted)
            TU_CHECK(gsw[i] == sw[i] && gdw[i] == dw[i],
                     "adjacent: weights %d is %d/%d, expected %d/%d", i, gsw[i], gdw[i], sw[i],
                     dw[i]);
    }
    dist_traffic(copy, 2, gs, 2, gd);
    MPI_Comm_free(&copy);
}

typedef struct {
    int rank, weight;
} edge_end_t;

static int by_rank_then_weight(const void *a, const void *b)
{
    const edge_end_t *x = a, *y = b;
    return x->rank != y->rank ? x->rank - y->rank : x->weight - y->weight;
}

/* got (ranks, weights) equals want as a multiset; both have n entries. */
static void same_ends(const char *what, int n, const int *ranks, const int *weights,
                      edge_end_t *want, int weighted)
{
    edge_end_t got[n > 0 ? n : 1];

    for (int i = 0; i < n; i++) {
        got[i] = (edge_end_t){ranks[i], weighted ? weights[i] : 0};
        want[i].weight = weighted ? want[i].weight : 0;
    }
    qsort(got, n, sizeof(got[0]), by_rank_then_weight);
    qsort(want, n, sizeof(want[0]), by_rank_then_weight);
    for (int i = 0; i < n; i++)
        TU_CHECK(got[i].rank == want[i].rank && got[i].weight == want[i].weight,
                 "%s %d: rank %d weight %d, expected %d %d", what, i, got[i].rank,
                 got[i].weight, want[i].rank, want[i].weight);
}

/* The graph of Dist_graph_create: node v has edges to v+2 and v+4; rank
 * r gives node r+1's edges. My in-neighbours are me-2 and me-4. */
static void general(int weighted)
{
    int n = tu_size, r = tu_rank, node = mod(r + 1, n);
    int degree = 2, dests[2] = {mod(node + 2, n), mod(node + 4, n)};
    int w[2] = {weight(node, dests[0]), weight(node, dests[1])};
    int me = r, gs[2], gd[2], gsw[2], gdw[2];
    MPI_Comm g;

    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &node, &degree, dests, weighted ? w : MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &g);
    check_dist_counts(g, 2, 2, weighted);
    MPI_Dist_graph_neighbors(g, 2, gs, gsw, 2, gd, gdw);
    edge_end_t want_in[2] = {{mod(me - 2, n), weight(mod(me - 2, n), me)},
                             {mod(me - 4, n), weight(mod(me - 4, n), me)}};
    edge_end_t want_out[2] = {{mod(me + 2, n), weight(me, mod(me + 2, n))},
                              {mod(me + 4, n), weight(me, mod(me + 4, n))}};
    same_ends("general: in-neighbour", 2, gs, gsw, want_in, weighted);
    same_ends("general: out-neighbour", 2, gd, gdw, want_out, weighted);
    dist_traffic(g, 2, gs, 2, gd);
    MPI_Comm_free(&g);
}

/* Rank 0 gives every edge of the graph v -> v+1, v -> v (self-loop); the
 * others give nothing, with MPI_WEIGHTS_EMPTY. */
static void one_giver(void)
{
    int n = tu_size, me = tu_rank, count = tu_rank == 0 ? n : 0;
    int sources[n], degrees[n], dests[2 * n], w[2 * n];
    int gs[2], gd[2], gsw[2], gdw[2];
    MPI_Comm g;

    for (int v = 0; v < n; v++) {
        sources[v] = v;
        degrees[v] = 2;
        dests[2 * v] = mod(v + 1, n);
        dests[2 * v + 1] = v;
        w[2 * v] = weight(v, mod(v + 1, n));
        w[2 * v + 1] = weight(v, v);
    }
    MPI_Dist_graph_create(MPI_COMM_WORLD, count, sources, degrees, dests,
                          count ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g);
    check_dist_counts(g, 2, 2, 1);
    MPI_Dist_graph_neighbors(g, 2, gs, gsw, 2, gd, gdw);
    edge_end_t want_in[2] = {{mod(me - 1, n), weight(mod(me - 1, n), me)}, {me, weight(me, me)}};
    edge_end_t want_out[2] = {{mod(me + 1, n), weight(me, mod(me + 1, n))}, {me, weight(me, me)}};
    same_ends("one giver: in-neighbour", 2, gs, gsw, want_in, 1);
    same_ends("one giver: out-neighbour", 2, gd, gdw, want_out, 1);
    dist_traffic(g, 2, gs, 2, gd);
    MPI_Comm_free(&g);
}

/* Rank 0 gives 2^20 edges 0 -> e mod n of weight e mod 7, the others
 * none: every process learns them all, however unequal the shares (one
 * process giving millions of edges must not make the others read past what
 * they gave). */
static void one_giver_many(void)
{
    enum { EDGES = 1 << 20 };
    int n = tu_size, me = tu_rank, count = me == 0 ? 1 : 0, source = 0, degree = EDGES;
    int *dests = malloc(sizeof(int) * EDGES), *weights = malloc(sizeof(int) * EDGES);
    TU_CHECK(dests && weights, "one giver, many edges: no memory for the edges");
    for (int e = 0; e < EDGES; e++) {
        dests[e] = e % n;
        weights[e] = e % 7;
    }
    MPI_Comm g;
    MPI_Dist_graph_create(MPI_COMM_WORLD, count, &source, &degree, dests, weights,
                          MPI_INFO_NULL, 0, &g);
    int in, out, weighted;
    MPI_Dist_graph_neighbors_count(g, &in, &out, &weighted);
    int want_in = EDGES / n + (me < EDGES % n);
    TU_CHECK(in == want_in && out == (me == 0 ? EDGES : 0) && weighted,
             "one giver, many edges: %d in %d out %d weighted, expected %d in %d out 1", in, out,
             weighted, want_in, me == 0 ? EDGES : 0);
    /* The in-edges come in the giver's order: e = me, me + n, ... */
    int *sources = malloc(sizeof(int) * (size_t)in), *sw = malloc(sizeof(int) * (size_t)in);
    int none[1];
    TU_CHECK(sources && sw, "one giver, many edges: no memory for the neighbours");
    MPI_Dist_graph_neighbors(g, in, sources, sw, 0, none, none);
    for (int i = 0; i < in; i++)
        TU_CHECK(sources[i] == 0 && sw[i] == (me + i * n) % 7,
                 "one giver, many edges: in-edge %d from %d of weight %d, expected 0 and %d", i,
                 sources[i], sw[i], (me + i * n) % 7);
    free(sources);
    free(sw);
    free(dests);
    free(weights);
    MPI_Comm_free(&g);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "topo_graph");
    graphs();
    adjacent(1);
    adjacent(0);
    general(1);
    general(0);
    one_giver();
    one_giver_many();
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        printf("topo_graph: %d ranks OK\n", tu_size);
    MPI_Finalize();
    return 0;
}
