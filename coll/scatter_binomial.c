/* Scatter, binomial tree.
 *
 * Cost: ceil(log2 p) steps; ranks relative to the root form the binomial
 * tree of the broadcast, and each rank receives from its parent, in one
 * message, the blocks of its whole subtree (relative ranks [r, r + lowest
 * bit of r)), keeps its own and passes the rest down: about p/2 log2 p
 * blocks on the wire in all against p - 1 for the linear scatter, but the
 * root sends log2 p messages instead of p - 1. The choice for small and
 * medium blocks.
 *
 * Example, p = 6, root 3 (relative ranks 0..5 are ranks 3, 4, 5, 0, 1, 2):
 * step 1: relative 0 -> 4 blocks {4, 5}, 0 -> 2 {2, 3}, 0 -> 1 {1}; step
 * 2: 4 -> 5, 2 -> 3. Inner ranks hold packed bytes in relative order. The
 * root sends a subtree straight from sendbuf when its ranks are consecutive
 * there ({4, 5} = ranks 1, 2); the one subtree that wraps past rank p - 1
 * ({2, 3} = ranks 5, 0) is first packed aside from two pieces: the root's
 * reordering. */
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

/* Packs blocks start .. start + n - 1 (ranks, wrapping past p - 1) of
 * sendbuf into aside. */
static ol_status_t wrap(ol_sched_t *s, const tree_t *t, char *aside, int start, int n)
{
    const ol_coll_args_t *a = t->a;
    int head = t->p - start;
    MPI_Count scount = a->sendcount;
    ol_status_t rc = ol_sched_copy(s, ol_coll_at(a->sendbuf, start * scount, a->sendtype),
                                   head * scount, a->sendtype, aside, head * t->block, t->byte);
    if (rc == OL_OK)
        rc = ol_sched_copy(s, a->sendbuf, (n - head) * scount, a->sendtype, aside + head * t->block,
                           (n - head) * t->block, t->byte);
    return rc;
}

static ol_status_t root(ol_sched_t *s, const tree_t *t)
{
    const ol_coll_args_t *a = t->a;
    MPI_Count scount = a->sendcount;
    ol_status_t rc = OL_OK;
    for (int m = t->mask >> 1; rc == OL_OK && m > 0; m >>= 1) { /* largest subtree first */
        int n = subtree_end(t, m, m) - m, start = actual(t, m);
        if (start + n <= t->p) { /* consecutive in sendbuf */
            rc = ol_sched_send(s, ol_coll_at(a->sendbuf, start * scount, a->sendtype), n * scount,
                               a->sendtype, start);
            continue;
        }
        char *aside = ol_sched_buffer(s, (size_t)(n * t->block));
        if (!aside)
            return MPI_ERR_NO_MEM;
        rc = wrap(s, t, aside, start, n);
        if (rc == OL_OK)
            rc = ol_sched_send(s, aside, n * t->block, t->byte, start);
    }
    if (rc == OL_OK && a->recvbuf != MPI_IN_PLACE)
        rc = ol_sched_copy(s, ol_coll_at(a->sendbuf, a->root * scount, a->sendtype), scount,
                           a->sendtype, a->recvbuf, a->recvcount, a->recvtype);
    return rc;
}

/* A non-root: its subtree's blocks from its parent, then its children's
 * parts down. A leaf receives its block as it is. */
static ol_status_t inner(ol_sched_t *s, const tree_t *t)
{
    const ol_coll_args_t *a = t->a;
    int parent = actual(t, t->me - t->mask), n = subtree_end(t, t->me, t->mask) - t->me;
    if (n == 1)
        return ol_sched_recv(s, a->recvbuf, a->recvcount, a->recvtype, parent);
    char *held = ol_sched_buffer(s, (size_t)(n * t->block));
    if (!held)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = ol_sched_recv(s, held, n * t->block, t->byte, parent);
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    for (int m = t->mask >> 1; rc == OL_OK && m > 0; m >>= 1) {
        int child = t->me + m;
        if (child < t->p)
            rc =
                ol_sched_send(s, held + m * t->block, (subtree_end(t, child, m) - child) * t->block,
                              t->byte, actual(t, child));
    }
    return rc == OL_OK
               ? ol_sched_copy(s, held, t->block, t->byte, a->recvbuf, a->recvcount, a->recvtype)
               : rc;
}

ol_status_t ol_coll_scatter_binomial(ol_sched_t *s, const ol_coll_args_t *a)
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
        t.block = a->sendcount * (MPI_Count)a->sendtype->size;
        return root(s, &t);
    }
    t.block = a->recvcount * (MPI_Count)a->recvtype->size;
    return inner(s, &t);
}
