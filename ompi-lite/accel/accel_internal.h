/* What the files of accel/ share; nothing outside accel/ includes this. */
#ifndef OL_ACCEL_INTERNAL_H
#define OL_ACCEL_INTERNAL_H

#include "ol_config.h"
#include "ol_accel.h"
#include "cuda_driver.h"

#include <stdint.h>

/* ---- parameters (params.c) ---------------------------------------------- */

extern struct ol_accel_param_values {
    const char *cuda_library; /* CUDA_LIBRARY */
    int select_device;        /* ACCEL_SELECT_DEVICE */
    int memtype_cache;        /* ACCEL_MEMTYPE_CACHE */
    int memtype_host_cache;   /* ACCEL_MEMTYPE_HOST_CACHE */
    int pool_keep_mb;         /* ACCEL_POOL_KEEP_MB */
    int ipc_cache;            /* ACCEL_IPC_CACHE */
} ol_accel_param;

/* Reads the parameters the first time it is called. */
void ol_accel_params_load(void);

/* ---- the driver (driver.c) ---------------------------------------------- */

/* cuDriverGetVersion (e.g. 13000), opening the driver; 0 without one. */
int ol_cu_driver_version(void);

/* ---- memory types (memtype.c) ------------------------------------------- */

/* Looks at the libraries loaded so far (and from then on watches for the
 * driver). */
void ol_accel_watch_start(void);
/* The path of the libcuda the program loaded, NULL while it has none. */
const char *ol_accel_loaded_driver(void);

/* What the driver says about the allocation holding buf, asked now (the
 * cache is refreshed with the answer). */
typedef struct {
    bool known;         /* the driver knows an allocation there (device, managed, pinned) */
    bool device;        /* device or managed memory */
    bool managed;
    bool pooled;        /* from a stream-ordered pool (cudaMallocAsync) */
    uint64_t buffer_id;
    uintptr_t start;    /* of the allocation */
    size_t size;
} ol_accel_memory_t;
ol_status_t ol_accel_memory_query(const void *buf, ol_accel_memory_t *memory);

/* ---- pools (pools.c) ----------------------------------------------------- */

/* True when ptr lies in device scratch handed out by ol_accel_device_alloc. */
bool ol_accel_is_device_scratch(const void *ptr);

/* ---- context, stream and events (context.c) ---------------------------- */

/* Makes the library's context current on this thread (pushed above the
 * program's when another is current), choosing it first if there is none
 * yet: the current context's device, else the device of buf (may be NULL).
 * Fails with MPI_ERR_OTHER and a recorded sentence. Every success is paired
 * with ol_accel_leave; pairs nest. */
ol_status_t ol_accel_enter(const void *buf);
/* Ends the outermost enter: pops our context if enter pushed it, so the
 * program finds its own current context again. */
void ol_accel_leave(void);
/* The library's stream (valid after ol_accel_enter). */
ol_cu_stream_t ol_accel_stream(void);
/* Multiprocessors of the library's device (valid after ol_accel_enter). */
int ol_accel_multiprocessors(void);
/* Records an event on the library's stream into *done. */
ol_status_t ol_accel_record_event(ol_accel_event_t **done);
/* Records "what failed: CUDA_ERROR_..." with ol_error_detail; returns
 * MPI_ERR_OTHER. */
ol_status_t ol_accel_cuda_failed(const char *what, ol_cu_result_t rc);

/* ---- clean-up of each part, called by ol_accel_finalize ---------------- */

void ol_accel_pools_finalize(void);
void ol_accel_ipc_finalize(void);
/* Closes the IPC mappings and the peers' events (ol_accel_release_peers). */
void ol_accel_ipc_close_imports(void);
void ol_accel_reduce_finalize(void);

#endif
