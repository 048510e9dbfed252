/* Allgather: its algorithms and their selection. */
#include "coll_select.h"

ol_status_t ol_coll_allgather_ring(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"ring", OL_ALGO_INTRA, ol_coll_allgather_ring},
};

static const char *forced;
static const ol_param_t params[] = {
    {"ALLGATHER_ALGORITHM", OL_PARAM_STRING, "", "force an allgather algorithm: ring", &forced},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only allgather algorithm";
    return 0;
}

const ol_coll_table_t ol_coll_allgather_table = {"allgather", algorithms, 1, choose, &forced,
                                                 params, 1};
