/* Allgather: its algorithms and their selection. Block size: recvcount *
 * size of recvtype, the same everywhere.
 *
 * Thresholds measured on the 2-core development machine (osu_allgather
 * 8 B .. 1 MiB blocks, 2, 4 and 8 ranks, each algorithm forced, best of two
 * runs of medians; shared memory, oversubscribed at 4 and 8 ranks): linear
 * (every block straight to every process, one round) was best or within
 * noise at every size and rank count: 30-37 us against 41-45 (recursive
 * doubling), 40-58 (Bruck) and 43-53 (ring) below 1 KiB at 4 ranks; 303
 * against 715, 605 and 1271 us at 64 KiB and 8 ranks; 10.1 against 11.5
 * (ring) ms at 1 MiB and 8 ranks. With every process on one host the
 * log-step algorithms only add rounds. Beyond the 8 processes measured the
 * choice is the textbook one: log2 p steps (recursive doubling on a power
 * of two, Bruck otherwise) for blocks below ALLGATHER_SMALL_BYTES, the
 * bandwidth-optimal ring above.
 *
 * Across hosts, where each block costs a network message, linear lost (4
 * ranks on network-namespace hosts, TCP over veth, osu_allgather with each
 * algorithm forced, medians of 3 alternating runs, load 5-10 on the 2
 * cores; 4 hosts x 1 rank / 2 hosts x 2 ranks, us):
 *
 *   block     linear      rec.doubling   ring
 *   8 KiB     110 / 226     97 / 178     166 / 146
 *   64 KiB    375 / 905    266 / 606     337 / 779
 *   128 KiB   419 / 697    491 / 842     625 / 966
 *   512 KiB  2102 / 2570  2052 / 2856   1768 / 1907
 *   1 MiB    4608 / 6126  6587 / 6758   4077 / 4906
 *
 * Again at load 3-4, each MPI alternately (4x1 / 2x2, us):
 *
 *   block     linear      rec.doubling
 *   8 KiB     101 / 78      93 / 58
 *   16 KiB    108 / 108    130 / 162
 *   32 KiB    131 / 272    188 / 189
 *   64 KiB    235 / 350    322 / 219
 *
 * Hence, on jobs that span hosts, recursive doubling (a power of two) below
 * ALLGATHER_RANK_PER_HOST_RD_BYTES with one rank per host (at low load
 * linear won from 16 KiB there); the ring from ALLGATHER_NET_RING_BYTES,
 * linear between.
 *
 * With several ranks per host, recursive doubling swaps across hosts first
 * (see its file), so each rank sends half the network bytes of linear or
 * of near-first doubling. 2 hosts x 2 ranks, medians of 5 alternating runs
 * (3 from 1 MiB), us:
 *
 *   block     near-first RD   far-first RD   linear/ring (the old choice)
 *   64 KiB        160             116            109
 *   128 KiB       373             202            302
 *   256 KiB       757             512            705
 *   512 KiB      1462            1052           1824 (ring)
 *   1 MiB        3613            2162-2329      1976-3309 (ring)
 *   2 / 4 MiB       -            5777 / 11535   6569 / 12982 (ring)
 *
 * so it runs there at every size below ALLGATHER_SHARED_HOSTS_RD_BYTES
 * (16 MiB, beyond what was measured). */
#include "coll_select.h"

#include <limits.h>

