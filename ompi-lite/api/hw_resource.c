/* MPI_Get_hw_resource_info (new in MPI-4.1; "Hardware Resource Information",
 * 9.1.2 in MPI-5.0), and the hwloc view it shares with MPI_Comm_split_type
 * (hw_resource.h).
 *
 * The info object has one key per hardware resource type hwloc finds on
 * this machine, named as the standard's advice suggests, a URI whose
 * scheme says who names the types: "hwloc://Machine", "hwloc://Package",
 * "hwloc://Die", "hwloc://NUMANode", "hwloc://L3Cache" (and the other
 * caches), "hwloc://Core", "hwloc://PU" (hwloc_obj_type_string's names;
 * hwloc's "Group" objects are left out: several levels share that name).
 * The value is "true" when every PU the calling process may run on at the
 * moment of the call lies in one object of that type, "false" otherwise:
 * a process bound to one core has "hwloc://Core" "true"; an unbound one
 * has "true" only for the types of which the machine has a single
 * object. Every key with "true" is a value of "mpi_hw_resource_type" that
 * MPI_Comm_split_type(MPI_COMM_TYPE_RESOURCE_GUIDED) splits by (comm.c). */
#include "gen_impl.h"
#include "hw_resource.h"
#include "ol_info.h"

#include <stdio.h>

bool ol_hw_open(ol_hw_view_t *hw)
{
    if (hwloc_topology_init(&hw->topo) != 0)
        return false;
    if (hwloc_topology_load(hw->topo) != 0 || !(hw->cpus = hwloc_bitmap_alloc())) {
        hwloc_topology_destroy(hw->topo);
        return false;
    }
    if (hwloc_get_cpubind(hw->topo, hw->cpus, 0) != 0)
        hwloc_bitmap_copy(hw->cpus, hwloc_topology_get_topology_cpuset(hw->topo));
    return true;
}

void ol_hw_close(ol_hw_view_t *hw)
{
    hwloc_bitmap_free(hw->cpus);
    hwloc_topology_destroy(hw->topo);
}

int ol_hw_index_at_depth(const ol_hw_view_t *hw, int depth)
{
    if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE)
        return -1;
    unsigned n = hwloc_get_nbobjs_by_depth(hw->topo, depth);
    for (unsigned i = 0; i < n; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_depth(hw->topo, depth, i);
        if (obj->cpuset && hwloc_bitmap_isincluded(hw->cpus, obj->cpuset))
            return (int)obj->logical_index;
    }
    return -1;
}

/* The key of the objects at depth: "hwloc://" and hwloc's name of them. */
static ol_status_t add_level(const ol_hw_view_t *hw, int depth, ol_info_t *info)
{
    hwloc_obj_type_t type = hwloc_get_depth_type(hw->topo, depth);
    if (type == HWLOC_OBJ_GROUP)
        return OL_OK;
    char key[64];
    snprintf(key, sizeof(key), "hwloc://%s", hwloc_obj_type_string(type));
    return ol_info_set(info, key, ol_hw_index_at_depth(hw, depth) >= 0 ? "true" : "false");
}

/* The CPU levels from the machine down to the PUs, then the NUMA nodes
 * (hwloc 2 keeps memory objects off the main tree, at a depth of their
 * own). */
static ol_status_t describe(const ol_hw_view_t *hw, ol_info_t *info)
{
    ol_status_t rc = OL_OK;
    int depths = hwloc_topology_get_depth(hw->topo);
    for (int depth = 0; depth < depths && rc == OL_OK; depth++)
        rc = add_level(hw, depth, info);
    if (rc == OL_OK && hwloc_get_nbobjs_by_depth(hw->topo, HWLOC_TYPE_DEPTH_NUMANODE) > 0)
        rc = add_level(hw, HWLOC_TYPE_DEPTH_NUMANODE, info);
    return rc;
}

int ol_api_get_hw_resource_info(MPI_Info *hw_info)
{
    ol_hw_view_t hw;
    if (!ol_hw_open(&hw)) {
        ol_api_set_detail("hwloc could not read this machine's topology");
        return MPI_ERR_OTHER;
    }
    ol_info_t *info = ol_info_create();
    int rc = ol_info_give(info, info ? describe(&hw, info) : MPI_ERR_NO_MEM, hw_info);
    ol_hw_close(&hw);
    return rc;
}
