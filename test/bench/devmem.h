/* Device memory through the CUDA driver API opened with dlopen: the
 * benchmarks (coll_perf --device, devcopy_bw, osu_bw -d cuda) and the GPU
 * tests of test/gpu/ build without CUDA headers or libraries and run on
 * machines without a GPU, where devmem_init says why there is none.
 *
 * The driver is libcuda.so.1 as the dynamic linker finds it, or the file
 * OMPI_LITE_CUDA_LIBRARY names (the variable ompi-lite itself reads, so
 * that the program and the library share one driver, e.g. test/gpu's fake).
 * Functions returning int give 0 on success, -1 on a driver error. */
#ifndef OL_BENCH_DEVMEM_H
#define OL_BENCH_DEVMEM_H

#include <stddef.h>

/* Opens the driver and makes device (local_rank % devices) current on the
 * calling thread, through its primary context (the one the CUDA runtime
 * uses). Returns 0, or -1 with a reason in why. */
int devmem_init(int local_rank, char *why, size_t why_len);
/* GPUs the driver shows (0 before devmem_init succeeded). */
int devmem_device_count(void);
/* The current device's name ("unknown" when the driver cannot say). */
void devmem_device_name(char *name, size_t len);

/* NULL on failure; the memory is zeroed. DEVMEM_KIND=pool or managed
 * allocates with cuMemAllocAsync or cuMemAllocManaged instead of cuMemAlloc
 * (memory CUDA IPC refuses). */
void *devmem_alloc(size_t bytes);
void devmem_free(void *p);
/* Copies finished on return; none of them touches device memory from the
 * CPU. devmem_copy is device to device. */
int devmem_to_device(void *dst, const void *src, size_t bytes);
int devmem_to_host(void *dst, const void *src, size_t bytes);
int devmem_copy(void *dst, const void *src, size_t bytes);
/* Sets `bytes` bytes at p to `value`, finished on return. */
int devmem_set(void *p, unsigned char value, size_t bytes);
/* Waits for the work the calls above queued (the legacy default stream). */
int devmem_sync(void);
/* A stream of the caller's own that does not wait for the legacy default
 * stream (CU_STREAM_NON_BLOCKING, as nccl-tests' streams); NULL on failure.
 * The driver's CUstream is the CUDA runtime's cudaStream_t. */
void *devmem_stream_create(void);
/* Waits for the work queued on that stream. */
int devmem_stream_sync(void *stream);

#endif
