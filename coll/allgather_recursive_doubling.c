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
 * two messages. */
#include "coll_select.h"
#include "coll_util.h"

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
    for (int mask = 1; rc == OL_OK && mask < p2; mask <<= 1) {
        int peer = me ^ mask;
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = move_group(s, a, p2, peer & ~(mask - 1), mask, peer, false);
        if (rc == OL_OK)
            rc = move_group(s, a, p2, me & ~(mask - 1), mask, peer, true);
    }
    if (rc == OL_OK && me + p2 < p) {
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = move_all_but(s, a, me + p2, me + p2, true);
    }
    return rc;
}
