/* Allreduce: its algorithms and their selection. Arguments: sendbuf (or
 * MPI_IN_PLACE), recvbuf, recvcount, recvtype, op. */
#include "coll_select.h"

ol_status_t ol_coll_allreduce_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"recursive_doubling", OL_ALGO_INTRA, ol_coll_allreduce_recursive_doubling},
};

static const char *forced;
static const ol_param_t params[] = {
    {"ALLREDUCE_ALGORITHM", OL_PARAM_STRING, "",
     "force an allreduce algorithm: recursive_doubling", &forced},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only allreduce algorithm";
    return 0;
}

const ol_coll_table_t ol_coll_allreduce_table = {"allreduce", algorithms, 1, choose, &forced,
                                                 params, 1};
