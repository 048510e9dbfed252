/* The OSU-style collective benchmarks (osu_barrier, osu_bcast, ...): each
 * program describes its collective in a struct osu_coll and hands it to
 * osu_coll_main, which times it on MPI_COMM_WORLD at each size: float data,
 * MPI_SUM, root 0. A batch's time is the slowest rank's. */
#ifndef OL_BENCH_OSU_COLL_H
#define OL_BENCH_OSU_COLL_H

#include <stddef.h>

struct osu_coll {
    const char *name, *what;
    int sized;          /* 0: barrier */
    int send_per_rank;  /* the send buffer holds a block per rank (alltoall, reduce_scatter) */
    int recv_per_rank;  /* the receive buffer does (allgather, alltoall) */
    int size_is_total;  /* -m gives the whole vector, a block is size / ranks (reduce_scatter) */
    int data_in_recv;   /* the data starts in the receive buffer (bcast) */
    int root_only;      /* only the root receives a result (reduce) */
    /* One call; count elements per block. */
    void (*call)(float *send, float *recv, int count);
    /* What recv[k] must hold afterwards on rank `rank`, -c. */
    float (*expect)(int rank, size_t k, size_t count);
};

int osu_coll_main(const struct osu_coll *c, int argc, char **argv);

/* sum over ranks of bench_value(r, k) */
float osu_coll_sum(size_t k);

#endif
