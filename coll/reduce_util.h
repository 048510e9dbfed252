/* What the reduction collectives (reduce, allreduce, reduce_scatter(_block),
 * scan, exscan) share, private to coll/: block partitions, an order-aware
 * combine, pipelined binomial trees over a list of ranks, the reproducible
 * mode, and the ring reduce-scatter that allreduce's ring reuses. */
#ifndef OL_COLL_REDUCE_UTIL_H
#define OL_COLL_REDUCE_UTIL_H

#include "coll_select.h"

/* OMPI_LITE_REPRODUCIBLE (a row of allreduce.c's table): every reduction
 * runs the in-order binomial tree to rank 0 (ol_coll_tree_reduce over ranks
 * 0..p-1), so a floating-point result has the same bits whatever algorithm
 * was chosen or forced, and wherever the processes run. */
extern int ol_coll_reproducible;

/* A table entry for algo that runs `fixed` instead in reproducible mode:
 * forcing an algorithm must not change the bits either. */
#define OL_COLL_REPRODUCIBLE_AS(entry, algo, fixed)                                            \
    static ol_status_t entry(ol_sched_t *s, const ol_coll_args_t *a)                           \
    {                                                                                          \
        return ol_coll_reproducible ? fixed(s, a) : algo(s, a);                                \
    }

/* Where block i of n elements split over p blocks starts: the first n % p
 * blocks have one element more. Block i is [start(i), start(i + 1)). */
static inline MPI_Count ol_coll_block_start(MPI_Count n, int p, int i)
{
    return i * (n / p) + (i < n % p ? i : n % p);
}

/* The blocks of a reduce_scatter call: recvcounts (the v form) or p blocks
 * of recvcount (the block form), as starts[0..p] in scratch; starts[p] is
 * the whole vector. */
MPI_Count *ol_coll_reduce_scatter_starts(ol_sched_t *s, const ol_coll_args_t *a);

/* A rooted reduction's accumulator for ol_coll_tree_reduce: recvbuf
 * at_root, none (NULL) at a leaf of the tree, which sends its own vector,
 * else scratch. */
void *ol_coll_reduce_accumulator(ol_sched_t *s, const ol_coll_args_t *a, bool at_root,
                                 bool leaf, ol_status_t *rc);
/* This rank's vector (sendbuf, or recvbuf in place), or NULL when it is acc
 * already. */
const void *ol_coll_reduce_own_vector(const ol_coll_args_t *a, const void *acc);

/* acc = other op acc (other_is_lower) or acc op other. The second form on a
 * non-commutative op goes through other, which it overwrites. */
ol_status_t ol_coll_combine(ol_sched_t *s, void *acc, void *other, bool other_is_lower,
                            MPI_Count n, ol_datatype_t *dt, ol_op_t *op);

/* Elements per pipeline segment of reduce on comm (REDUCE_SEGMENT_BYTES,
 * REDUCE_PAIR_SEGMENT_BYTES on 2 processes; reduce.c). */
MPI_Count ol_coll_reduce_segment_count(const ol_comm_t *comm, const ol_datatype_t *dt);

/* Reduces of at least this many bytes on two processes of one host go
 * through reduce_split.c (REDUCE_SPLIT_BYTES, reduce.c). */
extern int ol_coll_reduce_split_bytes;

/* Elements per pipeline segment for a segment size in bytes (at least 1). */
MPI_Count ol_coll_segment_count(int segment_bytes, const ol_datatype_t *dt);

/* ranks 0..p-1 rotated so that first comes first, in schedule scratch. */
int *ol_coll_rotated_ranks(ol_sched_t *s, int p, int first);

/* Binomial reduce of buf (n elements) over the processes ranks[0..m-1] to
 * ranks[0], this process being ranks[me]; in list order (a partial result
 * always covers a contiguous run of the list, lower positions on the left),
 * so right for non-commutative ops. Pipelined: segments of seg elements
 * move through the tree one round behind each other. buf is the
 * accumulator: it ends holding the result at ranks[0], partial sums
 * elsewhere. mine is this rank's vector when buf does not hold it yet
 * (NULL when it does); then buf may be NULL at a leaf, which only sends.
 * Starts a new round and leaves the last reductions in one. */
ol_status_t ol_coll_tree_reduce(ol_sched_t *s, void *buf, const void *mine, MPI_Count n,
                                ol_datatype_t *dt, ol_op_t *op, const int *ranks, int m, int me,
                                MPI_Count seg);
/* True when position me of a tree of m receives nothing in it. */
bool ol_coll_tree_leaf(int me, int m);
/* Binomial broadcast of buf from ranks[0] over ranks[0..m-1], pipelined in
 * segments of seg elements. */
ol_status_t ol_coll_tree_bcast(ol_sched_t *s, void *buf, MPI_Count n, ol_datatype_t *dt,
                               const int *ranks, int m, int me, MPI_Count seg);

/* The ring reduce-scatter on acc (p blocks, block i at starts[i] ..
 * starts[i + 1] elements of dt): after p - 1 rounds block `rank` of acc holds
 * the full reduction. mine is this rank's vector when acc does not hold it
 * (NULL when it does: then tmp holds the largest block; else tmp is unused).
 * Commutative ops only. (reduce_scatter_ring.c) */
ol_status_t ol_coll_ring_reduce_scatter(ol_sched_t *s, void *acc, const void *mine, void *tmp,
                                        const MPI_Count *starts, ol_datatype_t *dt,
                                        ol_op_t *op, int rank, int p);

/* Intercommunicator allreduce into recvbuf (allreduce_intercomm.c): each
 * group gets the reduction of the other group's contributions. */
ol_status_t ol_coll_allreduce_intercomm_into(ol_sched_t *s, ol_comm_t *comm, const void *sendbuf,
                                             void *recvbuf, MPI_Count n, ol_datatype_t *dt,
                                             ol_op_t *op);

/* Receives the vector of every process of the remote group (a root of an
 * intercommunicator) and reduces them in rank order, x0 op (x1 op (...)),
 * into result; the reductions run in the round after the receives.
 * (allreduce_intercomm.c) */
ol_status_t ol_coll_gather_reduce(ol_sched_t *s, void *result, MPI_Count n, ol_datatype_t *dt,
                                  ol_op_t *op, int remote);

/* The reduce_scatter forms share their algorithms (reduce_scatter.c) and
 * choose among them the same way, each with its own RING_BYTES parameter. */
enum { OL_REDUCE_SCATTER_ALGORITHMS = 4 };
extern const ol_coll_algorithm_t ol_coll_reduce_scatter_algorithms[OL_REDUCE_SCATTER_ALGORITHMS];
int ol_coll_reduce_scatter_choose(const ol_coll_args_t *a, MPI_Count vector_bytes, int ring_bytes,
                                  const char **why);

#endif
