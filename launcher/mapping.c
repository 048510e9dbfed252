/* Which host each rank runs on.
 *
 * A rank needs `pe` slots (--map-by X:PE=n). By slot (also core, socket,
 * numa: those choose the placement inside a host, see the daemon's
 * binding.c) fills each host's slots in hostfile order before the next;
 * by node deals ranks round-robin over the hosts that still have free
 * slots. -N fixes the ranks per host. More ranks than slots is refused
 * unless --oversubscribe; then the extra ranks go round-robin over the hosts
 * that are below max_slots (a hard limit either way). With MPMD the apps'
 * ranks are mapped as one sequence, app after app, like Open MPI does.
 * Example: hosts a:2 b:2, -np 5 --oversubscribe: by slot a a b b a;
 * by node a b a b a. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpirun.h"
#include "util.h"

static long cap_of(const struct ol_host *h, long pe)
{
    return h->slots / pe;
}

static long limit_of(const struct ol_host *h, long pe)
{
    return h->max_slots > 0 ? h->max_slots / pe : -1; /* -1: no limit */
}

static char *describe_hosts(const struct ol_hostlist *hl)
{
    char *s = ol_xstrdup("");
    for (size_t i = 0; i < hl->n && i < 4; i++) {
        char *n = ol_xasprintf("%s%s%s:%ld", s, i ? " " : "", hl->v[i].name, hl->v[i].slots);
        free(s);
        s = n;
    }
    if (hl->n > 4) {
        char *n = ol_xasprintf("%s ...", s);
        free(s);
        s = n;
    }
    return s;
}

long ol_map_default_np(const struct ol_hostlist *hl, const struct ol_map_req *req)
{
    if (req->npernode > 0)
        return req->npernode * (long)hl->n;
    long total = 0;
    for (size_t i = 0; i < hl->n; i++)
        total += cap_of(&hl->v[i], req->pe);
    return total;
}

/* Deals the ranks that no slot holds, round-robin below max_slots. */
static int place_extra(const struct ol_hostlist *hl, const struct ol_map_req *req, long *count,
                       uint32_t *rank_host, long from, long np, char **err)
{
    size_t h = 0;
    for (long r = from; r < np; r++) {
        size_t tried = 0;
        while (tried < hl->n) {
            long lim = limit_of(&hl->v[h], req->pe);
            if (lim < 0 || count[h] < lim)
                break;
            h = (h + 1) % hl->n;
            tried++;
        }
        if (tried == hl->n) {
            *err = ol_xasprintf("mpirun: %ld processes requested, but the hosts allow at most %ld (max_slots)",
                                np, r);
            return -1;
        }
        rank_host[r] = (uint32_t)h;
        count[h]++;
        h = (h + 1) % hl->n;
    }
    return 0;
}

int ol_map_ranks(const struct ol_hostlist *hl, const struct ol_map_req *req, long np, uint32_t **out, char **err)
{
    long *count = ol_xcalloc(hl->n, sizeof *count);
    uint32_t *rank_host = ol_xcalloc((size_t)np, sizeof *rank_host);
    long total = 0, r = 0;
    for (size_t i = 0; i < hl->n; i++)
        total += cap_of(&hl->v[i], req->pe);

    if (req->npernode > 0) {
        for (size_t i = 0; i < hl->n; i++) {
            if (req->npernode > cap_of(&hl->v[i], req->pe) && !req->oversubscribe) {
                *err = ol_xasprintf("mpirun: -N %ld asks for %ld processes on host %s, which has %ld slots "
                                    "(use --oversubscribe to allow it)", req->npernode, req->npernode,
                                    hl->v[i].name, hl->v[i].slots);
                goto fail;
            }
        }
        if (np > req->npernode * (long)hl->n) {
            *err = ol_xasprintf("mpirun: %ld processes requested, but -N %ld on %zu host%s places only %ld",
                                np, req->npernode, hl->n, hl->n == 1 ? "" : "s", req->npernode * (long)hl->n);
            goto fail;
        }
        for (r = 0; r < np; r++) {
            size_t h = req->by == OL_MAP_NODE ? (size_t)r % hl->n : (size_t)(r / req->npernode);
            rank_host[r] = (uint32_t)h;
        }
        free(count);
        *out = rank_host;
        return 0;
    }

    if (np > total && !req->oversubscribe) {
        char *hosts = describe_hosts(hl);
        *err = ol_xasprintf("mpirun: %ld processes requested, but only %ld slot%s available (%s%s); "
                            "use --oversubscribe (or OMPI_LITE_OVERSUBSCRIBE=1 in the environment) "
                            "to run more processes than slots",
                            np, total, total == 1 ? " is" : "s are", hosts,
                            req->pe > 1 ? ", each process taking PE slots" : "");
        free(hosts);
        goto fail;
    }
    if (req->by == OL_MAP_NODE) {
        size_t h = 0;
        while (r < np && r < total) {
            if (count[h] < cap_of(&hl->v[h], req->pe)) {
                rank_host[r++] = (uint32_t)h;
                count[h]++;
            }
            h = (h + 1) % hl->n;
        }
    } else {
        for (size_t h = 0; h < hl->n && r < np; h++) {
            for (long k = 0; k < cap_of(&hl->v[h], req->pe) && r < np; k++) {
                rank_host[r++] = (uint32_t)h;
                count[h]++;
            }
        }
    }
    if (place_extra(hl, req, count, rank_host, r, np, err) != 0)
        goto fail;
    free(count);
    *out = rank_host;
    return 0;
fail:
    free(count);
    free(rank_host);
    return -1;
}
