/* Scatter: its algorithms and their selection. Block size: each process's
 * recvcount * size of recvtype (sendcount at an MPI_IN_PLACE root), the
 * same everywhere.
 *
 * Threshold measured on the 2-core development machine (scatter of 8 B ..
 * 256 KiB blocks from root 0, 4 and 8 ranks, each algorithm forced, median
 * of 5 batches): from 64 KiB the linear scatter wins (8 ranks: 91 against
 * 144 us at 64 KiB, 196 against 298 at 256 KiB; 4 ranks: 101 against 109
 * and 154 against 196); at 16 KiB and 8 ranks binomial still won (93
 * against 163 us). */
#include "coll_select.h"

#include <limits.h>

ol_status_t ol_coll_scatter_binomial(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_scatter_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { BINOMIAL, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [BINOMIAL] = {"binomial", OL_ALGO_INTRA, ol_coll_scatter_binomial},
    [LINEAR] = {"linear", 0, ol_coll_scatter_linear},
};

static const char *forced;
static int large_bytes;
static const ol_param_t params[] = {
    {"SCATTER_ALGORITHM", OL_PARAM_STRING, "", "force a scatter algorithm: binomial, linear",
     &forced, 0, 0},
    {"SCATTER_LARGE_BYTES", OL_PARAM_INT, "65536",
     "scatters of blocks of at least this many bytes go straight from the root (linear)",
     &large_bytes, 0, INT_MAX},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    if (ol_coll_bytes(a) >= large_bytes) {
        *why = "at least SCATTER_LARGE_BYTES";
        return LINEAR;
    }
    *why = "below SCATTER_LARGE_BYTES";
    return BINOMIAL;
}

const ol_coll_table_t ol_coll_scatter_table = {"scatter", algorithms, 2, choose,
                                               &forced,   params,     2};
