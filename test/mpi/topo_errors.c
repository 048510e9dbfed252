/* topo_errors: bad arguments to the topology functions, under
 * MPI_ERRORS_RETURN (every rank passes the same bad arguments, so
 * collective calls fail everywhere and nobody waits):
 * - Cart_create: ndims < 0, a dimension <= 0 (MPI_ERR_DIMS), more
 *   processes than the communicator has (MPI_ERR_ARG, the output set to
 *   MPI_COMM_NULL); Cart_map the same;
 * - queries on a communicator without the topology: MPI_ERR_TOPOLOGY for
 *   the Cartesian ones on MPI_COMM_WORLD, the graph ones on a Cartesian
 *   communicator, the distributed graph ones on a graph; Topo_test says
 *   MPI_UNDEFINED on MPI_COMM_WORLD;
 * - Cart_rank outside a non-periodic dimension, Cart_coords of a rank
 *   outside the grid (MPI_ERR_RANK); Cart_shift along a dimension the grid
 *   lacks (MPI_ERR_ARG);
 * - Graph_create: nnodes above the size, a decreasing index, an edge to a
 *   missing node (MPI_ERR_ARG); Graph_neighbors of a missing node
 *   (MPI_ERR_RANK);
 * - Dist_graph_create(_adjacent): a rank outside the communicator
 *   (MPI_ERR_RANK), negative degrees and weights, MPI_UNWEIGHTED on one
 *   side only (MPI_ERR_ARG).
 * After every error the communicators still work (a barrier on each).
 * With the argument "fatal", rank 0 calls MPI_Cart_get on MPI_COMM_WORLD
 * under MPI_ERRORS_ARE_FATAL: the job must end with a message naming the
 * call. */
#include "topo_util.h"

#include <stdio.h>
#include <string.h>

static void cart_errors(void)
{
    int dims[2] = {tu_size, 1}, periods[2] = {0, 0}, big = tu_size + 1, neg = -1, zero = 0;
    int r, coords[2], src, dst, status;
    MPI_Comm c = MPI_COMM_NULL;

    tu_expect_class(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &c), MPI_ERR_DIMS,
                    "Cart_create with ndims -1");
    tu_expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &neg, periods, 0, &c), MPI_ERR_DIMS,
                    "Cart_create with dims -1");
    tu_expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &zero, periods, 0, &c), MPI_ERR_DIMS,
                    "Cart_create with dims 0");
    c = MPI_COMM_SELF; /* a failed call leaves MPI_COMM_NULL, as MPICH's does */
    tu_expect_class(MPI_Cart_create(MPI_COMM_WORLD, 1, &big, periods, 0, &c), MPI_ERR_ARG,
                    "Cart_create of size + 1 processes");
    TU_CHECK(c == MPI_COMM_NULL, "a failed Cart_create left its output as it was");
    tu_expect_class(MPI_Cart_map(MPI_COMM_WORLD, 1, &big, periods, &r), MPI_ERR_ARG,
                    "Cart_map of size + 1 processes");

    MPI_Topo_test(MPI_COMM_WORLD, &status);
    TU_CHECK(status == MPI_UNDEFINED, "Topo_test(MPI_COMM_WORLD) = %d", status);
    tu_expect_class(MPI_Cartdim_get(MPI_COMM_WORLD, &r), MPI_ERR_TOPOLOGY,
                    "Cartdim_get on MPI_COMM_WORLD");
    tu_expect_class(MPI_Cart_get(MPI_COMM_WORLD, 2, dims, periods, coords), MPI_ERR_TOPOLOGY,
                    "Cart_get on MPI_COMM_WORLD");
    tu_expect_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY,
                    "Cart_shift on MPI_COMM_WORLD");
    tu_expect_class(MPI_Cart_sub(MPI_COMM_WORLD, periods, &c), MPI_ERR_TOPOLOGY,
                    "Cart_sub on MPI_COMM_WORLD");

    /* A 1 x size grid, periodic in the first dimension only. */
    dims[0] = 1;
    dims[1] = tu_size;
    periods[0] = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c);
    coords[0] = 5;
    coords[1] = tu_size;
    tu_expect_class(MPI_Cart_rank(c, coords, &r), MPI_ERR_RANK,
                    "Cart_rank past a non-periodic edge");
    coords[1] = -1;
    tu_expect_class(MPI_Cart_rank(c, coords, &r), MPI_ERR_RANK,
                    "Cart_rank before a non-periodic edge");
    coords[1] = 0;
    tu_expect_class(MPI_Cart_rank(c, coords, &r), MPI_SUCCESS,
                    "Cart_rank wrapping a periodic dimension");
    TU_CHECK(r == 0, "Cart_rank(5, 0) on a periodic 1 x n grid = %d", r);
    tu_expect_class(MPI_Cart_coords(c, tu_size, 2, coords), MPI_ERR_RANK,
                    "Cart_coords of rank size");
    tu_expect_class(MPI_Cart_coords(c, -1, 2, coords), MPI_ERR_RANK, "Cart_coords of rank -1");
    tu_expect_class(MPI_Cart_shift(c, 2, 1, &src, &dst), MPI_ERR_ARG,
                    "Cart_shift along direction 2 of 2 dims");
    tu_expect_class(MPI_Cart_shift(c, -1, 1, &src, &dst), MPI_ERR_ARG,
                    "Cart_shift along direction -1");
    tu_expect_class(MPI_Graphdims_get(c, &r, &src), MPI_ERR_TOPOLOGY,
                    "Graphdims_get on a Cartesian communicator");
    tu_expect_class(MPI_Graph_neighbors_count(c, 0, &r), MPI_ERR_TOPOLOGY,
                    "Graph_neighbors_count on a Cartesian communicator");
    tu_expect_class(MPI_Dist_graph_neighbors_count(c, &r, &src, &dst), MPI_ERR_TOPOLOGY,
                    "Dist_graph_neighbors_count on a Cartesian communicator");
    MPI_Barrier(c);
    MPI_Comm_free(&c);
}

