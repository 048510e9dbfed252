/* Helpers of the reduction collectives (see reduce_util.h).
 *
 * The pipelined trees are timelines: step j of the binomial tree handles
 * segment t - j in round t, so while a segment climbs (or descends) the tree
 * the next one follows a round behind: a tree of depth D moves S segments in
 * S + D - 1 rounds instead of S * D. */
#include "reduce_util.h"
#include "coll_util.h"

ol_status_t ol_coll_combine(ol_sched_t *s, void *acc, void *other, bool other_is_lower,
                            MPI_Count n, ol_datatype_t *dt, ol_op_t *op)
{
    if (other_is_lower || op->commutative)
        return ol_sched_reduce(s, other, acc, n, dt, op);
    ol_status_t rc = ol_sched_reduce(s, acc, other, n, dt, op);
    return rc == OL_OK ? ol_sched_copy(s, other, n, dt, acc, n, dt) : rc;
}

MPI_Count ol_coll_segment_count(int segment_bytes, const ol_datatype_t *dt)
{
    MPI_Count seg = dt->size ? segment_bytes / (MPI_Count)dt->size : 0;
    return seg > 0 ? seg : 1;
}

int *ol_coll_rotated_ranks(ol_sched_t *s, int p, int first)
{
    int *ranks = ol_sched_scratch(s, sizeof(int) * (size_t)p);
    for (int i = 0; ranks && i < p; i++)
        ranks[i] = (first + i) % p;
    return ranks;
}

static int tree_depth(int m)
{
    int depth = 0;
    while ((1 << depth) < m)
        depth++;
    return depth;
}

static MPI_Count segment_length(MPI_Count n, MPI_Count seg, MPI_Count k)
{
    return n - k * seg < seg ? n - k * seg : seg;
}

/* Position me's role at tree step j (mask 2^j): 1 sends to me - mask, -1
 * receives from me + mask, 0 idle. */
static int reduce_role(int me, int m, int j)
{
    int mask = 1 << j;
    if (me & (mask - 1))
        return 0; /* sent its result at an earlier step */
    if (me & mask)
        return 1;
    return me + mask < m ? -1 : 0;
}

/* The level of me's first child (the lowest at which it receives), or -1. */
static int first_child_level(int me, int m, int depth)
{
    for (int j = 0; j < depth; j++)
        if (reduce_role(me, m, j) < 0)
            return j;
    return -1;
}

bool ol_coll_tree_leaf(int me, int m)
{
    return me > 0 && first_child_level(me, m, tree_depth(m)) < 0;
}

ol_status_t ol_coll_tree_reduce(ol_sched_t *s, void *buf, const void *mine, MPI_Count n,
                                ol_datatype_t *dt, ol_op_t *op, const int *ranks, int m, int me,
                                MPI_Count seg)
{
    int depth = tree_depth(m);
    int first = first_child_level(me, m, depth);
    MPI_Count nseg = n ? (n + seg - 1) / seg : 0;
    void *tmp[32] = {0}; /* one segment per child */
    MPI_Count tmp_count = n < seg ? n : seg; /* a short vector is one short segment */
    ol_status_t rc = OL_OK;
    if (mine && buf && me == 0 && first < 0) /* the root of a tree of one */
        rc = ol_sched_copy(s, mine, n, dt, buf, n, dt);
    /* A leaf sends its own vector; a partial result is sent from buf. */
    const void *out = first < 0 && mine ? mine : buf;
    /* With mine apart, the first child's segments land in buf itself and
     * mine is combined into them: no copy of mine into buf first. */
    int direct = mine && first >= 0 ? first : -1;
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    for (int j = 0; rc == OL_OK && j < depth; j++)
        if (reduce_role(me, m, j) < 0 && j != direct &&
            !(tmp[j] = ol_sched_scratch_typed(s, dt, tmp_count)))
            rc = MPI_ERR_NO_MEM;
    for (MPI_Count t = 0; rc == OL_OK && nseg && t <= nseg + depth - 1; t++) {
        /* first the segments that arrived last round, then this round's messages */
        for (int j = 0; rc == OL_OK && j < depth; j++) {
            MPI_Count k = t - 1 - j;
            if (k < 0 || k >= nseg || reduce_role(me, m, j) >= 0)
                continue;
            MPI_Count len = segment_length(n, seg, k);
            void *acc = ol_coll_at(buf, k * seg, dt);
            rc = j == direct ? ol_sched_reduce(s, ol_coll_at(mine, k * seg, dt), acc, len,
                                               dt, op)
                             : ol_coll_combine(s, acc, tmp[j], false, len, dt, op);
        }
        for (int j = 0; rc == OL_OK && j < depth; j++) {
            MPI_Count k = t - j;
            int role = reduce_role(me, m, j);
            if (k < 0 || k >= nseg || role == 0)
                continue;
            MPI_Count len = segment_length(n, seg, k);
            void *in = j == direct ? ol_coll_at(buf, k * seg, dt) : tmp[j];
            rc = role > 0 ? ol_sched_send(s, ol_coll_at(out, k * seg, dt), len, dt,
                                          ranks[me - (1 << j)])
                          : ol_sched_recv(s, in, len, dt, ranks[me + (1 << j)]);
        }
        if (rc == OL_OK)
            rc = ol_sched_round(s);
    }
    return rc;
}

ol_status_t ol_coll_tree_bcast(ol_sched_t *s, void *buf, MPI_Count n, ol_datatype_t *dt,
                               const int *ranks, int m, int me, MPI_Count seg)
{
    int depth = tree_depth(m);
    MPI_Count nseg = n ? (n + seg - 1) / seg : 0;
    ol_status_t rc = ol_sched_round(s);
    /* level l uses mask 2^(depth-1-l): the reduce tree run backwards */
    for (MPI_Count t = 0; rc == OL_OK && nseg && t < nseg + depth - 1; t++) {
        for (int l = 0; rc == OL_OK && l < depth; l++) {
            MPI_Count k = t - l;
            int j = depth - 1 - l, role = reduce_role(me, m, j);
            if (k < 0 || k >= nseg || role == 0)
                continue;
            MPI_Count len = segment_length(n, seg, k);
            void *at = ol_coll_at(buf, k * seg, dt);
            rc = role > 0 ? ol_sched_recv(s, at, len, dt, ranks[me - (1 << j)])
                          : ol_sched_send(s, at, len, dt, ranks[me + (1 << j)]);
        }
        if (rc == OL_OK)
            rc = ol_sched_round(s);
    }
    return rc;
}

MPI_Count *ol_coll_reduce_scatter_starts(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size;
    MPI_Count *starts = ol_sched_scratch(s, sizeof(MPI_Count) * (size_t)(p + 1));
    for (int i = 0; starts && i < p; i++)
        starts[i + 1] = starts[i] + (a->recvcounts ? a->recvcounts[i] : a->recvcount);
    return starts;
}

void *ol_coll_reduce_accumulator(ol_sched_t *s, const ol_coll_args_t *a, bool at_root,
                                 bool leaf, ol_status_t *rc)
{
    *rc = OL_OK;
    if (at_root)
        return a->recvbuf;
    if (leaf)
        return NULL;
    void *acc = ol_sched_scratch_typed(s, a->recvtype, a->recvcount);
    if (!acc)
        *rc = MPI_ERR_NO_MEM;
    return acc;
}

const void *ol_coll_reduce_own_vector(const ol_coll_args_t *a, const void *acc)
{
    const void *mine = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    return mine == acc ? NULL : mine;
}
