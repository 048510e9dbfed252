/* Process topologies attached to communicators: Cartesian, graph and
 * distributed graph. The API layer (api/topo*.c) builds them; the rest of
 * the library reads a process's neighbours through ol_topo_neighbors. */
#ifndef OL_TOPO_H
#define OL_TOPO_H

#include "ol_common.h"

/* The object behind comm->topo. Defined here, not in the API layer, so
 * that the collectives (neighbourhood collectives) can read it. */
struct ol_topo {
    int kind;                 /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int ndims;                /* Cartesian: dims[ndims], periods[ndims] (0 or 1) */
    int *dims, *periods;
    int nnodes;               /* graph: index[nnodes], edges[index[nnodes - 1]] */
    int *index, *edges;
    bool weighted;            /* distributed graph: weights given at creation */
    int indegree, outdegree;  /* this process's neighbours, see ol_topo_neighbors */
    int *in, *out;
    int *in_weights, *out_weights; /* weighted distributed graphs only */
};

/* A copy for the communicator made by MPI_Comm_dup. */
ol_status_t ol_topo_dup(const struct ol_topo *topo, struct ol_topo **copy);
void ol_topo_free(struct ol_topo *topo);

/* The calling process's neighbours (ranks of the communicator, or
 * MPI_PROC_NULL), in the order of the neighbourhood collectives:
 * - Cartesian: for each dimension, the source then the destination of
 *   MPI_Cart_shift by 1 (the -1 then the +1 neighbour), MPI_PROC_NULL at a
 *   non-periodic edge; sources and destinations are the same list;
 * - graph: MPI_Graph_neighbors order, the same list for both;
 * - distributed graph: the order MPI_Dist_graph_neighbors gives.
 * The arrays belong to the topology and live as long as it does. */
static inline void ol_topo_neighbors(const struct ol_topo *topo, int *indegree,
                                     const int **sources, int *outdegree,
                                     const int **destinations)
{
    *indegree = topo->indegree;
    *sources = topo->in;
    *outdegree = topo->outdegree;
    *destinations = topo->out;
}

#endif
