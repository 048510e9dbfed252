/* Neighbourhood collectives (allgather, allgatherv, alltoall, alltoallv,
 * alltoallw), linear: every exchange with the topology's neighbours at
 * once.
 *
 * Cost: one step; indegree receives and outdegree sends, each block once on
 * the wire. MPI_PROC_NULL neighbours (the edges of a non-periodic Cartesian
 * grid) exchange nothing, their blocks stay untouched.
 *
 * The standard pairs a Cartesian process's send to its -1 neighbour in
 * dimension d with that neighbour's receive from its +1 neighbour. When one
 * process is both neighbours (a periodic dimension of 1 or 2 processes), the
 * two messages share a source and a tag and arrive in the order they were
 * sent (-1 first), so the receives are posted +1 first to match them.
 *
 * Example, a periodic ring of 2 processes (sources = destinations =
 * {other, other}): 0 sends block 0 then block 1 to 1, and receives into
 * block 1 then block 0 from 1: its block 1 (from its +1 neighbour) gets what
 * 1 sent to its -1 neighbour. */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "ol_topo.h"

ol_status_t ol_coll_neighbor_linear(ol_sched_t *s, const ol_coll_args_t *a)
{
    int indegree, outdegree;
    const int *sources, *destinations;
    ol_topo_neighbors(a->comm->topo, &indegree, &sources, &outdegree, &destinations);
    bool cart = a->comm->topo->kind == MPI_CART;
    ol_status_t rc = OL_OK;
    for (int j = 0; rc == OL_OK && j < indegree; j++) {
        int i = cart ? j ^ 1 : j;
        ol_coll_block_t in = ol_coll_recv_block(a, i);
        if (sources[i] != MPI_PROC_NULL)
            rc = ol_sched_recv(s, in.buf, in.count, in.dt, sources[i]);
    }
    for (int i = 0; rc == OL_OK && i < outdegree; i++) {
        ol_coll_block_t out = ol_coll_send_block(a, i);
        if (destinations[i] != MPI_PROC_NULL)
            rc = ol_sched_send(s, out.buf, out.count, out.dt, destinations[i]);
    }
    return rc;
}
