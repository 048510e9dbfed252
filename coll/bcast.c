/* Broadcast: its algorithms and their selection. Arguments: the buffer is
 * recvbuf/recvcount/recvtype, and root. */
#include "coll_select.h"

ol_status_t ol_coll_bcast_binomial(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"binomial", OL_ALGO_INTRA, ol_coll_bcast_binomial},
};

static const char *forced;
static const ol_param_t params[] = {
    {"BCAST_ALGORITHM", OL_PARAM_STRING, "", "force a broadcast algorithm: binomial", &forced},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only broadcast algorithm";
    return 0;
}

const ol_coll_table_t ol_coll_bcast_table = {"bcast", algorithms, 1, choose, &forced, params, 1};
