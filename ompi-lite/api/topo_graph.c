/* Graph topologies (MPI_Graph_create: every process gives the whole graph)
 * and distributed graphs (each process gives some edges, or its own
 * neighbours). reorder is ignored: processes keep their ranks. */
#include "gen_impl.h"
#include "coll.h"
#include "topo_internal.h"

#include <limits.h>
#include <stdlib.h>

/* Edges one process may give to MPI_Dist_graph_create: three ints each
 * travel in one int-counted block. */
enum { MAX_EDGES = INT_MAX / 3 };

static int min(int a, int b)
{
    return a < b ? a : b;
}

/* ---- graph ------------------------------------------------------------------------ */

/* The edges of node r lie at index[r - 1] .. index[r] - 1 of edges. */
static int first_edge(const struct ol_topo *g, int r)
{
    return r > 0 ? g->index[r - 1] : 0;
}

ol_status_t ol_topo_graph_neighbors(struct ol_topo *topo, int rank)
{
    int first = first_edge(topo, rank);
    topo->indegree = topo->outdegree = topo->index[rank] - first;
    topo->in = ol_topo_ints(topo->edges + first, topo->indegree);
    topo->out = ol_topo_ints(topo->edges + first, topo->outdegree);
    return topo->in && topo->out ? OL_OK : MPI_ERR_NO_MEM;
}

/* index must not decrease and every edge must name a node; self-loops and
 * repeated edges are allowed. */
static int check_graph(int nnodes, const int index[], const int edges[], int size)
{
    if (nnodes < 0 || nnodes > size) {
        ol_api_set_detail("nnodes %d is not in 0 .. %d, the size of the communicator", nnodes,
                          size);
        return MPI_ERR_ARG;
    }
    if (nnodes > 0 && !index) {
        ol_api_set_detail("index is NULL");
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < nnodes; i++) {
        if (index[i] < (i > 0 ? index[i - 1] : 0)) {
            ol_api_set_detail("index[%d] = %d is below the entry before it", i, index[i]);
            return MPI_ERR_ARG;
        }
    }
    int n = nnodes > 0 ? index[nnodes - 1] : 0;
    if (n > 0 && !edges) {
        ol_api_set_detail("edges is NULL");
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (edges[i] < 0 || edges[i] >= nnodes) {
            ol_api_set_detail("edges[%d] = %d is not a node of the %d-node graph", i, edges[i],
                              nnodes);
            return MPI_ERR_ARG;
        }
    }
    return MPI_SUCCESS;
}

