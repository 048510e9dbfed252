/* gpu_test: what the GPU tests of test/gpu/ share. Start-up that opens the
 * rank's GPU or skips (exit 77) with the reason, buffers in host or device
 * memory that are only ever read and written on the device through driver
 * copies, byte patterns, byte-by-byte checks that say what differed, and a
 * pass/fail verdict agreed by all ranks. Device memory comes from
 * test/bench/devmem.c (the CUDA driver opened with dlopen). Not a test. */
#ifndef GPU_TEST_H
#define GPU_TEST_H

#include <mpi.h>
#include <stddef.h>

extern int gt_rank, gt_size;

/* MPI_Init, then every rank opens its GPU: (rank on its host) mod (GPUs).
 * When some rank cannot (no driver, no GPU), rank 0 prints why and every
 * rank leaves with 77 (skipped), or with 1 when OL_GPU_TEST_REQUIRE_GPU=1
 * (the runs against the fake driver, which must not skip). */
void gt_init(const char *name, int *argc, char ***argv);
/* The same in two steps, for a test that looks at the library before the
 * GPU is opened: MPI_Init only; then every rank opens its GPU and the
 * result is agreed (true when all could; else rank 0 printed why). */
void gt_start(const char *name, int *argc, char ***argv);
int gt_open_gpu(void);
/* gt_init with MPI_Init_thread(MPI_THREAD_MULTIPLE); dies when the library
 * provides less. */
void gt_init_threads(const char *name, int *argc, char ***argv);
/* Leaves the way gt_init does without a GPU: MPI_Finalize, exit 77 (or 1
 * when OL_GPU_TEST_REQUIRE_GPU=1). */
void gt_skip(void) __attribute__((noreturn));
/* All ranks agree: prints "NAME: OK (N ranks)" or "NAME: FAILED: K
 * problems", MPI_Finalize; returns the exit status for main (0 or 1). */
int gt_finish(void);

/* Records a failure: "NAME: rank R: <message>" on stderr; the test goes on
 * (so that one run shows every problem) and exits 1 at gt_finish. */
void gt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the same and aborts the job: when going on makes no sense. */
void gt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* rc must be MPI_SUCCESS; otherwise a failure naming `what`. Returns rc. */
int gt_check_rc(const char *what, int rc);
/* Problems recorded on this rank so far. */
int gt_failures(void);

/* Where a buffer lives. */
enum gt_mem { GT_HOST, GT_DEVICE };
const char *gt_mem_name(enum gt_mem mem);

/* A buffer of `bytes` (at least 1) in host or device memory; dies on
 * failure. Device memory is never touched by the CPU: gt_put and gt_get copy
 * into and out of either kind (finished on return). */
void *gt_alloc(enum gt_mem mem, size_t bytes);
void gt_free(enum gt_mem mem, void *buf);
void gt_put(enum gt_mem mem, void *buf, const void *host, size_t bytes);
void gt_get(enum gt_mem mem, void *host, const void *buf, size_t bytes);
/* Sets every byte of buf to value. */
void gt_set(enum gt_mem mem, void *buf, unsigned char value, size_t bytes);

/* Byte i of the pattern `seed` names: different seeds, or the same pattern
 * shifted, differ in most bytes. */
unsigned char gt_byte(unsigned seed, size_t i);
void gt_fill(void *host, size_t bytes, unsigned seed);
/* buf (host or device) gets pattern `seed`. */
void gt_put_pattern(enum gt_mem mem, void *buf, size_t bytes, unsigned seed);

/* Compare byte by byte; each returns the number of wrong bytes and records
 * a failure naming `what`, the first wrong byte, its value and the
 * expected one. */
size_t gt_check_bytes(const char *what, const void *got, const void *want, size_t bytes);
/* host holds pattern `seed`. */
size_t gt_check_pattern(const char *what, const void *host, size_t bytes, unsigned seed);
/* buf (host or device) holds pattern `seed` / every byte is `value`. */
size_t gt_check_buffer(const char *what, enum gt_mem mem, const void *buf, size_t bytes,
                       unsigned seed);
size_t gt_check_value(const char *what, enum gt_mem mem, const void *buf, size_t bytes,
                      unsigned char value);

/* A host scratch buffer of at least `bytes`, reused by the calls above
 * (grown on demand; valid until the next call that may grow it). */
void *gt_scratch(size_t bytes);

#endif
