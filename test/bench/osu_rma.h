/* The OSU-style one-sided (RMA) benchmarks (osu_put_latency, osu_get_bw,
 * osu_cas_latency, ...): each program names its operation in a struct
 * osu_rma and hands it to osu_rma_main, which times it from rank 0 (the
 * origin) into rank 1's window (the target) at each size. Ranks above 1
 * only take part in the collectives (window creation, fences, barriers).
 *
 * Synchronisation (-s): passive target, every rank calls MPI_Win_lock_all
 * once and rank 0 completes each operation (bandwidth: each window of -W
 * operations) with MPI_Win_flush; or fence, every rank calls MPI_Win_fence
 * after each operation (window). Window memory (-w): MPI_Win_allocate, or
 * the program's own with MPI_Win_create.
 *
 * The data of the timed operations is checked once per size, always (not
 * only with -c), outside the timing: the origin's buffer holds a pattern of
 * the size and the slot, and the target's window (the origin's buffer for
 * gets, the fetched values for atomics) must hold what every operation
 * since the size began put there. */
#ifndef OL_BENCH_OSU_RMA_H
#define OL_BENCH_OSU_RMA_H

enum osu_rma_op {
    OSU_RMA_PUT,  /* MPI_Put of size bytes (MPI_BYTE) */
    OSU_RMA_GET,  /* MPI_Get of size bytes */
    OSU_RMA_ACC,  /* MPI_Accumulate of size / 4 ints, MPI_SUM */
    OSU_RMA_FOP,  /* MPI_Fetch_and_op of one int64_t, MPI_SUM */
    OSU_RMA_CAS   /* MPI_Compare_and_swap of one int64_t, always swapping */
};

struct osu_rma {
    const char *name, *what;
    enum osu_rma_op op;
    int bandwidth;  /* windows of -W operations, one flush or fence each; MB/s */
};

int osu_rma_main(const struct osu_rma *r, int argc, char **argv);

#endif
