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
 * every algorithm runs in reproducible mode (REPRODUCIBLE, allreduce.c).
 *
 * Across hosts (4 ranks on network-namespace hosts, TCP over veth,
 * osu_reduce_scatter with each algorithm forced, medians of 3 alternating
 * runs, load 5-10 on the 2 cores; 4 hosts x 1 rank / 2 hosts x 2 ranks, us):
 *
 *   bytes     halving       ring
 *   32 KiB     84 / 92     209 / 121
 *   64 KiB     96 / 335    245 / 163
 *   128 KiB   153 / 344    176 / 339
 *   512 KiB   503 / 764    690 / 642
 *   1 MiB    1244 / 1364  1343 / 1211
 *
 * With one rank per host halving won up to 1 MiB (its log2 p messages
 * against the ring's p - 1): the ring from REDUCE_SCATTER_RANK_PER_HOST_RING_BYTES
 * there. With two ranks per host the load above hid that halving wins there
 * too: measured again on a quiet machine (2 hosts x 2 ranks, medians of 5
 * alternating runs, 3 from 1 MiB; halving / ring, us): 32 KiB 62 / 113,
 * 64 KiB 112 / 110, 128 KiB 120 / 127, 256 KiB 222 / 234, 512 KiB 497 /
 * 514, 1 MiB 620 / 919, 2 MiB 1367 / 1697, 4 MiB 3680 / 3366, 8 MiB 7313 /
 * 7312: the ring from REDUCE_SCATTER_SHARED_HOSTS_RING_BYTES (4 MiB) there.
 * Both apply to both forms. */
#include "reduce_util.h"

#include <limits.h>

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
static int ring_bytes, rank_per_host_ring_bytes, shared_hosts_ring_bytes;
static const ol_param_t params[] = {
    {"REDUCE_SCATTER_ALGORITHM", OL_PARAM_STRING, "",
     "force a reduce_scatter algorithm: recursive_halving, ring, in_order, intercomm", &forced, 0, 0},
    {"REDUCE_SCATTER_RING_BYTES", OL_PARAM_INT, "131072",
     "reduce_scatter: recursive halving below this many bytes of whole vector (over 2 ranks), "
     "the ring from here on",
     &ring_bytes, 0, INT_MAX},
    {"REDUCE_SCATTER_RANK_PER_HOST_RING_BYTES", OL_PARAM_INT, "2097152",
     "reduce_scatter(_block) on jobs with one rank per host: recursive halving below this many "
     "bytes of whole vector, the ring from here on (instead of the RING_BYTES thresholds)",
     &rank_per_host_ring_bytes, 0, INT_MAX},
    {"REDUCE_SCATTER_SHARED_HOSTS_RING_BYTES", OL_PARAM_INT, "4194304",
     "reduce_scatter(_block) on jobs with several ranks on each of several hosts: recursive "
     "halving below this many bytes of whole vector, the ring from here on",
     &shared_hosts_ring_bytes, 0, INT_MAX},
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
    /* The one-host threshold (the caller's) or the network's. */
    switch (ol_coll_layout(a->comm)) {
    case OL_COLL_ONE_HOST: break;
    case OL_COLL_RANK_PER_HOST: ring_bytes = rank_per_host_ring_bytes; break;
    case OL_COLL_SHARED_HOSTS: ring_bytes = shared_hosts_ring_bytes; break;
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
