/* Topologies: the object every kind shares, the communicator it hangs on,
 * MPI_Topo_test. The kinds live in topo_cart.c and topo_graph.c. */
#include "gen_impl.h"
#include "comm_internal.h"
#include "topo_internal.h"

#include <stdlib.h>
#include <string.h>

struct ol_topo *ol_topo_new(int kind)
{
    struct ol_topo *topo = calloc(1, sizeof(*topo));
    if (topo)
        topo->kind = kind;
    return topo;
}

int *ol_topo_ints(const int *src, int n)
{
    int *copy = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (copy && src && n > 0)
        memcpy(copy, src, sizeof(int) * (size_t)n);
    return copy;
}

void ol_topo_free(struct ol_topo *topo)
{
    if (!topo)
        return;
    free(topo->dims);
    free(topo->periods);
    free(topo->index);
    free(topo->edges);
    free(topo->in);
    free(topo->out);
    free(topo->in_weights);
    free(topo->out_weights);
    free(topo);
}

static int nedges(const struct ol_topo *topo)
{
    return topo->nnodes > 0 ? topo->index[topo->nnodes - 1] : 0;
}

/* Copies one array of the topology; an array that is absent stays so. */
static bool copy_array(int **to, const int *from, int n)
{
    return !from || (*to = ol_topo_ints(from, n));
}

ol_status_t ol_topo_dup(const struct ol_topo *topo, struct ol_topo **copy)
{
    struct ol_topo *c = malloc(sizeof(*c));
    if (!c)
        return MPI_ERR_NO_MEM;
    *c = (struct ol_topo){.kind = topo->kind, .ndims = topo->ndims, .nnodes = topo->nnodes,
                          .weighted = topo->weighted, .indegree = topo->indegree,
                          .outdegree = topo->outdegree};
    bool ok = copy_array(&c->dims, topo->dims, topo->ndims) &&
              copy_array(&c->periods, topo->periods, topo->ndims) &&
              copy_array(&c->index, topo->index, topo->nnodes) &&
              copy_array(&c->edges, topo->edges, nedges(topo)) &&
              copy_array(&c->in, topo->in, topo->indegree) &&
              copy_array(&c->out, topo->out, topo->outdegree) &&
              copy_array(&c->in_weights, topo->in_weights, topo->indegree) &&
              copy_array(&c->out_weights, topo->out_weights, topo->outdegree);
    if (!ok) {
        ol_topo_free(c);
        return MPI_ERR_NO_MEM;
    }
    *copy = c;
    return OL_OK;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case MPI_CART:
        return "Cartesian";
    case MPI_GRAPH:
        return "graph";
    default:
        return "distributed graph";
    }
}

struct ol_topo *ol_topo_of(const ol_comm_t *comm, int kind)
{
    if (comm->topo && comm->topo->kind == kind)
        return comm->topo;
    ol_api_set_detail("%s has no %s topology", comm->name[0] ? comm->name : "comm",
                      kind_name(kind));
    return NULL;
}

/* The neighbours of a Cartesian or graph topology depend on the rank the
 * process got; a distributed graph's were given or exchanged already. */
static ol_status_t fill_neighbors(struct ol_topo *topo, int rank)
{
    switch (topo->kind) {
    case MPI_CART:
        return ol_topo_cart_neighbors(topo, rank);
    case MPI_GRAPH:
        return ol_topo_graph_neighbors(topo, rank);
    default:
        return OL_OK;
    }
}

int ol_topo_create_comm(ol_comm_t *comm, int color, int key, struct ol_topo *topo,
                        MPI_Comm *newcomm)
{
    int rc = ol_comm_split_internal(comm, color, key, newcomm);
    if (rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL) {
        ol_topo_free(topo);
        return rc;
    }
    ol_comm_t *c = ol_comm_from_handle(*newcomm);
    rc = fill_neighbors(topo, c->rank);
    if (rc != OL_OK) {
        ol_topo_free(topo);
        ol_api_comm_free(newcomm);
        return rc;
    }
    c->topo = topo;
    return MPI_SUCCESS;
}

int ol_api_topo_test(ol_comm_t *comm, int *status)
{
    *status = comm->topo ? comm->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
