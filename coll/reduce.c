/* Reduce: its algorithms and their selection. Arguments: sendbuf (or
 * MPI_IN_PLACE at the root), recvbuf (significant at the root), recvcount,
 * recvtype, op, root.
 *
 * Commutative ops take the binomial tree rooted at the root; others the
 * in-order tree to rank 0 (plus one hop to the root). Both pipeline
 * segments of REDUCE_SEGMENT_BYTES (REDUCE_PAIR_SEGMENT_BYTES on two
 * processes). In reproducible mode (REPRODUCIBLE,
 * allreduce.c) every algorithm runs in_order, the tree allreduce uses too. */
#include "reduce_util.h"

#include <limits.h>

ol_status_t ol_coll_reduce_binomial(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_reduce_in_order(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_reduce_intercomm(ol_sched_t *s, const ol_coll_args_t *a);

OL_COLL_REPRODUCIBLE_AS(binomial, ol_coll_reduce_binomial, ol_coll_reduce_in_order)

enum { BINOMIAL, IN_ORDER, INTERCOMM };
static const ol_coll_algorithm_t algorithms[] = {
    [BINOMIAL] = {"binomial", OL_ALGO_INTRA | OL_ALGO_COMMUTATIVE, binomial},
    [IN_ORDER] = {"in_order", OL_ALGO_INTRA, ol_coll_reduce_in_order},
    [INTERCOMM] = {"intercomm", 0, ol_coll_reduce_intercomm},
};

static const char *forced;
int ol_coll_reduce_segment_bytes;
static int pair_segment_bytes;
int ol_coll_reduce_split_bytes;
static const ol_param_t params[] = {
    {"REDUCE_ALGORITHM", OL_PARAM_STRING, "", "force a reduce algorithm: binomial, in_order, "
     "intercomm", &forced, 0, 0},
    {"REDUCE_SEGMENT_BYTES", OL_PARAM_INT, "1048576",
     "reduce and the in-order reduce_scatter: pipeline segment size in bytes (each segment is a "
     "round, i.e. a progress cycle: 64 KiB segments made a 64 MiB reduce 2.5x slower)",
     &ol_coll_reduce_segment_bytes, 1, INT_MAX},
    {"REDUCE_PAIR_SEGMENT_BYTES", OL_PARAM_INT, "65536",
     "reduce on 2 processes: pipeline segment size in bytes. The tree is one hop, so the root "
     "reduces a segment while the next one arrives; segments that go eager on shared memory "
     "(up to 64 KiB) made 128 KiB-4 MiB 1.1-1.5x faster (osu_reduce, quiet machine: 1 MiB 167 "
     "-> 117 us, 64 MiB 18.8 -> 16.9 ms). On 4 oversubscribed ranks they made 1-16 MiB up to "
     "2x slower (more rounds, each a wakeup), hence REDUCE_SEGMENT_BYTES there",
     &pair_segment_bytes, 1, INT_MAX},
    {"REDUCE_SPLIT_BYTES", OL_PARAM_INT, "131072",
     "reduce on 2 processes of one host with a commutative op: from this many bytes both "
     "processes reduce a part of the vector, reading and writing each other's buffers through "
     "the kernel (coll/reduce_split.c), where both have contiguous host buffers (osu_reduce "
     "128 KiB 11.2 -> 8.7-9.2 us, 1 MiB 150 -> 75-81; 64 KiB 5.7 -> 5.9-7.3)",
     &ol_coll_reduce_split_bytes, 1, INT_MAX},
};

MPI_Count ol_coll_reduce_segment_count(const ol_comm_t *comm, const ol_datatype_t *dt)
{
    int bytes = comm->size == 2 ? pair_segment_bytes : ol_coll_reduce_segment_bytes;
    return ol_coll_segment_count(bytes, dt);
}

static int choose(const ol_coll_args_t *a, const char **why)
{
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return INTERCOMM;
    }
    *why = a->op->commutative ? "commutative op" : "non-commutative op: rank order";
    return a->op->commutative ? BINOMIAL : IN_ORDER;
}

const ol_coll_table_t ol_coll_reduce_table = {
    "reduce", algorithms, sizeof(algorithms) / sizeof(algorithms[0]), choose, &forced,
    params, sizeof(params) / sizeof(params[0])};
