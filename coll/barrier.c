/* Barrier: its algorithms and their selection. */
#include "coll_select.h"

ol_status_t ol_coll_barrier_dissemination(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"dissemination", OL_ALGO_INTRA, ol_coll_barrier_dissemination},
};

static const char *forced;
static const ol_param_t params[] = {
    {"BARRIER_ALGORITHM", OL_PARAM_STRING, "", "force a barrier algorithm: dissemination",
     &forced},
};

/* Dissemination is optimal in rounds for every process count. */
static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only barrier algorithm";
    return 0;
}

const ol_coll_table_t ol_coll_barrier_table = {"barrier", algorithms, 1, choose, &forced, params,
                                               1};
