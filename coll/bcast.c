/* Broadcast: its algorithms and their selection. Arguments: the buffer is
 * recvbuf/recvcount/recvtype, and root.
 *
 * Thresholds measured on the 2-core development machine (osu_bcast 8 B ..
 * 1 MiB, 2, 4 and 8 ranks, each algorithm forced, best of two runs of
 * medians; shared memory, oversubscribed at 4 and 8 ranks):
 * - linear beats binomial below 16 KiB at 4 and 8 ranks (1.4-5 us against
 *   23-38 us at 4 ranks, 8-36 us against 37-82 us at 8): one hop, and the
 *   root's eager sends do not wait for each other. With 2 ranks they are
 *   the same schedule. Once sends from 4 KiB went by address (the
 *   receivers copy out of the root's buffer at once, pt2pt/README.md), it
 *   also won up to 128 KiB (2-core Intel Xeon, 2026-12-06, ompi-lite alone,
 *   three alternating pairs of 3 runs, 4 ranks: 64 KiB 13.5-15.8 us against
 *   16.8-22.4, 128 KiB 22.6-25.0 against 23.4-37.9; 8 ranks, two: 64 KiB
 *   37.6-37.8 against 43.8-44.7, 128 KiB 54-62 against 59-65); from 256
 *   KiB binomial did as well or better (4 ranks 36.7-71 against 43.6-50.4,
 *   512 KiB 89-135 against 64-136; 8 ranks 1 MiB 543-587 against 575-588),
 *   hence BCAST_LINEAR_BYTES = 256 KiB. The shared-memory path (shm_coll.c)
 *   takes blocking broadcasts first: up to 32 KiB, and on 3 or more
 *   processes up to 1 MiB in pieces, which beat linear by half at 64-256
 *   KiB (2026-12-07).
 * - scatter_allgather and pipeline never won up to 1 MiB and 8 ranks
 *   (1 MiB, 8 ranks: binomial 726 us, scatter_allgather 1665, pipeline
 *   3091): on one host every copy crosses the same memory, so cutting the
 *   message buys no concurrency and costs rounds. Their thresholds are off
 *   (0) by default; set them where links run in parallel.
 * Linear is kept to the process counts measured (up to 8).
 *
 * Across hosts (4 ranks on network-namespace hosts, TCP over veth, osu_bcast
 * with each algorithm forced, medians of 3 alternating runs, load 5-10 on
 * the 2 cores), linear lost: the root pays a TCP send per process.
 * - one rank per host: the chain (pipeline, one segment below
 *   BCAST_SEGMENT_SIZE) won up to 32 KiB: 9-20 us against 15-19 binomial and
 *   18-28 linear up to 2 KiB, 19/35 against 38/48 binomial at 16/32 KiB;
 *   each rank sends once per call, which is what back-to-back broadcasts
 *   wait for. Hence the chain below BCAST_CHAIN_BYTES there.
 * - two hosts of two ranks: binomial won below 16 KiB (7-14 us against
 *   14-22 linear and 7-17 chain): one TCP message from the root, the rest
 *   through shared memory. Hence binomial instead of linear there.
 *   From 128 KiB the chain won (medians of 5 alternating runs, binomial /
 *   chain, us: 128 KiB 149 / 115, 256 KiB 357 / 188, 1 MiB 1089 / 786,
 *   8 MiB 7635 / 5957; 64 KiB 71 / 83): ranks placed by host cross the
 *   network once, and a host's second rank forwards each segment as it
 *   arrives instead of waiting for the whole message. Two hosts of four
 *   ranks (8 ranks on the 2 cores) lost with it (64 KiB-4 MiB 1.1-1.8x
 *   binomial's time): hence the chain from BCAST_NET_CHAIN_BYTES only up
 *   to BCAST_NET_CHAIN_PROCS processes. */
#include "bcast_util.h"

#include <limits.h>

