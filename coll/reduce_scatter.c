/* Reduce_scatter: its algorithms and their selection. Arguments:
 * sendbuf (or MPI_IN_PLACE: the input is then in recvbuf), recvbuf,
 * recvtype, op, and the v form: recvcounts.
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
 * Hence recursive halving below REDUCE_SCATTER_RING_BYTES (128 KiB) of whole
 * vector on more than 2 ranks, the ring otherwise; non-commutative ops take in_order, which
 * every algorithm runs in reproducible mode (REPRODUCIBLE, allreduce.c). */
#include "reduce_util.h"

ol_status_t ol_coll_reduce_scatter_recursive_halving(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_reduce_scatter_ring(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_reduce_scatter_in_order(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_reduce_scatter_intercomm(ol_sched_t *s, const ol_coll_args_t *a);

OL_COLL_REPRODUCIBLE_AS(recursive_halving, ol_coll_reduce_scatter_recursive_halving,
                        ol_coll_reduce_scatter_in_order)
OL_COLL_REPRODUCIBLE_AS(ring, ol_coll_reduce_scatter_ring, ol_coll_reduce_scatter_in_order)

enum { HALVING, RING, IN_ORDER, INTERCOMM };
const ol_coll_algorithm_t ol_coll_reduce_scatter_algorithms[OL_REDUCE_SCATTER_ALGORITHMS] = {
    [HALVING] = {"recursive_halving", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE, recursive_halving},
    [RING] = {"ring", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE, ring},
    [IN_ORDER] = {"in_order", OL_ALGO_INTRA, ol_coll_reduce_scatter_in_order},
    [INTERCOMM] = {"intercomm", 0, ol_coll_reduce_scatter_intercomm},
};

static const char *forced;
static int ring_bytes;
static const ol_param_t params[] = {
    {"REDUCE_SCATTER_ALGORITHM", OL_PARAM_STRING, "",
     "force a reduce_scatter algorithm: recursive_halving, ring, in_order, intercomm", &forced},
    {"REDUCE_SCATTER_RING_BYTES", OL_PARAM_INT, "131072",
     "reduce_scatter: recursive halving below this many bytes of whole vector (over 2 ranks), "
     "the ring from here on",
     &ring_bytes},
};

/* The whole vector's bytes: what the thresholds compare. */
static MPI_Count vector_bytes(const ol_coll_args_t *a)
{
    MPI_Count n = 0;
    for (int i = 0; i < a->comm->size; i++)
        n += a->recvcounts[i];
    return n * (MPI_Count)a->recvtype->size;
}

int ol_coll_reduce_scatter_choose(const ol_coll_args_t *a, MPI_Count bytes, int ring_bytes,
                                  const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return INTERCOMM;
    }
    if (!a->op->commutative) {
        *why = "non-commutative op: rank order";
        return IN_ORDER;
    }
    bool short_vector = bytes < ring_bytes && a->comm->size > 2;
    *why = ol_coll_why("%lld bytes %s RING_BYTES=%d on %d ranks", (long long)bytes,
                       bytes < ring_bytes ? "<" : ">=", ring_bytes, a->comm->size);
    return short_vector ? HALVING : RING;
}

static int choose(const ol_coll_args_t *a, const char **why)
{
    return ol_coll_reduce_scatter_choose(a, vector_bytes(a), ring_bytes, why);
}

const ol_coll_table_t ol_coll_reduce_scatter_table = {
    "reduce_scatter", ol_coll_reduce_scatter_algorithms,
    OL_ARRAY_SIZE(ol_coll_reduce_scatter_algorithms), choose, &forced, params,
    OL_ARRAY_SIZE(params)};
