/* Allgather, recursive doubling, for any process count.
 *
 * Cost: with p2 the largest power of two <= p, log2 p2 steps in which each
 * of ranks 0 .. p2 - 1 swaps everything it has with rank ^ 2^k (the
 * gathered data doubles each step), plus, when p is not a power of two, one
 * step before (each rank r >= p2 hands its block to r - p2) and one after
 * (r - p2 hands it all the blocks). (p - 1) blocks received per rank, in
 * log2 p steps: the choice for small blocks.
 *
 * Example, p = 6 (p2 = 4): 4 -> 0 and 5 -> 1 first; step 1: 0 <-> 1 swap
 * blocks {0, 4} and {1, 5}, 2 <-> 3 swap {2} and {3}; step 2: 0 <-> 2 swap
 * {0, 1, 4, 5} and {2, 3}; last 0 -> 4 and 1 -> 5 everything. A group's
 * blocks are two ranges of recvbuf (its ranks and their extras), sent as
 * two messages.
 *
 * On a job of several hosts with several ranks each, partners on other
 * hosts swap first, while each has few blocks, and the larger swaps stay on
 * a host: mpirun places ranks by host, so with L ranks per host the masks
 * from L up cross hosts and those below L do not. On 2 hosts x 2 ranks
 * each rank then sends 1 block over the network instead of 2. What a rank
 * holds is then not one range but a block every L ranks and its
 * neighbours: sent as one message per range. Every rank derives the order
 * from job-wide facts alone, so all agree on it (on a communicator not
 * laid out so, the order is still right, only not cheaper). */
#include "coll_select.h"
#include "coll_util.h"

#include <stdlib.h>

/* Sends or receives blocks [first, last) of recvbuf (nothing if empty). */
static ol_status_t move_blocks(ol_sched_t *s, const ol_coll_args_t *a, int first, int last,
                               int peer, bool send)
{
    if (last <= first)
        return OL_OK;
    void *at = ol_coll_at(a->recvbuf, first * a->recvcount, a->recvtype);
    MPI_Count n = (last - first) * a->recvcount;
    return send ? ol_sched_send(s, at, n, a->recvtype, peer)
                : ol_sched_recv(s, at, n, a->recvtype, peer);
}

static int min_int(int x, int y)
{
    return x < y ? x : y;
}

/* The blocks of the group of `size` ranks starting at base: its ranks'
 * own and those of their extras (base + p2 ...). */
static ol_status_t move_group(ol_sched_t *s, const ol_coll_args_t *a, int p2, int base, int size,
                              int peer, bool send)
{
    int p = a->comm->size;
    ol_status_t rc = move_blocks(s, a, base, base + size, peer, send);
    return rc == OL_OK ? move_blocks(s, a, base + p2, min_int(base + size + p2, p), peer, send)
                       : rc;
}

/* Everything but block `except`. */
static ol_status_t move_all_but(ol_sched_t *s, const ol_coll_args_t *a, int except, int peer,
                                bool send)
{
    ol_status_t rc = move_blocks(s, a, 0, except, peer, send);
    return rc == OL_OK ? move_blocks(s, a, except + 1, a->comm->size, peer, send) : rc;
}

/* The masks in the order the steps use them: from ranks_per_host up to
 * p2 / 2 (across hosts), then from 1 up (on a host); from 1 up when the
 * ranks share one host or each has its own. Returns how many. */
static int mask_order(const ol_comm_t *comm, int p2, int *masks)
{
    int per_host = !comm->spans_jobs && ol_rt.num_hosts > 0 && ol_rt.size % ol_rt.num_hosts == 0
                       ? ol_rt.size / ol_rt.num_hosts
                       : 1;
    int far = per_host > 1 && per_host < p2 && (per_host & (per_host - 1)) == 0 ? per_host : 1;
    int n = 0;
    for (int mask = far; mask < p2; mask <<= 1)
        masks[n++] = mask;
    for (int mask = 1; mask < far; mask <<= 1)
        masks[n++] = mask;
    return n;
}

/* Moves the groups of the core ranks b with held[b ^ flip], as runs of
 * consecutive ranks in ascending order: a rank's sends (flip 0) and its
 * partner's matching receives (flip = the mask) list the same runs. */
static ol_status_t move_held(ol_sched_t *s, const ol_coll_args_t *a, int p2, const bool *held,
                             int flip, int peer, bool send)
{
    ol_status_t rc = OL_OK;
    for (int b = 0; rc == OL_OK && b < p2;) {
        if (!held[b ^ flip]) {
            b++;
            continue;
        }
        int first = b;
        while (b < p2 && held[b ^ flip])
            b++;
        rc = move_group(s, a, p2, first, b - first, peer, send);
    }
    return rc;
}

ol_status_t ol_coll_allgather_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a)
{
    int me = a->comm->rank, p = a->comm->size, p2 = 1;
    while (p2 * 2 <= p)
        p2 *= 2;
    ol_status_t rc = OL_OK;
    if (!ol_coll_in_place(a))
        rc = ol_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                           ol_coll_at(a->recvbuf, me * a->recvcount, a->recvtype), a->recvcount,
                           a->recvtype);
    if (rc == OL_OK && me >= p2) { /* an extra: hand over, then get it all */
        rc = move_blocks(s, a, me, me + 1, me - p2, true);
        if (rc == OL_OK)
            rc = ol_sched_round(s);
        return rc == OL_OK ? move_all_but(s, a, me, me - p2, false) : rc;
    }
    if (rc == OL_OK && me + p2 < p)
        rc = move_blocks(s, a, me + p2, me + p2 + 1, me + p2, false);
    int masks[32];
    int steps = mask_order(a->comm, p2, masks);
    bool *held = calloc((size_t)p2, sizeof(*held));
    if (!held)
        return MPI_ERR_NO_MEM;
    held[me] = true;
    for (int i = 0; rc == OL_OK && i < steps; i++) {
        int peer = me ^ masks[i];
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = move_held(s, a, p2, held, masks[i], peer, false);
        if (rc == OL_OK)
            rc = move_held(s, a, p2, held, 0, peer, true);
        for (int b = 0; b < p2; b++) /* what the partner held joins in */
            held[b] = held[b] || held[b ^ masks[i]];
    }
    free(held);
    if (rc == OL_OK && me + p2 < p) {
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = move_all_but(s, a, me + p2, me + p2, true);
    }
    return rc;
}
