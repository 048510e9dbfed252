/* Alltoall: its algorithms and their selection. Block size: recvcount *
 * size of recvtype, the same everywhere.
 *
 * Thresholds measured on the 2-core development machine (osu_alltoall 8 B
 * .. 1 MiB blocks, 2, 4 and 8 ranks, each algorithm forced, best of two runs
 * of medians; shared memory, oversubscribed at 4 and 8 ranks):
 * - 2 ranks: pairwise at every size (0.5 us at 8 B, 478 us at 1 MiB; linear
 *   posts the same two messages in a different order and was slower);
 * - 4 and 8 ranks: linear (every exchange at once) below 256 KiB (29-37 us
 *   against 46-74 for pairwise up to 4 KiB at 4 ranks, 401 against 928 us
 *   at 64 KiB and 8 ranks), pairwise from 256 KiB at 4 ranks and 512 KiB at
 *   8 (4.0 against 5.4 ms at 512 KiB, 8 ranks), when all messages at once
 *   crowd memory;
 * - Bruck never won here (8 B, 8 ranks: 105-170 us against 96-104 for
 *   linear): on one host its packing costs more than the rounds it saves.
 *   Beyond the 8 processes measured it is the textbook choice for blocks
 *   below ALLTOALL_SMALL_BYTES.
 *
 * Across hosts (4 ranks on network-namespace hosts, TCP over veth,
 * osu_alltoall with each algorithm forced, medians of 3 alternating runs,
 * load 5-10 on the 2 cores; 4 hosts x 1 rank / 2 hosts x 2 ranks, us):
 *
 *   block    linear         pairwise       bruck
 *   8 B      131 / 71       115 / 159       70 / 175
 *   1 KiB     90 / 67       137 / 158       83 / 193
 *   16 KiB   219 / 143      209 / 264      129 / 348
 *   32 KiB   249 / 526      268 / 788      238 / 550
 *   256 KiB 1107 / 923     1514 / 1440    2053 / 2483
 *   512 KiB 1937 / 3483    3257 / 2945    5159 / 4652
 *   1 MiB   5644 / 7096    5731 / 7469   10675 / 17580
 *
 * With one rank per host Bruck's log2 p messages per rank beat p - 1 up to
 * 16 KiB: hence Bruck below ALLTOALL_NET_BRUCK_BYTES there. Linear won or
 * tied up to 1 MiB in both layouts (the cores, not memory, are the limit),
 * and kept winning beyond on 2 hosts x 2 ranks (medians of 5 alternating
 * runs, 3 at 16 MiB; linear / pairwise, ms): 1 MiB 3.50 / 4.25, 2 MiB
 * 6.95 / 8.26, 4 MiB 14.1 / 16.8, 8 MiB 26.9 / 30.7, 16 MiB 50.6 / 55.0:
 * pairwise's steps wait for their slowest message, and in each step a
 * different number of them crosses the network. So jobs that span hosts
 * exchange pairwise only from ALLTOALL_NET_LARGE_BYTES if that is set. */
#include "coll_select.h"

#include <limits.h>

ol_status_t ol_coll_alltoall_pairwise(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_alltoall_bruck(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_alltoall_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { PAIRWISE, BRUCK, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [PAIRWISE] = {"pairwise", OL_ALGO_INTRA, ol_coll_alltoall_pairwise},
    [BRUCK] = {"bruck", OL_ALGO_INTRA, ol_coll_alltoall_bruck},
    [LINEAR] = {"linear", 0, ol_coll_alltoall_linear},
};

static const char *forced;
static int linear_procs, large_bytes, small_bytes, net_bruck_bytes, net_large_bytes;
static const ol_param_t params[] = {
    {"ALLTOALL_ALGORITHM", OL_PARAM_STRING, "",
     "force an alltoall algorithm: pairwise, bruck, linear", &forced, 0, 0},
    {"ALLTOALL_LINEAR_PROCS", OL_PARAM_INT, "8",
     "up to this many processes (3 or more), blocks below ALLTOALL_LARGE_BYTES are all "
     "exchanged at once (linear)",
     &linear_procs, 0, INT_MAX},
    {"ALLTOALL_LARGE_BYTES", OL_PARAM_INT, "262144",
     "blocks of at least this many bytes are exchanged pairwise, one peer per step", &large_bytes, 0, INT_MAX},
    {"ALLTOALL_SMALL_BYTES", OL_PARAM_INT, "256",
     "on more than ALLTOALL_LINEAR_PROCS processes, blocks below this many bytes use Bruck's "
     "algorithm",
     &small_bytes, 0, INT_MAX},
    {"ALLTOALL_NET_BRUCK_BYTES", OL_PARAM_INT, "32768",
     "on jobs with one rank per host, blocks below this many bytes use Bruck's algorithm "
     "(log2 p network messages per rank instead of p - 1)",
     &net_bruck_bytes, 0, INT_MAX},
    {"ALLTOALL_NET_LARGE_BYTES", OL_PARAM_INT, "0",
     "on jobs that span hosts, blocks of at least this many bytes are exchanged pairwise "
     "(0: never, up to ALLTOALL_LINEAR_PROCS processes; ALLTOALL_LARGE_BYTES on one host)",
     &net_large_bytes, 0, INT_MAX},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    MPI_Count bytes = ol_coll_bytes(a);
    int p = a->comm->size;
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    ol_coll_layout_t layout = ol_coll_layout(a->comm);
    if (layout == OL_COLL_RANK_PER_HOST && p > 2 && bytes < net_bruck_bytes) {
        *why = "one rank per host, below ALLTOALL_NET_BRUCK_BYTES";
        return BRUCK;
    }
    int large = layout == OL_COLL_ONE_HOST ? large_bytes : net_large_bytes;
    if (p <= 2 || (large > 0 && bytes >= large)) {
        *why = ol_coll_why("2 processes, or at least %s=%d",
                           layout == OL_COLL_ONE_HOST ? "ALLTOALL_LARGE_BYTES"
                                                      : "ALLTOALL_NET_LARGE_BYTES",
                           large);
        return PAIRWISE;
    }
    if (p <= linear_procs) {
        *why = "below ALLTOALL_LARGE_BYTES, at most ALLTOALL_LINEAR_PROCS processes";
        return LINEAR;
    }
    if (bytes < small_bytes) {
        *why = "below ALLTOALL_SMALL_BYTES";
        return BRUCK;
    }
    *why = "at least ALLTOALL_SMALL_BYTES";
    return PAIRWISE;
}

const ol_coll_table_t ol_coll_alltoall_table = {"alltoall", algorithms,
                                                OL_ARRAY_SIZE(algorithms), choose, &forced,
                                                params, OL_ARRAY_SIZE(params)};