int ol_api_graph_create(ol_comm_t *comm_old, int nnodes, const int index[], const int edges[],
                        int reorder, MPI_Comm *comm_graph)
{
    (void)reorder;
    int rc = check_graph(nnodes, index, edges, comm_old->size);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The standard: an empty graph gives MPI_COMM_NULL everywhere. */
    if (nnodes == 0) {
        *comm_graph = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    struct ol_topo *topo = ol_topo_new(MPI_GRAPH);
    if (topo) {
        topo->nnodes = nnodes;
        topo->index = ol_topo_ints(index, nnodes);
        topo->edges = ol_topo_ints(edges, index[nnodes - 1]);
    }
    if (!topo || !topo->index || !topo->edges) {
        ol_topo_free(topo);
        return MPI_ERR_NO_MEM;
    }
    int color = comm_old->rank < nnodes ? 0 : MPI_UNDEFINED;
    return ol_topo_create_comm(comm_old, color, comm_old->rank, topo, comm_graph);
}

int ol_api_graphdims_get(ol_comm_t *comm, int *nnodes, int *nedges)
{
    struct ol_topo *g = ol_topo_of(comm, MPI_GRAPH);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    *nnodes = g->nnodes;
    *nedges = g->index[g->nnodes - 1];
    return MPI_SUCCESS;
}

static int check_max(const char *name, int max, const void *array)
{
    if (max < 0) {
        ol_api_set_detail("%s %d is negative", name, max);
        return MPI_ERR_ARG;
    }
    if (max > 0 && !array) {
        ol_api_set_detail("the array of %s entries is NULL", name);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

/* At most maxindex and maxedges entries are written: the arrays' lengths. */
int ol_api_graph_get(ol_comm_t *comm, int maxindex, int maxedges, int index[], int edges[])
{
    struct ol_topo *g = ol_topo_of(comm, MPI_GRAPH);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    int rc = check_max("maxindex", maxindex, index);
    if (rc == MPI_SUCCESS)
        rc = check_max("maxedges", maxedges, edges);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < min(maxindex, g->nnodes); i++)
        index[i] = g->index[i];
    for (int i = 0; i < min(maxedges, g->index[g->nnodes - 1]); i++)
        edges[i] = g->edges[i];
    return MPI_SUCCESS;
}

static int check_node(const struct ol_topo *g, int rank)
{
    if (rank >= 0 && rank < g->nnodes)
        return MPI_SUCCESS;
    ol_api_set_detail("rank %d is not a node of the %d-node graph", rank, g->nnodes);
    return MPI_ERR_RANK;
}

int ol_api_graph_neighbors_count(ol_comm_t *comm, int rank, int *nneighbors)
{
    struct ol_topo *g = ol_topo_of(comm, MPI_GRAPH);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    int rc = check_node(g, rank);
    if (rc == MPI_SUCCESS)
        *nneighbors = g->index[rank] - first_edge(g, rank);
    return rc;
}

int ol_api_graph_neighbors(ol_comm_t *comm, int rank, int maxneighbors, int neighbors[])
{
    struct ol_topo *g = ol_topo_of(comm, MPI_GRAPH);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    int rc = check_node(g, rank);
    if (rc == MPI_SUCCESS)
        rc = check_max("maxneighbors", maxneighbors, neighbors);
    if (rc != MPI_SUCCESS)
        return rc;
    int first = first_edge(g, rank);
    for (int i = 0; i < min(maxneighbors, g->index[rank] - first); i++)
        neighbors[i] = g->edges[first + i];
    return MPI_SUCCESS;
}

int ol_api_graph_map(ol_comm_t *comm, int nnodes, const int index[], const int edges[],
                     int *newrank)
{
    int rc = check_graph(nnodes, index, edges, comm->size);
    if (rc == MPI_SUCCESS)
        *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return rc;
}

/* ---- distributed graph: arguments ------------------------------------------------- */

static int check_ranks(const char *name, const int *ranks, int n, int size)
{
    if (n > 0 && !ranks) {
        ol_api_set_detail("%s is NULL", name);
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= size) {
            ol_api_set_detail("%s[%d] = %d is not a rank of the communicator", name, i,
                              ranks[i]);
            return MPI_ERR_RANK;
        }
    }
    return MPI_SUCCESS;
}

/* weights of n edges, not MPI_UNWEIGHTED: an array of non-negative
 * integers; MPI_WEIGHTS_EMPTY (or NULL) only where there are no edges. */
static int check_weights(const char *name, const int *weights, int n)
{
    if (n > 0 && (!weights || weights == MPI_WEIGHTS_EMPTY)) {
        ol_api_set_detail("%s has no weights for %d edges", name, n);
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (weights[i] < 0) {
            ol_api_set_detail("%s[%d] = %d is negative", name, i, weights[i]);
            return MPI_ERR_ARG;
        }
    }
    return MPI_SUCCESS;
}

static int check_degree(const char *name, int degree)
{
    if (degree >= 0)
        return MPI_SUCCESS;
    ol_api_set_detail("%s %d is negative", name, degree);
    return MPI_ERR_ARG;
}

/* ---- distributed graph: construction ---------------------------------------------- */

/* A distributed graph with room for the given degrees. */
static struct ol_topo *dist_graph_new(int indegree, int outdegree, bool weighted)
{
    struct ol_topo *topo = ol_topo_new(MPI_DIST_GRAPH);
    if (!topo)
        return NULL;
    topo->weighted = weighted;
    topo->indegree = indegree;
    topo->outdegree = outdegree;
    topo->in = ol_topo_ints(NULL, indegree);
    topo->out = ol_topo_ints(NULL, outdegree);
    bool ok = topo->in && topo->out;
    if (weighted) {
        topo->in_weights = ol_topo_ints(NULL, indegree);
        topo->out_weights = ol_topo_ints(NULL, outdegree);
        ok = ok && topo->in_weights && topo->out_weights;
    }
    if (!ok) {
        ol_topo_free(topo);
        return NULL;
    }
    return topo;
}

static int check_adjacent(int indegree, const int sources[], const int sourceweights[],
                          int outdegree, const int destinations[], const int destweights[],
                          int size)
{
    int rc = check_degree("indegree", indegree);
    if (rc == MPI_SUCCESS)
        rc = check_degree("outdegree", outdegree);
    if (rc == MPI_SUCCESS)
        rc = check_ranks("sources", sources, indegree, size);
    if (rc == MPI_SUCCESS)
        rc = check_ranks("destinations", destinations, outdegree, size);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED)) {
        ol_api_set_detail("sourceweights and destweights must both be MPI_UNWEIGHTED or "
                          "neither");
        return MPI_ERR_ARG;
    }
    if (sourceweights == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    rc = check_weights("sourceweights", sourceweights, indegree);
    return rc == MPI_SUCCESS ? check_weights("destweights", destweights, outdegree) : rc;
}

