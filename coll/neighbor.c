/* The neighbourhood collectives' tables: allgather, allgatherv, alltoall,
 * alltoallv and alltoallw on Cartesian, graph and distributed graph
 * topologies. One file for the five: they share their one algorithm (each
 * process talks to its few neighbours directly; no relaying could save a
 * step). Each still has its parameter, so that a second algorithm would
 * only add a row. */
#include "coll_select.h"

ol_status_t ol_coll_neighbor_linear(ol_sched_t *s, const ol_coll_args_t *a);

static const ol_coll_algorithm_t algorithms[] = {
    {"linear", OL_ALGO_INTRA, ol_coll_neighbor_linear},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    (void)a;
    *why = "the only neighbourhood algorithm";
    return 0;
}

#define NEIGHBOR_TABLE(name, NAME)                                                                 \
    static const char *forced_##name;                                                              \
    static const ol_param_t params_##name[] = {                                                    \
        {"NEIGHBOR_" NAME "_ALGORITHM", OL_PARAM_STRING, "",                                       \
         "force a neighbor_" #name " algorithm: linear", &forced_##name, 0, 0},                    \
    };                                                                                             \
    const ol_coll_table_t ol_coll_neighbor_##name##_table = {                                      \
        "neighbor_" #name, algorithms, 1, choose, &forced_##name, params_##name, 1}

NEIGHBOR_TABLE(allgather, "ALLGATHER");
NEIGHBOR_TABLE(allgatherv, "ALLGATHERV");
NEIGHBOR_TABLE(alltoall, "ALLTOALL");
NEIGHBOR_TABLE(alltoallv, "ALLTOALLV");
NEIGHBOR_TABLE(alltoallw, "ALLTOALLW");
