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
 * bandwidth-optimal ring above. */
#include "coll_select.h"

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
static int linear_procs, small_bytes;
static const ol_param_t params[] = {
    {"ALLGATHER_ALGORITHM", OL_PARAM_STRING, "",
     "force an allgather algorithm: ring, recursive_doubling, bruck, linear", &forced},
    {"ALLGATHER_LINEAR_PROCS", OL_PARAM_INT, "8",
     "up to this many processes every block goes straight to every process (linear)",
     &linear_procs},
    {"ALLGATHER_SMALL_BYTES", OL_PARAM_INT, "8192",
     "on more processes, blocks below this many bytes take log2 p steps (recursive doubling on "
     "a power of two, Bruck otherwise), larger ones the ring",
     &small_bytes},
};

static bool is_pow2(int n)
{
    return (n & (n - 1)) == 0;
}

static int choose(const ol_coll_args_t *a, const char **why)
{
    int p = a->comm->size;
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
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

const ol_coll_table_t ol_coll_allgather_table = {"allgather", algorithms, 4, choose,
                                                 &forced,     params,     3};
