/* Device buffers for coll_perf --device, through the CUDA driver API opened
 * with dlopen("libcuda.so.1"): the benchmarks build without CUDA and run on
 * machines without a GPU (where --device reports that there is none). */
#ifndef OL_BENCH_DEVMEM_H
#define OL_BENCH_DEVMEM_H

#include <stddef.h>

/* Opens the driver and makes device (local_rank % devices) current. Returns
 * 0, or -1 with a reason in why. */
int devmem_init(int local_rank, char *why, size_t why_len);
/* NULL on failure; the memory is zeroed. */
void *devmem_alloc(size_t bytes);
void devmem_free(void *p);
int devmem_to_device(void *dst, const void *src, size_t bytes);
int devmem_to_host(void *dst, const void *src, size_t bytes);

#endif