static void copy_ints(int *to, const int *from, int n)
{
    for (int i = 0; i < n; i++)
        to[i] = from[i];
}

int ol_api_dist_graph_create_adjacent(ol_comm_t *comm_old, int indegree, const int sources[],
                                      const int sourceweights[], int outdegree,
                                      const int destinations[], const int destweights[],
                                      MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)info; /* hints about the graph: nothing to optimise without reordering */
    (void)reorder;
    int rc = check_adjacent(indegree, sources, sourceweights, outdegree, destinations,
                            destweights, comm_old->size);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ol_topo *topo = dist_graph_new(indegree, outdegree, sourceweights != MPI_UNWEIGHTED);
    if (!topo)
        return MPI_ERR_NO_MEM;
    copy_ints(topo->in, sources, indegree);
    copy_ints(topo->out, destinations, outdegree);
    if (topo->weighted) {
        copy_ints(topo->in_weights, sourceweights, indegree);
        copy_ints(topo->out_weights, destweights, outdegree);
    }
    return ol_topo_create_comm(comm_old, 0, comm_old->rank, topo, comm_dist_graph);
}

/* The edges one process gives to MPI_Dist_graph_create, as (source,
 * destination, weight) triples, weight 1 when unweighted. */
static int local_edges(int n, const int sources[], const int degrees[], const int destinations[],
                       const int weights[], int size, int **triples, int *count)
{
    int rc = check_degree("n", n);
    if (rc == MPI_SUCCESS && n > 0 && !degrees) {
        ol_api_set_detail("degrees is NULL");
        rc = MPI_ERR_ARG;
    }
    long long m = 0;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        rc = check_degree("a degree", degrees[i]);
        m += degrees[i];
    }
    if (rc == MPI_SUCCESS && m > MAX_EDGES) {
        ol_api_set_detail("%lld edges are more than one process may give", m);
        rc = MPI_ERR_ARG;
    }
    if (rc == MPI_SUCCESS)
        rc = check_ranks("sources", sources, n, size);
    if (rc == MPI_SUCCESS)
        rc = check_ranks("destinations", destinations, (int)m, size);
    if (rc == MPI_SUCCESS && weights != MPI_UNWEIGHTED)
        rc = check_weights("weights", weights, (int)m);
    if (rc != MPI_SUCCESS)
        return rc;
    int *t = ol_topo_ints(NULL, 3 * (int)m);
    if (!t)
        return MPI_ERR_NO_MEM;
    for (int i = 0, e = 0; i < n; i++) {
        for (int j = 0; j < degrees[i]; j++, e++) {
            t[3 * e] = sources[i];
            t[3 * e + 1] = destinations[e];
            t[3 * e + 2] = weights == MPI_UNWEIGHTED ? 1 : weights[e];
        }
    }
    *triples = t;
    *count = (int)m;
    return MPI_SUCCESS;
}

/* Each process's edge count (counts[p], room for comm->size) and whether
 * any process gave weights. */
static int gather_counts(ol_comm_t *comm, int count, bool weighted, int *counts,
                         bool *any_weighted)
{
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    int mine[2] = {count, weighted}, *facts = malloc(sizeof(int) * 2 * (size_t)comm->size);
    if (!facts)
        return MPI_ERR_NO_MEM;
    int rc = ol_coll_allgather(mine, 2, ints, facts, 2, ints, comm);
    *any_weighted = false;
    for (int p = 0; rc == MPI_SUCCESS && p < comm->size; p++) {
        counts[p] = facts[2 * p];
        *any_weighted = *any_weighted || facts[2 * p + 1];
    }
    free(facts);
    return rc;
}

/* Every process learns every edge: each process's triples (counts[p] of
 * them) one after another in *all, *nedges in all. The blocks differ in
 * size (one process may give millions of edges, the others none), so this
 * is an allgatherv. */
