/* Alltoallw: its algorithms and their selection. Block sizes differ from
 * process to process, so no rank could plan a combining (Bruck) schedule
 * the others agree on; the choice is by communicator kind only. */
#include "coll_select.h"

ol_status_t ol_coll_alltoall_pairwise(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_alltoall_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { PAIRWISE, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [PAIRWISE] = {"pairwise", OL_ALGO_INTRA, ol_coll_alltoall_pairwise},
    [LINEAR] = {"linear", 0, ol_coll_alltoall_linear},
};

static const char *forced;
static const ol_param_t params[] = {
    {"ALLTOALLW_ALGORITHM", OL_PARAM_STRING, "", "force an alltoallw algorithm: pairwise, linear",
     &forced, 0, 0},
};

/* Pairwise keeps one message in and one out per process at a time, which
 * is what large exchanges need; an intercommunicator has no pairs. */
static int choose(const ol_coll_args_t *a, const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    *why = "intracommunicator";
    return PAIRWISE;
}

const ol_coll_table_t ol_coll_alltoallw_table = {"alltoallw", algorithms, 2, choose,
                                                 &forced,     params,     1};
