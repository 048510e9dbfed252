/* Allreduce: its algorithms and their selection. Arguments: sendbuf (or
 * MPI_IN_PLACE), recvbuf, recvcount, recvtype, op.
 *
 * Thresholds, measured on the 2-core development machine (one host, shared
 * memory; osu_allreduce, float MPI_SUM, each algorithm forced; median us;
 * the machine was shared with other jobs, so small sizes are noisy):
 *
 *   ranks  bytes   rec.doubling  rabenseifner    ring     tree
 *     2     1 MiB       741          1051          851     7182
 *     2     2 MiB      1516          1344         1290    15108
 *     2     4 MiB      5448          2914         2566    29020
 *     4     8 KiB        61           150           90       68
 *     4    64 KiB       237           278          384      172
 *     4     1 MiB      2338          1491         1504     2613
 *     4     4 MiB     13562          8542         7208    12439
 *     8     8 KiB       202           305          297      220
 *     8    16 KiB       484           390          438      396
 *     8     1 MiB      7276          2705         5132     7863
 *     8     4 MiB     37774         10819        18915    33547
 *     8    16 MiB    151087         80733        74147   131741
 *
 * Re-measured on 2 ranks with the machine quieter (load 2, ranks bound to
 * cores, 3 alternating runs, median us):
 *
 *   bytes    rec.doubling  rabenseifner   ring
 *   64 KiB       19.9          21.3        20.7
 *   256 KiB      69.7          68.7        66.8
 *   1 MiB       205.2         172.0       169.1
 *   4 MiB      1027.3         811.5       744.1
 *
 * The single exchange of recursive doubling reduces the whole vector on
 * both ranks; halving it first wins from about 128 KiB. Hence: recursive
 * doubling below ALLREDUCE_SHORT_BYTES (16 KiB); Rabenseifner up to
 * ALLREDUCE_RING_BYTES (4 MiB), the ring from there on. Non-commutative
 * ops take recursive doubling when short, else the in-order tree.
 * Hierarchical is chosen on jobs that span hosts, for vectors below
 * ALLREDUCE_HIERARCHICAL_BYTES (not measured: the development machine is
 * one host). */
#include "reduce_util.h"
#include "ol_runtime.h"

ol_status_t ol_coll_allreduce_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allreduce_ring(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allreduce_rabenseifner(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allreduce_tree(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allreduce_hierarchical(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allreduce_intercomm(ol_sched_t *s, const ol_coll_args_t *a);

/* In reproducible mode every algorithm, chosen or forced, runs the tree:
 * that is what makes the bits independent of the choice. */
OL_COLL_REPRODUCIBLE_AS(recursive_doubling, ol_coll_allreduce_recursive_doubling,
                        ol_coll_allreduce_tree)
OL_COLL_REPRODUCIBLE_AS(ring, ol_coll_allreduce_ring, ol_coll_allreduce_tree)
OL_COLL_REPRODUCIBLE_AS(rabenseifner, ol_coll_allreduce_rabenseifner, ol_coll_allreduce_tree)
OL_COLL_REPRODUCIBLE_AS(hierarchical, ol_coll_allreduce_hierarchical, ol_coll_allreduce_tree)

enum { RD, RING, RABENSEIFNER, TREE, HIERARCHICAL, INTERCOMM };
static const ol_coll_algorithm_t algorithms[] = {
    [RD] = {"recursive_doubling", OL_ALGO_INTRA, recursive_doubling},
    [RING] = {"ring", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE, ring},
    [RABENSEIFNER] = {"rabenseifner", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE, rabenseifner},
    [TREE] = {"tree", OL_ALGO_INTRA, ol_coll_allreduce_tree},
    [HIERARCHICAL] = {"hierarchical", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE, hierarchical},
    /* also right on an intracommunicator (its group is then both groups) */
    [INTERCOMM] = {"intercomm", 0, ol_coll_allreduce_intercomm},
};

static const char *forced;
int ol_coll_reproducible;
int ol_coll_allreduce_segment_bytes;
int ol_coll_allreduce_device_ipc_bytes;
static int short_bytes, ring_bytes, hierarchical_bytes;
static const ol_param_t params[] = {
    {"ALLREDUCE_ALGORITHM", OL_PARAM_STRING, "",
     "force an allreduce algorithm: recursive_doubling, ring, rabenseifner, tree, "
     "hierarchical, intercomm",
     &forced},
    {"REPRODUCIBLE", OL_PARAM_INT, "0",
     "1: floating-point reductions (reduce, allreduce, reduce_scatter) give the same bits "
     "whatever the algorithm and process placement: an in-order binomial tree to rank 0",
     &ol_coll_reproducible},
    {"ALLREDUCE_SHORT_BYTES", OL_PARAM_INT, "16384",
     "allreduce: recursive doubling below this many bytes", &short_bytes},
    {"ALLREDUCE_RING_BYTES", OL_PARAM_INT, "4194304",
     "allreduce: Rabenseifner below this many bytes, the ring from here on", &ring_bytes},
    {"ALLREDUCE_HIERARCHICAL_BYTES", OL_PARAM_INT, "4194304",
     "allreduce on jobs that span hosts, some with several ranks: hierarchical below this "
     "many bytes",
     &hierarchical_bytes},
    {"ALLREDUCE_SEGMENT_BYTES", OL_PARAM_INT, "1048576",
     "allreduce tree and hierarchical: pipeline segment size in bytes",
     &ol_coll_allreduce_segment_bytes},
    {"ALLREDUCE_DEVICE_IPC_BYTES", OL_PARAM_INT, "1048576",
     "blocking allreduce on device memory, all ranks on one host: from this many bytes on, "
     "every rank reduces its slice straight out of the others' buffers through CUDA IPC "
     "(-1: never)",
     &ol_coll_allreduce_device_ipc_bytes},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    MPI_Count bytes = ol_coll_bytes(a);
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return INTERCOMM;
    }
    if (bytes < short_bytes || a->recvcount < a->comm->size) {
        *why = ol_coll_why("%lld bytes < ALLREDUCE_SHORT_BYTES=%d, or fewer elements than ranks",
                           (long long)bytes, short_bytes);
        return RD;
    }
    if (!a->op->commutative) {
        *why = "long vector, non-commutative op";
        return TREE;
    }
    /* With one rank per host the hierarchical form is only its leaders'
     * tree: 4 namespace hosts, 1 MiB, 3426 us against Rabenseifner's 2155. */
    bool hosts_shared = ol_rt.num_hosts == 0 || ol_rt.num_hosts < ol_rt.size;
    if (ol_rt.local_size < ol_rt.size && hosts_shared && bytes < hierarchical_bytes &&
        a->comm->size > 2) {
        *why = "the job spans hosts, some with several ranks";
        return HIERARCHICAL;
    }
    *why = ol_coll_why("%lld bytes %s ALLREDUCE_RING_BYTES=%d", (long long)bytes,
                       bytes < ring_bytes ? "<" : ">=", ring_bytes);
    return bytes < ring_bytes ? RABENSEIFNER : RING;
}

const ol_coll_table_t ol_coll_allreduce_table = {
    "allreduce", algorithms, sizeof(algorithms) / sizeof(algorithms[0]), choose, &forced,
    params, sizeof(params) / sizeof(params[0])};