static void graph_errors(void)
{
    int index[2] = {1, 2}, edges[2] = {0, 0}, r, in, out, w;
    MPI_Comm g = MPI_COMM_NULL;

    tu_expect_class(MPI_Graph_create(MPI_COMM_WORLD, tu_size + 1, index, edges, 0, &g),
                    MPI_ERR_ARG, "Graph_create of size + 1 nodes");
    tu_expect_class(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &g), MPI_ERR_ARG,
                    "Graph_create of -1 nodes");
    if (tu_size >= 2) {
        int down[2] = {2, 1};
        tu_expect_class(MPI_Graph_create(MPI_COMM_WORLD, 2, down, edges, 0, &g), MPI_ERR_ARG,
                        "Graph_create with a decreasing index");
        tu_expect_class(MPI_Graph_map(MPI_COMM_WORLD, 2, down, edges, &r), MPI_ERR_ARG,
                        "Graph_map with a decreasing index");
    }
    edges[0] = 1; /* node 1 of a 1-node graph */
    index[0] = 1;
    tu_expect_class(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g), MPI_ERR_ARG,
                    "Graph_create with an edge to a missing node");
    edges[0] = -1;
    tu_expect_class(MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g), MPI_ERR_ARG,
                    "Graph_create with an edge to node -1");
    TU_CHECK(g == MPI_COMM_NULL, "a failed Graph_create set its output");

    edges[0] = 0;
    MPI_Graph_create(MPI_COMM_WORLD, 1, index, edges, 0, &g);
    if (g != MPI_COMM_NULL) {
        tu_expect_class(MPI_Graph_neighbors_count(g, 1, &r), MPI_ERR_RANK,
                        "Graph_neighbors_count of node 1 of 1");
        tu_expect_class(MPI_Graph_neighbors(g, -1, 1, &r), MPI_ERR_RANK,
                        "Graph_neighbors of node -1");
        tu_expect_class(MPI_Dist_graph_neighbors_count(g, &in, &out, &w), MPI_ERR_TOPOLOGY,
                        "Dist_graph_neighbors_count on a graph communicator");
        tu_expect_class(MPI_Cartdim_get(g, &r), MPI_ERR_TOPOLOGY,
                        "Cartdim_get on a graph communicator");
        MPI_Comm_free(&g);
    }
}

static void dist_graph_errors(void)
{
    int bad = tu_size, ok = 0, neg = -1, one = 1, wneg = -5, w = 1;
    MPI_Comm g = MPI_COMM_NULL;
    /* gcc's -Wstringop-overread takes the ABI's constant pointers
     * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY for empty arrays: pass copies. */
    int *volatile uw = MPI_UNWEIGHTED, *volatile empty = MPI_WEIGHTS_EMPTY;

    tu_expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &bad, uw, 0,
                                                   &ok, uw, MPI_INFO_NULL, 0, &g),
                    MPI_ERR_RANK, "Dist_graph_create_adjacent with source size");
    tu_expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &ok, uw, 0,
                                                   &ok, uw, MPI_INFO_NULL, 0, &g),
                    MPI_ERR_ARG, "Dist_graph_create_adjacent with indegree -1");
    tu_expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &ok, &wneg, 1, &ok, &w,
                                                   MPI_INFO_NULL, 0, &g),
                    MPI_ERR_ARG, "Dist_graph_create_adjacent with weight -5");
    tu_expect_class(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &ok, uw, 1,
                                                   &ok, &w, MPI_INFO_NULL, 0, &g),
                    MPI_ERR_ARG, "Dist_graph_create_adjacent weighted on one side only");
    tu_expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &ok, &one, &bad, uw,
                                          MPI_INFO_NULL, 0, &g),
                    MPI_ERR_RANK, "Dist_graph_create with destination size");
    tu_expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &neg, &one, &ok, uw,
                                          MPI_INFO_NULL, 0, &g),
                    MPI_ERR_RANK, "Dist_graph_create with source -1");
    tu_expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &ok, &neg, &ok, uw,
                                          MPI_INFO_NULL, 0, &g),
                    MPI_ERR_ARG, "Dist_graph_create with degree -1");
    tu_expect_class(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &ok, &one, &ok, empty,
                                          MPI_INFO_NULL, 0, &g),
                    MPI_ERR_ARG, "Dist_graph_create with empty for an edge");
    TU_CHECK(g == MPI_COMM_NULL, "a failed Dist_graph_create set its output");
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "topo_errors");
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        int dims[1], periods[1], coords[1];
        if (tu_rank == 0)
            MPI_Cart_get(MPI_COMM_WORLD, 1, dims, periods, coords);
        MPI_Barrier(MPI_COMM_WORLD);
        tu_die("MPI_Cart_get on MPI_COMM_WORLD returned under MPI_ERRORS_ARE_FATAL");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    cart_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    graph_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    dist_graph_errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        printf("topo_errors: %d ranks OK\n", tu_size);
    MPI_Finalize();
    return 0;
}
