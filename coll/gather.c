/* Gather: its algorithms and their selection. Block size: each process's
 * sendcount * size of sendtype (recvcount at an MPI_IN_PLACE root), the
 * same everywhere.
 *
 * Threshold measured on the 2-core development machine (gather of 8 B ..
 * 256 KiB blocks to root 0, 4 and 8 ranks, each algorithm forced, median
 * of 5 batches): from 16 KiB the linear gather wins (4 ranks: 30 against
 * 57 us at 16 KiB, 91 against 219 us at 256 KiB; 8 ranks: 86 against 113
 * and 206 against 335 us): relaying through the tree then copies more than
 * it saves. Below, the two are within the machine's noise (8 ranks: 98
 * against 127 us at 512 B for binomial) and the tree, which the root's
 * fewer messages favour as processes grow, is kept. */
#include "coll_select.h"

#include <limits.h>

ol_status_t ol_coll_gather_binomial(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_gather_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { BINOMIAL, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [BINOMIAL] = {"binomial", OL_ALGO_INTRA, ol_coll_gather_binomial},
    [LINEAR] = {"linear", 0, ol_coll_gather_linear},
};

static const char *forced;
static int large_bytes;
static const ol_param_t params[] = {
    {"GATHER_ALGORITHM", OL_PARAM_STRING, "", "force a gather algorithm: binomial, linear",
     &forced, 0, 0},
    {"GATHER_LARGE_BYTES", OL_PARAM_INT, "16384",
     "gathers of blocks of at least this many bytes go straight to the root (linear)",
     &large_bytes, 0, INT_MAX},
};

static int choose(const ol_coll_args_t *a, const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    if (ol_coll_bytes(a) >= large_bytes) {
        *why = "at least GATHER_LARGE_BYTES";
        return LINEAR;
    }
    *why = "below GATHER_LARGE_BYTES";
    return BINOMIAL;
}

const ol_coll_table_t ol_coll_gather_table = {"gather", algorithms, 2, choose, &forced, params, 2};
