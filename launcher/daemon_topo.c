/* The host topology the daemon hands to PMIx (PMIX_TOPOLOGY2).
 *
 * Left to itself, PMIx_server_init discovers the topology with hwloc, which
 * reads a few hundred /sys files and the PCI tree: about 10 ms, the largest
 * part of a small job's start-up. The topology does not change while the
 * machine is up, so the daemon keeps it as hwloc XML in a per-user cache,
 * keyed by host, boot and the CPUs/memories this process may use (so a job
 * in another cgroup cpuset gets its own entry), and loads that instead.
 * OMPI_LITE_TOPO_CACHE=0 turns the cache off. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "ol_user_dir.h"
#include "util.h"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

/* Hash of what makes a cached topology valid here and now. */
static uint64_t topology_key(void)
{
    uint64_t h = fnv1a(14695981039346656037ULL, ol_hostname());
    char line[512];
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f != NULL) {
        if (fgets(line, sizeof line, f))
            h = fnv1a(h, line);
        fclose(f);
    }
    f = fopen("/proc/self/status", "r");
    if (f != NULL) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Cpus_allowed_list:", 18) == 0 || strncmp(line, "Mems_allowed_list:", 18) == 0)
                h = fnv1a(h, line);
        }
        fclose(f);
    }
    h = fnv1a(h, HWLOC_VERSION);
    return h;
}

static hwloc_topology_t load_from_xml(const char *path)
{
    hwloc_topology_t t;
    if (access(path, R_OK) != 0 || hwloc_topology_init(&t) != 0)
        return NULL;
    if (hwloc_topology_set_xml(t, path) == 0 &&
        hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) == 0 &&
        hwloc_topology_load(t) == 0)
        return t;
    hwloc_topology_destroy(t);
    return NULL;
}

static hwloc_topology_t discover(void)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0)
        return NULL;
    /* What PMIx keeps when it discovers on its own: devices that matter for
     * locality (GPUs, NICs), not every bridge. */
    hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        return NULL;
    }
    return t;
}

static void save_to_xml(hwloc_topology_t t, const char *path)
{
    /* Write aside and rename, so a concurrent reader never sees half a file. */
    char *tmp = ol_xasprintf("%s.%d", path, (int)getpid());
    if (hwloc_topology_export_xml(t, tmp, 0) == 0 && rename(tmp, path) == 0) {
        free(tmp);
        return;
    }
    unlink(tmp);
    free(tmp);
}

hwloc_topology_t ol_daemon_load_topology(void)
{
    const char *use = getenv("OMPI_LITE_TOPO_CACHE"); /* see params.c */
    if (use && strcmp(use, "0") == 0)
        return discover();
    char why[512];
    char *dir = ol_user_dir(why, sizeof why);
    if (dir == NULL) {
        ol_log(OL_LOG_WARN, "%s; the topology is not cached", why);
        return discover();
    }
    char *path = ol_xasprintf("%s/topo-%016llx.xml", dir, (unsigned long long)topology_key());
    free(dir);
    hwloc_topology_t t = load_from_xml(path);
    if (t == NULL) {
        t = discover();
        if (t != NULL)
            save_to_xml(t, path);
    }
    free(path);
    return t;
}
