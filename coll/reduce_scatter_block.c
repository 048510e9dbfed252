/* Reduce_scatter_block: its algorithms and their selection. Arguments:
 * sendbuf (or MPI_IN_PLACE: the input is then in recvbuf), recvbuf,
 * recvtype, op, and the block form: recvcount per rank.
 *
 * The algorithms serve both reduce_scatter forms. Thresholds, measured with
 * osu_reduce_scatter (Reduce_scatter_block, float MPI_SUM, median us, whole
 * vector bytes) on the 2-core development machine:
 *
 *   ranks  bytes    halving    ring
 *     4    16 KiB       71       84
 *     4    64 KiB      166      229
 *     4   256 KiB      932      418
 *     8    64 KiB      466      567
 *     8   256 KiB     1702     1611
 *     8     1 MiB     6640     4579
 *     2   256 KiB      607      150  (2 ranks: the ring wins at every size)
 *
 * Hence recursive halving below REDUCE_SCATTER_BLOCK_RING_BYTES (128 KiB) of whole
 * vector on more than 2 ranks, the ring otherwise; non-commutative ops take in_order, which
 * every algorithm runs in reproducible mode (REPRODUCIBLE, allreduce.c). */
#include "reduce_util.h"

#include <limits.h>

static const char *forced;
static int ring_bytes;
static const ol_param_t params[] = {
    {"REDUCE_SCATTER_BLOCK_ALGORITHM", OL_PARAM_STRING, "",
     "force a reduce_scatter_block algorithm: recursive_halving, ring, in_order, intercomm",
     &forced, 0, 0},
    {"REDUCE_SCATTER_BLOCK_RING_BYTES", OL_PARAM_INT, "131072",
     "reduce_scatter_block: recursive halving below this many bytes of whole vector (over 2 "
     "ranks), the ring from here on",
     &ring_bytes, 0, INT_MAX},
};

/* The whole vector's bytes: what the thresholds compare. */
static MPI_Count vector_bytes(const ol_coll_args_t *a)
{
    return a->recvcount * a->comm->size * (MPI_Count)a->recvtype->size;
}

static int choose(const ol_coll_args_t *a, const char **why)
{
    return ol_coll_reduce_scatter_choose(a, vector_bytes(a), ring_bytes, why);
}

/* The algorithms are reduce_scatter's (reduce_scatter.c). */
const ol_coll_table_t ol_coll_reduce_scatter_block_table = {
    "reduce_scatter_block", ol_coll_reduce_scatter_algorithms,
    OL_ARRAY_SIZE(ol_coll_reduce_scatter_algorithms), choose, &forced, params,
    OL_ARRAY_SIZE(params)};
