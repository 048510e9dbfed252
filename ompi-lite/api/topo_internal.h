/* Topologies inside the API layer: the object behind comm->topo, shared by
 * topo.c (object, creation of the communicator, MPI_Topo_test),
 * topo_cart.c (Cartesian, MPI_Dims_create) and topo_graph.c (graph and
 * distributed graph). */
#ifndef OL_API_TOPO_INTERNAL_H
#define OL_API_TOPO_INTERNAL_H

#include "ol_api.h"
#include "ol_topo.h"

/* An empty topology of kind; NULL without memory. */
struct ol_topo *ol_topo_new(int kind);
/* A heap copy of n ints of src (zeros when src is NULL); never a NULL
 * result for n == 0, so that NULL always means no memory. */
int *ol_topo_ints(const int *src, int n);

/* Creates the communicator of a topology constructor, collectively over
 * comm: the processes with color MPI_UNDEFINED get MPI_COMM_NULL, the others
 * a communicator per color ordered by key, which then owns topo. topo is
 * freed whenever it is not attached (MPI_COMM_NULL, errors). */
int ol_topo_create_comm(ol_comm_t *comm, int color, int key, struct ol_topo *topo,
                        MPI_Comm *newcomm);

/* comm's topology when it is of kind, else NULL with the error detail set
 * (the caller returns MPI_ERR_TOPOLOGY). */
struct ol_topo *ol_topo_of(const ol_comm_t *comm, int kind);

/* Fill topo->in/out for the process of rank in the new communicator. */
ol_status_t ol_topo_cart_neighbors(struct ol_topo *topo, int rank);
ol_status_t ol_topo_graph_neighbors(struct ol_topo *topo, int rank);

#endif
