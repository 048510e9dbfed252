/* Gatherv: its algorithm. Only the root knows every block's size, so no
 * tree can be planned by the others: each block goes straight between its
 * process and the root, intra- and intercommunicator alike. */
#include "coll_select.h"

ol_status_t ol_coll_gather_linear(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"linear", 0, ol_coll_gather_linear},
};

static const char *forced;
static const ol_param_t params[] = {
    {"GATHERV_ALGORITHM", OL_PARAM_STRING, "", "force a gatherv algorithm: linear", &forced, 0, 0},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only gatherv algorithm";
    return 0;
}

const ol_coll_table_t ol_coll_gatherv_table = {"gatherv", algorithms, 1, choose,
                                               &forced,   params,     1};
