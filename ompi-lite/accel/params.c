/* The accel layer's rows of the parameter table (printed by ompi_lite_info). */
#include "accel_internal.h"
#include "ol_param_table.h"

#include <pthread.h>

struct ol_accel_param_values ol_accel_param;

static const ol_param_t params[] = {
    {"CUDA_LIBRARY", OL_PARAM_STRING, "",
     "the CUDA driver library to open (empty: the libcuda the program loaded, else "
     "libcuda.so.1 from the library search path)",
     &ol_accel_param.cuda_library, 0, 0},
    {"ACCEL_SELECT_DEVICE", OL_PARAM_INT, "1",
     "at MPI_Init, when the program has loaded the CUDA driver but made no context current, "
     "make the GPU nearest the rank's cores current (hwloc; else local rank modulo the "
     "number of GPUs); 0: leave the choice to the program",
     &ol_accel_param.select_device, 0, 1},
    {"ACCEL_MEMTYPE_CACHE", OL_PARAM_INT, "1",
     "remember device allocations, so that a device buffer costs the driver one query per "
     "allocation (see ompi-lite/accel/README.md); 0: ask the driver about every buffer",
     &ol_accel_param.memtype_cache, 0, 1},
    {"ACCEL_MEMTYPE_HOST_CACHE", OL_PARAM_INT, "1",
     "with ACCEL_MEMTYPE_CACHE=1, also remember the pages the driver called host memory and "
     "forget them when they are unmapped (UCX's memory hooks), so that a host buffer outside "
     "the heap, stack and program costs no driver query after its first; 0: ask each time "
     "(for programs that unmap memory with raw system calls)",
     &ol_accel_param.memtype_host_cache, 0, 1},
    {"ACCEL_POOL_KEEP_MB", OL_PARAM_INT, "256",
     "most MiB of freed scratch blocks each pool (pinned host, device) keeps for reuse; more "
     "goes back to the driver, least recently used first. Lower it when the application "
     "needs the GPU memory; raise it when device collectives on bigger vectors allocate on "
     "every call (cuMemAlloc and cuMemFree synchronise the device)",
     &ol_accel_param.pool_keep_mb, 0, 1 << 20},
    {"ACCEL_IPC_CACHE", OL_PARAM_INT, "64",
     "how many peers' device allocations stay mapped (CUDA IPC) for reuse; the least recently "
     "used is closed first. Lower it when peers free many buffers that were sent from (a "
     "mapping keeps a freed allocation's memory alive in its owner's GPU)",
     &ol_accel_param.ipc_cache, 1, 1000000},
};

static pthread_once_t loaded = PTHREAD_ONCE_INIT;

static void load(void)
{
    ol_param_table_load(params, OL_ARRAY_SIZE(params));
}

void ol_accel_params_load(void)
{
    pthread_once(&loaded, load);
}

void ol_accel_params_print(FILE *out)
{
    ol_param_table_print(params, OL_ARRAY_SIZE(params), out);
}
