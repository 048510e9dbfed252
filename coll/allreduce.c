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
 * one host).
 *
 * Across hosts (4 ranks on network-namespace hosts, TCP over veth,
 * osu_allreduce with each algorithm forced, medians of 3 alternating runs,
 * load 5-10 on the 2 cores; 4 hosts x 1 rank / 2 hosts x 2 ranks, us):
 *
 *   bytes   rec.doubling  rabenseifner     tree       hierarchical
 *   1 KiB    100 / 110     129 / 171     76 / 119     76 / 109
 *   8 KiB    138 / 136     206 / 218    101 / 129    128 / 141
 *   16 KiB   156 / 243     234 / 252    122 / 150    133 / 157
 *   64 KiB   263 / 574     316 / 794    207 / 432    222 / 417
 *   256 KiB  702 / 1024    941 / 1143   679 / 740    713 / 691
 *   1 MiB   3935 / 3178   2798 / 3408  2579 / 2986  2636 / 2796
 *
 * Again at load 1.5-2.5 (4 hosts x 1 rank / 2 hosts x 2 ranks, us):
 *
 *   bytes   rec.doubling  rabenseifner     tree       hierarchical
 *   8 KiB    129 / 72      142 / 118     90 / 80        - / 77
 *   32 KiB   122 / 224     190 / 135    137 / 192       - / 175
 *   128 KiB  366 / 433     278 / 407    258 / 326       - / 205
 *   256 KiB  712 / 741     429 / 522    544 / 364       - / 303
 *   1 MiB   3079 / 2930   1960 / 1677  2286 / 1448      - / 1359
 *
 * Recursive doubling's full-vector exchanges lose to the pipelined trees
 * from 8 KiB (ALLREDUCE_NET_SHORT_BYTES) on jobs that span hosts. With one
 * rank per host the tree (the hierarchical form is then the same tree)
 * runs up to ALLREDUCE_NET_TREE_BYTES (at high load it won up to 1 MiB, at
 * low load Rabenseifner won from 256 KiB: its messages are a half and a
 * quarter of the vector, the tree's whole vectors), Rabenseifner and the
 * ring above. With several ranks per host the hierarchical form won from
 * 32 KiB to 1 MiB at both loads, until Rabenseifner paired near ranks
 * first (its halves then stay on a host). Since then (2 hosts x 2 ranks,
 * medians of 5 alternating runs, load 1.5-2, us):
 *
 *   bytes   rabenseifner  hierarchical   tree    ring
 *   16 KiB       91            69          56     149
 *   64 KiB      134           152         135     163
 *   256 KiB     276           345         321     460
 *   1 MiB      1083          1466        1440    1588
 *   4 MiB      5051          6832        6563    6715
 *
 * hence hierarchical only below ALLREDUCE_HIERARCHICAL_BYTES there.
 *
 * On 2 processes of one host recursive doubling is one exchange of the
 * whole vector; since it sends straight from sendbuf and combines into
 * what arrived in recvbuf (no copy first), and the reduction loops are
 * vectorised, it beats Rabenseifner's two exchanges of halves up to 1 MiB
 * (2 ranks, shared memory off, medians of 7 alternating runs, us; with the
 * rings' eager limit then at 4 KiB):
 *
 *   bytes     rec.doubling   rabenseifner   ring
 *   16 KiB        2.39           2.51        2.39
 *   64 KiB        6.61           6.79        6.59
 *   128 KiB      14.11          11.82       11.99
 *   256 KiB      27.51          38.33       38.22
 *   512 KiB      56.20          71.73       71.29
 *   1 MiB       107.56         118.53      117.71
 *   2 MiB       212.78         197.74      191.34
 *
 * (at 128 KiB Rabenseifner's 64 KiB halves went eager, the whole vector by
 * the single copy; the 1.6 us are not worth a second threshold),
 * hence recursive doubling below ALLREDUCE_PAIR_RD_BYTES there. */
#include "reduce_util.h"

#include <limits.h>

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
    [HIERARCHICAL] = {"hierarchical", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE | OL_ALGO_ONE_JOB,
                      hierarchical},
    /* also right on an intracommunicator (its group is then both groups) */
    [INTERCOMM] = {"intercomm", 0, ol_coll_allreduce_intercomm},
};

static const char *forced;
int ol_coll_reproducible;
int ol_coll_allreduce_segment_bytes;
int ol_coll_allreduce_device_ipc_bytes;
static int short_bytes, ring_bytes, hierarchical_bytes, net_short_bytes, net_tree_bytes,
    pair_rd_bytes;
static const ol_param_t params[] = {
    {"ALLREDUCE_ALGORITHM", OL_PARAM_STRING, "",
     "force an allreduce algorithm: recursive_doubling, ring, rabenseifner, tree, "
     "hierarchical, intercomm",
     &forced, 0, 0},
    {"REPRODUCIBLE", OL_PARAM_INT, "0",
     "1: floating-point reductions (reduce, allreduce, reduce_scatter) give the same bits "
     "whatever the algorithm and process placement: an in-order binomial tree to rank 0",
     &ol_coll_reproducible, 0, 1},
    {"ALLREDUCE_SHORT_BYTES", OL_PARAM_INT, "16384",
     "allreduce: recursive doubling below this many bytes", &short_bytes, 0, INT_MAX},
    {"ALLREDUCE_PAIR_RD_BYTES", OL_PARAM_INT, "2097152",
     "allreduce on 2 processes of one host: recursive doubling below this many bytes",
     &pair_rd_bytes, 0, INT_MAX},
    {"ALLREDUCE_NET_SHORT_BYTES", OL_PARAM_INT, "8192",
     "allreduce on jobs that span hosts: recursive doubling below this many bytes "
     "(ALLREDUCE_SHORT_BYTES on one host)",
     &net_short_bytes, 0, INT_MAX},
    {"ALLREDUCE_NET_TREE_BYTES", OL_PARAM_INT, "262144",
     "allreduce on jobs with one rank per host: the pipelined tree below this many bytes "
     "(from ALLREDUCE_NET_SHORT_BYTES), Rabenseifner or the ring from here on",
     &net_tree_bytes, 0, INT_MAX},
    {"ALLREDUCE_RING_BYTES", OL_PARAM_INT, "4194304",
     "allreduce: Rabenseifner below this many bytes, the ring from here on", &ring_bytes, 0, INT_MAX},
    {"ALLREDUCE_HIERARCHICAL_BYTES", OL_PARAM_INT, "65536",
     "allreduce on jobs that span hosts, some with several ranks: hierarchical below this "
     "many bytes",
     &hierarchical_bytes, 0, INT_MAX},
    {"ALLREDUCE_SEGMENT_BYTES", OL_PARAM_INT, "1048576",
     "allreduce tree and hierarchical: pipeline segment size in bytes",
     &ol_coll_allreduce_segment_bytes, 1, INT_MAX},
    {"ALLREDUCE_DEVICE_IPC_BYTES", OL_PARAM_INT, "1048576",
     "blocking allreduce on device memory, all ranks on one host: from this many bytes on, "
     "every rank reduces its slice straight out of the others' buffers through CUDA IPC "
     "(-1: never)",
     &ol_coll_allreduce_device_ipc_bytes, -1, INT_MAX},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    MPI_Count bytes = ol_coll_bytes(a);
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return INTERCOMM;
    }
    ol_coll_layout_t layout = ol_coll_layout(a->comm);
    bool pair = layout == OL_COLL_ONE_HOST && a->comm->size == 2;
    int short_limit = layout != OL_COLL_ONE_HOST ? net_short_bytes
                      : pair                     ? pair_rd_bytes
                                                 : short_bytes;
    if (bytes < short_limit || a->recvcount < a->comm->size) {
        *why = ol_coll_why("%lld bytes < %s=%d, or fewer elements than ranks", (long long)bytes,
                           layout != OL_COLL_ONE_HOST ? "ALLREDUCE_NET_SHORT_BYTES"
                           : pair                     ? "ALLREDUCE_PAIR_RD_BYTES"
                                                      : "ALLREDUCE_SHORT_BYTES",
                           short_limit);
        return RD;
    }
    if (!a->op->commutative) {
        *why = "long vector, non-commutative op";
        return TREE;
    }
    if (layout == OL_COLL_RANK_PER_HOST && bytes < net_tree_bytes) {
        *why = "one rank per host, below ALLREDUCE_NET_TREE_BYTES";
        return TREE;
    }
    /* With one rank per host the hierarchical form is only its leaders'
     * tree: 4 namespace hosts, 1 MiB, 3426 us against Rabenseifner's 2155. */
    if (layout == OL_COLL_SHARED_HOSTS && bytes < hierarchical_bytes && a->comm->size > 2) {
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
