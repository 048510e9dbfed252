/* Device memory for the OSU-style benchmarks built with -DBENCH_DEVICE
 * (osu_latency, osu_bw): the open_device of bench.h through devmem.c. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "devmem.h"

static char device_name[160];

static void *device_alloc(size_t bytes)
{
    void *p = devmem_alloc(bytes);
    if (!p) {
        fprintf(stderr, "bench: rank %d: cannot allocate %zu bytes of device memory\n", bench_rank,
                bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static void device_upload(void *buf, const void *host, size_t bytes)
{
    if (devmem_to_device(buf, host, bytes) != 0) {
        fprintf(stderr, "bench: rank %d: cuMemcpyHtoD failed\n", bench_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void device_download(void *host, const void *buf, size_t bytes)
{
    if (devmem_to_host(host, buf, bytes) != 0) {
        fprintf(stderr, "bench: rank %d: cuMemcpyDtoH failed\n", bench_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* The rank's GPU is (rank on this host) mod (GPUs). */
int bench_device_open(int device_buffers, char *why, size_t why_len)
{
    MPI_Comm host;
    int local;
    char name[128];

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local);
    MPI_Comm_free(&host);
    if (devmem_init(local, why, why_len) != 0)
        return -1;
    if (device_buffers) {
        devmem_device_name(name, sizeof name);
        snprintf(device_name, sizeof device_name, "device (%s)", name);
        bench_memory = (struct bench_memory){ device_name, device_alloc, device_upload,
                                              device_download };
    }
    return 0;
}
