/* Where a host's ranks run: --map-by chooses the cores of each local rank,
 * --bind-to how tightly it is held to them.
 *
 * Local rank i takes `pe` consecutive cores: by slot/core/node, cores
 * i*pe .. i*pe+pe-1 of the host; by socket (or numa), ranks go round-robin
 * over the packages (NUMA nodes), rank i taking the (i / nobjs)-th group of
 * pe cores inside object i % nobjs. More ranks than cores wrap around (the
 * host is oversubscribed; the ranks share cores). Then bind-to core keeps
 * exactly those cores, socket/numa widen to the package/NUMA node holding
 * the first of them, none binds nothing. Without --bind-to (default) a
 * host's ranks are bound to cores when they fit on its cores (n * pe <=
 * cores), and not at all when they do not: ranks sharing a core because
 * they are bound to it would be worse off than ranks the kernel moves.
 * Example: 2 packages x 4 cores, 4 ranks, --map-by socket --bind-to core:
 * ranks 0,1,2,3 on cores 0,4,1,5. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc/glibc-sched.h>

#include "daemon.h"
#include "util.h"

static hwloc_obj_type_t unit_type(hwloc_topology_t t)
{
    return hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
}

/* The k-th unit (core) inside `within` (NULL: the whole host), wrapping. */
static hwloc_obj_t nth_unit(hwloc_topology_t t, hwloc_const_cpuset_t within, unsigned k)
{
    hwloc_obj_type_t ut = unit_type(t);
    unsigned n = within ? (unsigned)hwloc_get_nbobjs_inside_cpuset_by_type(t, within, ut)
                        : (unsigned)hwloc_get_nbobjs_by_type(t, ut);
    if (n == 0)
        return NULL;
    return within ? hwloc_get_obj_inside_cpuset_by_type(t, within, ut, k % n)
                  : hwloc_get_obj_by_type(t, ut, k % n);
}

static hwloc_obj_t numa_of(hwloc_topology_t t, hwloc_const_cpuset_t set)
{
    int n = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, (unsigned)i);
        if (o->cpuset && hwloc_bitmap_intersects(o->cpuset, set))
            return o;
    }
    return NULL;
}

static char *core_list(hwloc_topology_t t, hwloc_const_cpuset_t set)
{
    char *s = ol_xstrdup("");
    hwloc_obj_type_t ut = unit_type(t);
    int n = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, ut);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t o = hwloc_get_obj_inside_cpuset_by_type(t, set, ut, (unsigned)i);
        char *next = ol_xasprintf("%s%s%u", s, i ? "," : "", o->logical_index);
        free(s);
        s = next;
    }
    return s;
}

/* What the default binding is on this host for n local ranks; *desc says
 * why when it is none. */
static enum ol_bind_to default_binding(hwloc_topology_t topo, const ol_msg_launch_t *job, uint32_t n,
                                       char **desc)
{
    unsigned cores = (unsigned)hwloc_get_nbobjs_by_type(topo, unit_type(topo));
    unsigned wanted = n * job->pe;
    if (wanted <= cores)
        return OL_BIND_CORE;
    *desc = ol_xasprintf("is not bound (the host is oversubscribed: %u ranks on %u cores)", n, cores);
    return OL_BIND_NONE;
}

bool ol_binding_compute(hwloc_topology_t topo, const ol_msg_launch_t *job, uint32_t i, uint32_t n,
                        cpu_set_t *cpus, char **desc)
{
    *desc = NULL;
    enum ol_bind_to bind = job->bind_to;
    if (bind == OL_BIND_DEFAULT)
        bind = default_binding(topo, job, n, desc);
    if (bind == OL_BIND_NONE) {
        if (*desc == NULL)
            *desc = ol_xstrdup("is not bound (--bind-to none)");
        return false;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_const_cpuset_t within = NULL;
    unsigned base = i * job->pe;
    if (job->map_by == OL_MAP_SOCKET || job->map_by == OL_MAP_NUMA) {
        hwloc_obj_type_t gt = job->map_by == OL_MAP_SOCKET ? HWLOC_OBJ_PACKAGE : HWLOC_OBJ_NUMANODE;
        int ngroups = hwloc_get_nbobjs_by_type(topo, gt);
        if (ngroups > 0) {
            hwloc_obj_t g = hwloc_get_obj_by_type(topo, gt, i % (unsigned)ngroups);
            within = g->cpuset;
            base = (i / (unsigned)ngroups) * job->pe;
        }
    }
    hwloc_obj_t first = NULL;
    for (unsigned k = 0; k < job->pe; k++) {
        hwloc_obj_t u = nth_unit(topo, within, base + k);
        if (u == NULL)
            break;
        if (first == NULL)
            first = u;
        hwloc_bitmap_or(set, set, u->cpuset);
    }
    if (first == NULL) {
        hwloc_bitmap_free(set);
        return false;
    }
    hwloc_obj_t wide = NULL;
    if (bind == OL_BIND_SOCKET)
        wide = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, first);
    else if (bind == OL_BIND_NUMA)
        wide = numa_of(topo, first->cpuset);
    if (wide != NULL && wide->cpuset != NULL)
        hwloc_bitmap_copy(set, wide->cpuset);
    CPU_ZERO(cpus);
    hwloc_cpuset_to_glibc_sched_affinity(topo, set, cpus, sizeof *cpus);
    char *cores = core_list(topo, set), *pus = NULL;
    hwloc_bitmap_list_asprintf(&pus, set);
    *desc = ol_xasprintf("bound to %s %s (PUs %s)", strchr(cores, ',') ? "cores" : "core", cores,
                         pus ? pus : "?");
    free(cores);
    free(pus);
    hwloc_bitmap_free(set);
    return true;
}
