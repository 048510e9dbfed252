/* Barrier: its algorithms and their selection. */
#include "coll_select.h"

ol_status_t ol_coll_barrier_dissemination(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_barrier_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { DISSEMINATION, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [DISSEMINATION] = {"dissemination", OL_ALGO_INTRA, ol_coll_barrier_dissemination},
    [LINEAR] = {"linear", 0, ol_coll_barrier_linear},
};

static const char *forced;
static const ol_param_t params[] = {
    {"BARRIER_ALGORITHM", OL_PARAM_STRING, "", "force a barrier algorithm: dissemination, linear",
     &forced, 0, 0},
};

/* Dissemination is optimal in rounds for every process count; linear is
 * what an intercommunicator needs. */
static int choose(const ol_coll_args_t *a, const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    *why = "log2 p rounds";
    return DISSEMINATION;
}

const ol_coll_table_t ol_coll_barrier_table = {"barrier", algorithms, 2, choose,
                                               &forced,   params,     1};