ol_status_t ol_coll_bcast_binomial(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_bcast_scatter_allgather(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_bcast_pipeline(ol_sched_t *s, const ol_coll_args_t *a);
ol_status_t ol_coll_bcast_linear(ol_sched_t *s, const ol_coll_args_t *a);

enum { BINOMIAL, SCATTER_ALLGATHER, PIPELINE, LINEAR };
static const ol_coll_algorithm_t algorithms[] = {
    [BINOMIAL] = {"binomial", OL_ALGO_INTRA, ol_coll_bcast_binomial},
    [SCATTER_ALLGATHER] = {"scatter_allgather", OL_ALGO_INTRA, ol_coll_bcast_scatter_allgather},
    [PIPELINE] = {"pipeline", OL_ALGO_INTRA, ol_coll_bcast_pipeline},
    [LINEAR] = {"linear", 0, ol_coll_bcast_linear},
};

static const char *forced;
static int linear_procs, linear_bytes, long_bytes, pipeline_bytes, segment_size, chain_bytes;
static int net_chain_bytes, net_chain_procs;
static const ol_param_t params[] = {
    {"BCAST_ALGORITHM", OL_PARAM_STRING, "",
     "force a broadcast algorithm: binomial, scatter_allgather, pipeline, linear", &forced, 0, 0},
    {"BCAST_LINEAR_PROCS", OL_PARAM_INT, "8",
     "up to this many processes, short broadcasts go from the root to each process directly",
     &linear_procs, 0, INT_MAX},
    {"BCAST_LINEAR_BYTES", OL_PARAM_INT, "262144",
     "broadcasts below this many bytes are short (linear on few processes)", &linear_bytes, 0, INT_MAX},
    {"BCAST_LONG_BYTES", OL_PARAM_INT, "0",
     "broadcasts of at least this many bytes on 3 or more processes scatter then allgather "
     "(0: never)",
     &long_bytes, 0, INT_MAX},
    {"BCAST_PIPELINE_BYTES", OL_PARAM_INT, "0",
     "broadcasts of at least this many bytes go down a pipelined chain (0: never)",
     &pipeline_bytes, 0, INT_MAX},
    {"BCAST_SEGMENT_SIZE", OL_PARAM_INT, "65536", "bytes per segment of the pipelined chain",
     &segment_size, 1, INT_MAX},
    {"BCAST_CHAIN_BYTES", OL_PARAM_INT, "65536",
     "on jobs with one rank per host, broadcasts below this many bytes on at most "
     "BCAST_LINEAR_PROCS processes go down the pipelined chain (each rank sends once)",
     &chain_bytes, 0, INT_MAX},
    {"BCAST_NET_CHAIN_BYTES", OL_PARAM_INT, "131072",
     "on jobs whose hosts hold several ranks each, broadcasts of at least this many bytes on "
     "at most BCAST_NET_CHAIN_PROCS processes go down the pipelined chain (0: never)",
     &net_chain_bytes, 0, INT_MAX},
    {"BCAST_NET_CHAIN_PROCS", OL_PARAM_INT, "4",
     "the most processes for BCAST_NET_CHAIN_BYTES", &net_chain_procs, 0, INT_MAX},
};

int ol_coll_bcast_segment_size(void)
{
    return segment_size;
}

/* (Why, in bcast_util.h.) The bytes are those of the user's buffer when its
 * type is contiguous: no copy. */
ol_status_t ol_coll_bcast_bytes(ol_sched_t *s, const ol_coll_args_t *a, ol_coll_args_t *bytes)
{
    ol_datatype_t *dt = a->recvtype;
    *bytes = *a;
    bytes->recvtype = ol_dt_from_handle(MPI_BYTE);
    bytes->recvcount = a->recvcount * (MPI_Count)dt->size;
    if (dt->contiguous) {
        bytes->recvbuf = ol_dt_data_at(a->recvbuf, dt);
        return OL_OK;
    }
    bytes->recvbuf = ol_sched_buffer(s, (size_t)bytes->recvcount);
    if (!bytes->recvbuf)
        return MPI_ERR_NO_MEM;
    if (a->comm->rank != a->root)
        return OL_OK;
    ol_status_t rc = ol_sched_copy(s, a->recvbuf, a->recvcount, dt, bytes->recvbuf,
                                   bytes->recvcount, bytes->recvtype);
    return rc == OL_OK ? ol_sched_round(s) : rc;
}

/* The others' unpacking, after the broadcast of bytes. */
ol_status_t ol_coll_bcast_bytes_done(ol_sched_t *s, const ol_coll_args_t *a,
                                     const ol_coll_args_t *bytes)
{
    if (a->recvtype->contiguous || a->comm->rank == a->root)
        return OL_OK;
    ol_status_t rc = ol_sched_round(s);
    return rc == OL_OK ? ol_sched_copy(s, bytes->recvbuf, bytes->recvcount, bytes->recvtype,
                                       a->recvbuf, a->recvcount, a->recvtype)
                       : rc;
}

static int choose(const ol_coll_args_t *a, const char **why)
{
    MPI_Count bytes = ol_coll_bytes(a);
    int p = a->comm->size;
    if (ol_comm_is_inter(a->comm)) {
        *why = "intercommunicator";
        return LINEAR;
    }
    if (pipeline_bytes > 0 && bytes >= pipeline_bytes) {
        *why = "at least BCAST_PIPELINE_BYTES";
        return PIPELINE;
    }
    if (long_bytes > 0 && bytes >= long_bytes && p > 2) {
        *why = "at least BCAST_LONG_BYTES";
        return SCATTER_ALLGATHER;
    }
    ol_coll_layout_t layout = ol_coll_layout(a->comm);
    /* A chain's latency grows with p: only on the process counts measured. */
    if (layout == OL_COLL_RANK_PER_HOST && p <= linear_procs && bytes < chain_bytes) {
        *why = "one rank per host, below BCAST_CHAIN_BYTES, at most BCAST_LINEAR_PROCS processes";
        return PIPELINE;
    }
    if (layout == OL_COLL_SHARED_HOSTS && p <= net_chain_procs && net_chain_bytes > 0 &&
        bytes >= net_chain_bytes) {
        *why = "hosts of several ranks, at least BCAST_NET_CHAIN_BYTES, at most "
               "BCAST_NET_CHAIN_PROCS processes";
        return PIPELINE;
    }
    if (p <= linear_procs && bytes < linear_bytes) {
        *why = "below BCAST_LINEAR_BYTES, at most BCAST_LINEAR_PROCS processes";
        /* Across hosts the root's sends each cost a network message. */
        return layout == OL_COLL_ONE_HOST ? LINEAR : BINOMIAL;
    }
    *why = "at least BCAST_LINEAR_BYTES, or more than BCAST_LINEAR_PROCS processes";
    return BINOMIAL;
}

const ol_coll_table_t ol_coll_bcast_table = {
    "bcast", algorithms, OL_ARRAY_SIZE(algorithms), choose, &forced, params, OL_ARRAY_SIZE(params)};
