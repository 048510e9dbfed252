/* Allgatherv: its algorithms and their selection. Block sizes differ from
 * rank to rank, so the choice looks only at what every rank knows alike:
 * the process count. As for allgather (see allgather.c, measured with
 * osu_allgather on the 2-core development machine), sending every block
 * straight to every process was fastest up to the 8 processes measured;
 * beyond, the ring, which moves each block once per link whatever the
 * sizes. */
#include "coll_select.h"

#include <limits.h>

ol_status_t ol_coll_allgatherv_ring(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_alltoall_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { RING, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [RING] = {"ring", OL_ALGO_INTRA, ol_coll_allgatherv_ring},
    /* an allgatherv is an alltoallv whose send blocks are all the same */
    [LINEAR] = {"linear", 0, ol_coll_alltoall_linear},
};

static const char *forced;
static int linear_procs;
static const ol_param_t params[] = {
    {"ALLGATHERV_ALGORITHM", OL_PARAM_STRING, "", "force an allgatherv algorithm: ring, linear",
     &forced, 0, 0},
    {"ALLGATHERV_LINEAR_PROCS", OL_PARAM_INT, "8",
     "up to this many processes every block goes straight to every process (linear)",
     &linear_procs, 0, INT_MAX},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    if (a->comm->size <= linear_procs) {
        *why = "at most ALLGATHERV_LINEAR_PROCS processes";
        return LINEAR;
    }
    *why = "more than ALLGATHERV_LINEAR_PROCS processes";
    return RING;
}

const ol_coll_table_t ol_coll_allgatherv_table = {"allgatherv", algorithms, 2, choose,
                                                  &forced,      params,     2};