ol_status_t ol_coll_allgather_ring(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allgather_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_allgather_bruck(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_alltoall_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { RING, RECURSIVE_DOUBLING, BRUCK, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [RING] = {"ring", OL_ALGO_INTRA, ol_coll_allgather_ring},
    [RECURSIVE_DOUBLING] = {"recursive_doubling", OL_ALGO_INTRA,
                            ol_coll_allgather_recursive_doubling},
    [BRUCK] = {"bruck", OL_ALGO_INTRA, ol_coll_allgather_bruck},
    /* an allgather is an alltoall whose send blocks are all the same */
    [LINEAR] = {"linear", 0, ol_coll_alltoall_linear},
};

static const char *forced;
static int linear_procs, small_bytes, rank_per_host_rd_bytes, shared_hosts_rd_bytes,
    net_ring_bytes;
static const ol_param_t params[] = {
    {"ALLGATHER_ALGORITHM", OL_PARAM_STRING, "",
     "force an allgather algorithm: ring, recursive_doubling, bruck, linear", &forced, 0, 0},
    {"ALLGATHER_LINEAR_PROCS", OL_PARAM_INT, "8",
     "up to this many processes every block goes straight to every process (linear)",
     &linear_procs, 0, INT_MAX},
    {"ALLGATHER_SMALL_BYTES", OL_PARAM_INT, "8192",
     "on more processes, blocks below this many bytes take log2 p steps (recursive doubling on "
     "a power of two, Bruck otherwise), larger ones the ring",
     &small_bytes, 0, INT_MAX},
    {"ALLGATHER_RANK_PER_HOST_RD_BYTES", OL_PARAM_INT, "16384",
     "on jobs with one rank per host, up to ALLGATHER_LINEAR_PROCS processes (a power of two), "
     "blocks below this many bytes take recursive doubling",
     &rank_per_host_rd_bytes, 0, INT_MAX},
    {"ALLGATHER_SHARED_HOSTS_RD_BYTES", OL_PARAM_INT, "16777216",
     "on jobs with several ranks on each of several hosts, up to ALLGATHER_LINEAR_PROCS "
     "processes (a power of two), blocks below this many bytes take recursive doubling",
     &shared_hosts_rd_bytes, 0, INT_MAX},
    {"ALLGATHER_NET_RING_BYTES", OL_PARAM_INT, "524288",
     "on jobs that span hosts, up to ALLGATHER_LINEAR_PROCS processes, blocks of at least this "
     "many bytes take the ring",
     &net_ring_bytes, 0, INT_MAX},
};

static bool is_pow2(int n)
{
    return (n & (n - 1)) == 0;
}

/* Few processes on several hosts: fewer, larger network messages win. */
static int choose_across_hosts(const ol_coll_args_t *a, const char **why)
{
    MPI_Count bytes = ol_coll_bytes(a);
    bool rank_per_host = ol_coll_layout(a->comm) == OL_COLL_RANK_PER_HOST;
    int rd_bytes = rank_per_host ? rank_per_host_rd_bytes : shared_hosts_rd_bytes;
    if (is_pow2(a->comm->size) && bytes < rd_bytes) {
        *why = rank_per_host ? "one rank per host, below ALLGATHER_RANK_PER_HOST_RD_BYTES"
                             : "across hosts, below ALLGATHER_SHARED_HOSTS_RD_BYTES";
        return RECURSIVE_DOUBLING;
    }
    if (bytes >= net_ring_bytes) {
        *why = "across hosts, at least ALLGATHER_NET_RING_BYTES";
        return RING;
    }
    *why = "across hosts, at most ALLGATHER_LINEAR_PROCS processes";
    return LINEAR;
}

static int choose(const ol_coll_args_t *a, const char **why)
{
    int p = a->comm->size;
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    if (p <= linear_procs && ol_coll_layout(a->comm) != OL_COLL_ONE_HOST)
        return choose_across_hosts(a, why);
    if (p <= linear_procs) {
        *why = "at most ALLGATHER_LINEAR_PROCS processes";
        return LINEAR;
    }
    if (ol_coll_bytes(a) < small_bytes) {
        *why = "below ALLGATHER_SMALL_BYTES";
        return is_pow2(p) ? RECURSIVE_DOUBLING : BRUCK;
    }
    *why = "at least ALLGATHER_SMALL_BYTES";
    return RING;
}

const ol_coll_table_t ol_coll_allgather_table = {"allgather", algorithms,
                                                 OL_ARRAY_SIZE(algorithms), choose, &forced,
                                                 params, OL_ARRAY_SIZE(params)};
