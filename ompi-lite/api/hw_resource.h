/* What hwloc says of this machine and of where this process may run: the
 * view MPI_Get_hw_resource_info (hw_resource.c) and MPI_Comm_split_type's
 * hardware splits (comm.c) share. */
#ifndef OL_API_HW_RESOURCE_H
#define OL_API_HW_RESOURCE_H

#include <hwloc.h>
#include <stdbool.h>

typedef struct {
    hwloc_topology_t topo;
    hwloc_bitmap_t cpus; /* the PUs this process may run on, now */
} ol_hw_view_t;

/* Loads the topology and reads the binding (where it cannot be read, the
 * process may run anywhere); false when hwloc fails. */
bool ol_hw_open(ol_hw_view_t *hw);
void ol_hw_close(ol_hw_view_t *hw);

/* The logical index of the object at depth that holds all the PUs this
 * process may run on, or -1: an unbound process is held by an object only
 * when that object spans the whole machine. */
int ol_hw_index_at_depth(const ol_hw_view_t *hw, int depth);

#endif