static int gather_edges(ol_comm_t *comm, const int *triples, const int *counts, int **all,
                        size_t *nedges)
{
    int size = comm->size;
    MPI_Count *ints_of = malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t)size);
    size_t total = 0;
    for (int p = 0; ints_of && displs && p < size; p++) {
        ints_of[p] = 3 * (MPI_Count)counts[p];
        displs[p] = (MPI_Aint)(3 * total);
        total += (size_t)counts[p];
    }
    int *gathered = malloc(sizeof(int) * 3 * total + 1);
    int rc = ints_of && displs && gathered ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
        ol_coll_args_t a = {.kind = OL_COLL_ALLGATHERV,
                            .sendbuf = triples,
                            .sendcount = ints_of[comm->rank],
                            .sendtype = ints,
                            .recvbuf = gathered,
                            .recvcounts = ints_of,
                            .rdispls = displs,
                            .recvtype = ints,
                            .comm = comm};
        rc = ol_coll_run(&a);
    }
    free(ints_of);
    free(displs);
    if (rc != MPI_SUCCESS) {
        free(gathered);
        return rc;
    }
    *all = gathered;
    *nedges = total;
    return MPI_SUCCESS;
}

/* Picks this process's neighbours out of all edges, in the order of the
 * giving processes' ranks and then of their arguments. */
static struct ol_topo *neighbors_from_edges(const int *all, size_t nedges, int me, bool weighted)
{
    int in = 0, out = 0;
    for (size_t e = 0; e < nedges; e++) {
        out += all[3 * e] == me;
        in += all[3 * e + 1] == me;
    }
    struct ol_topo *topo = dist_graph_new(in, out, weighted);
    if (!topo)
        return NULL;
    in = out = 0;
    for (size_t e = 0; e < nedges; e++) {
        const int *t = all + 3 * e;
        if (t[0] == me) {
            if (weighted)
                topo->out_weights[out] = t[2];
            topo->out[out++] = t[1];
        }
        if (t[1] == me) {
            if (weighted)
                topo->in_weights[in] = t[2];
            topo->in[in++] = t[0];
        }
    }
    return topo;
}

int ol_api_dist_graph_create(ol_comm_t *comm_old, int n, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], MPI_Info info,
                             int reorder, MPI_Comm *comm_dist_graph)
{
    (void)info;
    (void)reorder;
    int *triples, count;
    int rc = local_edges(n, sources, degrees, destinations, weights, comm_old->size, &triples,
                         &count);
    if (rc != MPI_SUCCESS)
        return rc;
    int *all = NULL;
    int *counts = malloc(sizeof(int) * (size_t)comm_old->size);
    size_t nedges = 0;
    bool weighted;
    rc = counts ? gather_counts(comm_old, count, weights != MPI_UNWEIGHTED, counts, &weighted)
                : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = gather_edges(comm_old, triples, counts, &all, &nedges);
    free(triples);
    free(counts);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ol_topo *topo = neighbors_from_edges(all, nedges, comm_old->rank, weighted);
    free(all);
    if (!topo)
        return MPI_ERR_NO_MEM;
    return ol_topo_create_comm(comm_old, 0, comm_old->rank, topo, comm_dist_graph);
}

/* ---- distributed graph: queries ----------------------------------------------------- */

int ol_api_dist_graph_neighbors_count(ol_comm_t *comm, int *indegree, int *outdegree,
                                      int *weighted)
{
    struct ol_topo *g = ol_topo_of(comm, MPI_DIST_GRAPH);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    *indegree = g->indegree;
    *outdegree = g->outdegree;
    *weighted = g->weighted;
    return MPI_SUCCESS;
}

/* Weights are written only for a weighted graph, and where the caller
 * passed an array for them. */
static bool wants_weights(const struct ol_topo *g, const int *weights)
{
    return g->weighted && weights && weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY;
}

int ol_api_dist_graph_neighbors(ol_comm_t *comm, int maxindegree, int sources[],
                                int sourceweights[], int maxoutdegree, int destinations[],
                                int destweights[])
{
    struct ol_topo *g = ol_topo_of(comm, MPI_DIST_GRAPH);
    if (!g)
        return MPI_ERR_TOPOLOGY;
    int rc = check_max("maxindegree", maxindegree, sources);
    if (rc == MPI_SUCCESS)
        rc = check_max("maxoutdegree", maxoutdegree, destinations);
    if (rc != MPI_SUCCESS)
        return rc;
    int in = min(maxindegree, g->indegree), out = min(maxoutdegree, g->outdegree);
    copy_ints(sources, g->in, in);
    copy_ints(destinations, g->out, out);
    if (wants_weights(g, sourceweights))
        copy_ints(sourceweights, g->in_weights, in);
    if (wants_weights(g, destweights))
        copy_ints(destweights, g->out_weights, out);
    return MPI_SUCCESS;
}
