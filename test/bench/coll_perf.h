/* coll_perf measures one library's collectives: coll_perf.c holds what every
 * build shares (options, data, checks, timing, output) and calls the library
 * through the coll_lib_* functions below, which one more file defines:
 * coll_mpi.c (MPI: the coll_perf program) or coll_nccl.c (NCCL on device
 * buffers: coll_perf_nccl). Same command line, same columns, same check, so
 * that their rows compare one to one. */
#ifndef OL_BENCH_COLL_PERF_H
#define OL_BENCH_COLL_PERF_H

#include <stddef.h>

enum coll { ALLREDUCE, ALLGATHER, REDUCE_SCATTER, BCAST, ALLTOALL };
enum type { F32, F64, I8, U8, I32, U32, I64, U64 };
enum op { SUM, PROD, MAX, MIN };

/* One collective call. block: a rank's block in elements (the whole vector
 * for allreduce and bcast); bcast's root is rank 0 and works in place on
 * recv. */
struct coll_call {
    enum coll coll;
    enum type type;
    enum op op;
    size_t block, type_size;
    void *send, *recv;
};

/* The program's name, for its messages and header. */
extern const char coll_lib_program[];
/* 1 where the library takes device buffers only (--device is implied). */
extern const int coll_lib_device_only;

/* After MPI_Init and, with device buffers, after this rank's GPU is open
 * (devmem_init): sets the library up. local_rank and local_size: this
 * rank's place among the ranks of its host. */
void coll_lib_open(int local_rank, int local_size);
/* The library's name and version for the header, one line. */
void coll_lib_version(char *s, size_t len);
/* Issues one call; it may still run when this returns (NCCL). */
void coll_lib_call(const struct coll_call *c);
/* Returns when every call issued so far has finished. */
void coll_lib_wait(void);
/* Before MPI_Finalize. */
void coll_lib_close(void);

/* Defined by coll_perf.c for the coll_lib_* functions: every rank agrees;
 * where any rank is `bad`, each bad rank that is rank 0 or first on its host
 * prints "PROGRAM: rank R: WHY" and every rank leaves with 77 (skipped). */
void coll_skip_unless_all_ok(int bad, const char *why, int local_rank);

#endif
