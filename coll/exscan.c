/* Exscan: its algorithm. Arguments: sendbuf (or MPI_IN_PLACE), recvbuf,
 * recvcount, recvtype, op. Intracommunicators only (the standard defines
 * no intercommunicator exscan). One algorithm, whose association depends
 * on the process count alone, so reproducible mode changes nothing. */
#include "reduce_util.h"

ol_status_t ol_coll_exscan_recursive_doubling(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"recursive_doubling", OL_ALGO_INTRA, ol_coll_exscan_recursive_doubling},
};

static const char *forced;
static const ol_param_t params[] = {
    {"EXSCAN_ALGORITHM", OL_PARAM_STRING, "", "force a exscan algorithm: recursive_doubling",
     &forced, 0, 0},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only exscan algorithm";
    return 0;
}

const ol_coll_table_t ol_coll_exscan_table = {"exscan", algorithms, 1, choose, &forced, params, 1};
