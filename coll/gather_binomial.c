/* Gather, binomial tree.
 *
 * Cost: ceil(log2 p) steps; ranks relative to the root form the binomial
 * tree of the broadcast, and each rank sends its parent, in one message,
 * the blocks of its whole subtree (relative ranks [r, r + lowest bit of
 * r)): about p/2 log2 p blocks on the wire in all against p - 1 for the
 * linear gather, but the root receives log2 p messages instead of p - 1.
 * The choice for small and medium blocks.
 *
 * Example, p = 6, root 3 (relative ranks 0..5 are ranks 3, 4, 5, 0, 1, 2):
 * step 1: relative 5 -> 4, 3 -> 2, 1 -> 0; step 2: 4 -> 0 with blocks of
 * relative {4, 5}, 2 -> 0 with {2, 3}. Inner ranks collect packed bytes in
 * relative order. The root receives a subtree straight into recvbuf when
 * its ranks are consecutive there ({4, 5} = ranks 1, 2); the one subtree
 * that wraps past rank p - 1 ({2, 3} = ranks 5, 0) is received aside and
 * copied into place in two pieces: the root's reordering. */
#include "coll_select.h"
#include "coll_util.h"

typedef struct {
    const ol_coll_args_t *a;
    int p, me, mask; /* me: relative rank; [me, me + mask) its subtree */
    MPI_Count block; /* bytes of one block */
    ol_datatype_t *byte;
} tree_t;

static int subtree_end(const tree_t *t, int first, int size)
{
    return first + size < t->p ? first + size : t->p;
}

static int actual(const tree_t *t, int relative)
{
    return (relative + t->a->root) % t->p;
}

/* Copies blocks start .. start + n - 1 (ranks, wrapping past p - 1) of the
 * packed bytes at aside into recvbuf. */
static ol_status_t unwrap(ol_sched_t *s, const tree_t *t, const char *aside, int start, int n)
{
    const ol_coll_args_t *a = t->a;
    int head = t->p - start;
    MPI_Count rcount = a->recvcount;
    ol_status_t rc = ol_sched_copy(s, aside, head * t->block, t->byte,
                                   ol_coll_at(a->recvbuf, start * rcount, a->recvtype),
                                   head * rcount, a->recvtype);
    if (rc == OL_OK)
        rc = ol_sched_copy(s, aside + head * t->block, (n - head) * t->block, t->byte, a->recvbuf,
                           (n - head) * rcount, a->recvtype);
    return rc;
}

static ol_status_t root(ol_sched_t *s, const tree_t *t)
{
    const ol_coll_args_t *a = t->a;
    MPI_Count rcount = a->recvcount;
    ol_status_t rc = OL_OK;
    if (!ol_coll_in_place(a))
        rc = ol_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype,
                           ol_coll_at(a->recvbuf, a->root * rcount, a->recvtype), rcount,
                           a->recvtype);
    char *aside = NULL;
    int wrap_start = 0, wrap_n = 0;
    for (int m = 1; rc == OL_OK && m < t->p; m <<= 1) {
        int n = subtree_end(t, m, m) - m, start = actual(t, m);
        if (start + n <= t->p) { /* consecutive in recvbuf */
            rc = ol_sched_recv(s, ol_coll_at(a->recvbuf, start * rcount, a->recvtype), n * rcount,
                               a->recvtype, start);
            continue;
        }
        aside = ol_sched_buffer(s, (size_t)(n * t->block));
        if (!aside)
            return MPI_ERR_NO_MEM;
        wrap_start = start, wrap_n = n;
        rc = ol_sched_recv(s, aside, n * t->block, t->byte, start);
    }
    if (rc != OL_OK || !aside)
        return rc;
    rc = ol_sched_round(s);
    return rc == OL_OK ? unwrap(s, t, aside, wrap_start, wrap_n) : rc;
}

/* A non-root: its own block, then its children's subtrees, in relative
 * order, to its parent. A leaf sends its block as it is. */
static ol_status_t inner(ol_sched_t *s, const tree_t *t)
{
    const ol_coll_args_t *a = t->a;
    int parent = actual(t, t->me - t->mask), n = subtree_end(t, t->me, t->mask) - t->me;
    if (n == 1)
        return ol_sched_send(s, a->sendbuf, a->sendcount, a->sendtype, parent);
    char *gathered = ol_sched_buffer(s, (size_t)(n * t->block));
    if (!gathered)
        return MPI_ERR_NO_MEM;
    ol_status_t rc =
        ol_sched_copy(s, a->sendbuf, a->sendcount, a->sendtype, gathered, t->block, t->byte);
    for (int m = 1; rc == OL_OK && m < t->mask && t->me + m < t->p; m <<= 1) {
        int child = t->me + m, blocks = subtree_end(t, child, m) - child;
        rc =
            ol_sched_recv(s, gathered + m * t->block, blocks * t->block, t->byte, actual(t, child));
    }
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    return rc == OL_OK ? ol_sched_send(s, gathered, n * t->block, t->byte, parent) : rc;
}

ol_status_t ol_coll_gather_binomial(ol_sched_t *s, const ol_coll_args_t *a)
{
    int p = a->comm->size;
    tree_t t = {.a = a,
                .p = p,
                .me = (a->comm->rank - a->root + p) % p,
                .mask = 1,
                .byte = ol_dt_from_handle(MPI_BYTE)};
    while (t.mask < p && !(t.me & t.mask))
        t.mask <<= 1;
    if (t.me == 0) {
        t.block = a->recvcount * (MPI_Count)a->recvtype->size;
        return root(s, &t);
    }
    t.block = a->sendcount * (MPI_Count)a->sendtype->size;
    return inner(s, &t);
}
