/* mpirun's check of the links a job uses between hosts: each daemon says in
 * HELLO which interfaces its host has, at which speed, and which of them
 * the job uses there (OMPI_LITE_IFNAME or the default rule, ol_netif.h);
 * a host that uses a slower link than one usable on every host is the
 * field's most common multi-host performance mistake (the management port
 * instead of InfiniBand), so mpirun says so once, with the setting that
 * fixes it. */
#define _GNU_SOURCE
#include "mpirun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ol_netif.h"
#include "util.h"

/* The usable entry called name among a host's lines, or false. */
static bool host_entry(char *const *netifs, const char *name, ol_netif_t *out)
{
    for (size_t i = 0; netifs != NULL && netifs[i] != NULL; i++) {
        if (ol_netif_parse(netifs[i], out) == 0 && strcmp(out->name, name) == 0)
            return out->usable;
    }
    return false;
}

/* The speed an interface of this name has on every host (the slowest of
 * them), or -1 where some host lacks it or does not know its speed. */
static long shared_speed(const struct ol_host_links *hosts, size_t n, const char *name)
{
    long speed = -1;
    for (size_t h = 0; h < n; h++) {
        ol_netif_t nif;
        if (!host_entry(hosts[h].netifs, name, &nif) || nif.speed_mbps <= 0)
            return -1;
        if (speed < 0 || nif.speed_mbps < speed)
            speed = nif.speed_mbps;
    }
    return speed;
}

/* The fastest network usable on every host, loopback and bridges aside. */
static long best_shared(const struct ol_host_links *hosts, size_t n, char *name, size_t size)
{
    long best = -1;
    for (size_t i = 0; hosts[0].netifs != NULL && hosts[0].netifs[i] != NULL; i++) {
        ol_netif_t nif;
        if (ol_netif_parse(hosts[0].netifs[i], &nif) != 0 || !nif.usable || nif.loopback || nif.bridge)
            continue;
        long speed = shared_speed(hosts, n, nif.name);
        if (speed > best) {
            best = speed;
            snprintf(name, size, "%s", nif.name);
        }
    }
    return best;
}

/* The fastest link a host uses; false where it uses none of known speed. */
static bool host_used(char *const *netifs, ol_netif_t *out)
{
    bool found = false;
    for (size_t i = 0; netifs != NULL && netifs[i] != NULL; i++) {
        ol_netif_t nif;
        if (ol_netif_parse(netifs[i], &nif) != 0 || !nif.selected || nif.speed_mbps <= 0)
            continue;
        if (!found || nif.speed_mbps > out->speed_mbps)
            *out = nif;
        found = true;
    }
    return found;
}

char *ol_mpirun_slow_link(const struct ol_host_links *hosts, size_t n)
{
    char best_name[OL_NETIF_NAME_MAX];
    if (n < 2)
        return NULL;
    long best = best_shared(hosts, n, best_name, sizeof best_name);
    for (size_t h = 0; h < n && best > 0; h++) {
        ol_netif_t used;
        if (!host_used(hosts[h].netifs, &used) || used.speed_mbps >= best)
            continue;
        char slow[32], fast[32];
        ol_netif_speed_text(used.speed_mbps, slow, sizeof slow);
        ol_netif_speed_text(best, fast, sizeof fast);
        return ol_xasprintf("mpirun: host %s: using %s (%s) while %s (%s) is up on every host; "
                            "set OMPI_LITE_IFNAME=%s",
                            hosts[h].host, used.name, slow, best_name, fast, best_name);
    }
    return NULL;
}
