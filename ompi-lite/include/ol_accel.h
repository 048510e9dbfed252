/* Device memory (CUDA) for every layer: what kind of memory a buffer is,
 * copies, events, pinned host buffers, CUDA IPC, reductions on the device.
 *
 * The layer is always built. It opens libcuda.so.1 with dlopen, so the
 * library runs on machines without a GPU or driver, and it asks the driver
 * nothing in a process that has not loaded the driver itself (a program
 * that never touched CUDA pays one load and one branch per buffer).
 * Without CUDA support built (configure found no nvcc), device buffers are
 * still recognised, so that they get a clear error instead of a crash.
 *
 * Threads: every function may be called from any thread; those that talk
 * to the driver push the library's context on the calling thread first and
 * pop it before they return, so the program's current context is kept. Functions returning ol_status_t record a sentence with
 * ol_error_detail on failure. */
#ifndef OL_ACCEL_H
#define OL_ACCEL_H

#include "ol_datatype.h"
#include "ol_op.h"

#include <stdio.h>

/* ---- start and end (runtime/init.c) ------------------------------------ */

/* Reads the accel parameters and starts watching for the driver. When the
 * program has already loaded the driver and no context is current, the
 * library's context becomes the primary context of the GPU nearest the
 * rank's cores (OMPI_LITE_ACCEL_SELECT_DEVICE); none is made current. */
ol_status_t ol_accel_init(int local_rank, int local_size);
/* Closes IPC mappings, frees pools, releases the context. */
void ol_accel_finalize(void);
/* Closes what this process mapped of its peers' device memory (IPC
 * mappings and events). Every rank calls it before the closing fence of
 * MPI_Finalize, so that after the fence each may free what it exported:
 * the driver leaves freeing memory or an event a peer still has open
 * undefined. */
void ol_accel_release_peers(void);

/* ---- what a buffer is --------------------------------------------------- */

/* Private to accel/: the watch behind the inline test below. */
extern bool ol_accel_driver_loaded;
extern void *const volatile *ol_accel_link_tail_next;
bool ol_accel_is_device_slow(const void *buf);

/* True when buf is CUDA device (or managed) memory. Cheap: without the
 * driver in the process, one load and a branch; with it, a cached answer
 * per allocation (safe when memory is freed and its address reused). */
static inline bool ol_accel_is_device(const void *buf)
{
    if (OL_LIKELY(!ol_accel_driver_loaded && *ol_accel_link_tail_next == NULL))
        return false;
    return ol_accel_is_device_slow(buf);
}

/* True when device buffers can be used: CUDA support built and the driver
 * and a context usable. A device buffer in a process where this is false
 * gets MPI_ERR_BUFFER with ol_accel_unsupported(). */
bool ol_accel_usable(void);
/* Records why a device buffer cannot be used here (built without CUDA,
 * driver error): "<what> <buf> is CUDA device memory, but ...", what being
 * the buffer's role ("the send buffer"); the binding's error message names
 * the MPI call. Returns MPI_ERR_BUFFER. */
ol_status_t ol_accel_unsupported(const char *what, const void *buf);

/* MPI_SUCCESS when bytes from buf lie in one live device allocation, else
 * MPI_ERR_BUFFER saying why (freed, past its end, a driver ompi-lite cannot
 * use). A protocol checks this before it tells a peer that data is coming. */
ol_status_t ol_accel_check_device(const void *buf, size_t bytes);

/* ---- copies and events -------------------------------------------------- */

typedef struct ol_accel_event ol_accel_event_t;

/* Copies bytes between any two of host and device memory, finished on
 * return (the library's stream, synchronised). */
ol_status_t ol_accel_copy(void *dst, const void *src, size_t bytes);
/* Starts the copy on the library's stream; *done is an event to poll with
 * ol_accel_event_done and give back with ol_accel_event_free. */
ol_status_t ol_accel_copy_async(void *dst, const void *src, size_t bytes,
                                ol_accel_event_t **done);
/* Polls (cuEventQuery): true once everything before the event finished.
 * A device error is reported once through *error (MPI_ERR_OTHER + detail). */
bool ol_accel_event_done(ol_accel_event_t *event, ol_status_t *error);
void ol_accel_event_free(ol_accel_event_t *event);
/* A host copy (malloc, the caller frees it) of the bytes that count
 * elements of dt in device memory span (ol_dt_span), so that the host
 * datatype engine can work on it: element data of buf lies at the same
 * offsets from *copy - dt->true_lb. */
ol_status_t ol_accel_copy_span_to_host(const void *buf, MPI_Count count, const ol_datatype_t *dt,
                                       char **copy);
/* Waits for everything the library queued on its stream. */
ol_status_t ol_accel_synchronize(void);

/* ---- memory ------------------------------------------------------------- */

/* Pinned host memory (pooled); NULL when none can be had. */
void *ol_accel_host_alloc(size_t bytes);
void ol_accel_host_free(void *ptr);
/* Device scratch memory on the library's device (pooled); NULL when none. */
void *ol_accel_device_alloc(size_t bytes);
void ol_accel_device_free(void *ptr);

/* ---- CUDA IPC between ranks of one host --------------------------------- */

/* What a rank sends a peer so that the peer can map one of its buffers. */
typedef struct {
    uint8_t handle[64];    /* CUipcMemHandle of the allocation holding the buffer */
    uint8_t event[64];     /* CUipcEventHandle: recorded at export, awaited by the reader */
    uint64_t buffer_id;    /* CU_POINTER_ATTRIBUTE_BUFFER_ID: unique per allocation */
    uint64_t offset;       /* of the buffer from the allocation's start */
    uint64_t alloc_base;   /* the allocation's address in the exporting process */
    uint64_t alloc_size;   /* the allocation's size */
    uint32_t flags;        /* OL_ACCEL_IPC_SCRATCH */
    uint32_t pad;
} ol_accel_ipc_t;
/* The buffer is the exporter's scratch, which it frees or reuses once
 * the importers released it: they close the mapping at release. */
#define OL_ACCEL_IPC_SCRATCH 1u

/* Describes the allocation that holds buf, and records an event after the
 * work queued so far on the legacy default stream (and so on every
 * blocking stream: the per-thread default streams, the library's), which
 * the importer waits for; MPI_ERR_UNSUPPORTED_OPERATION when it cannot be
 * shared (not cudaMalloc memory, e.g. managed or VMM). Call it when the
 * data is final: work queued later is not waited for. */
ol_status_t ol_accel_ipc_export(const void *buf, ol_accel_ipc_t *ipc);
/* The peer's buffer mapped into this process: *ptr = mapped base + offset;
 * the library's stream then waits for the exporter's event, so the copies
 * and reductions queued on it afterwards see the exporter's data. Every
 * success is paired with ol_accel_ipc_release once nothing reads *ptr any
 * more. Mappings are cached per (peer, buffer_id), at most
 * OMPI_LITE_ACCEL_IPC_CACHE open (least recently used closed first); one is
 * closed when the peer shows a new allocation over its addresses (the old
 * one was freed: the mapping would keep its memory alive), scratch at its
 * release, the rest by ol_accel_release_peers. */
ol_status_t ol_accel_ipc_import(int peer_world_rank, const ol_accel_ipc_t *ipc, void **ptr);
void ol_accel_ipc_release(int peer_world_rank, const ol_accel_ipc_t *ipc);

/* ---- reductions on device memory --------------------------------------- */

/* True when a kernel exists for op on dt: a predefined arithmetic, bitwise
 * or logical op on a predefined type of fixed size (no MINLOC/MAXLOC pairs,
 * no long double, no user ops: those are staged through the host). Whether
 * the standard defines op on dt, and whether the kernel's results are the
 * host's, is the op layer's to say (ol_op_device_kernel). */
bool ol_accel_can_reduce(const ol_op_t *op, const ol_datatype_t *dt);
/* Whether the kernels can be used in this process: the first call loads
 * them (device_buf, a device operand or NULL, chooses the library's context
 * if there is none yet); a driver older than the nvcc that built them, or
 * a GPU they have no code for, makes the answer no for good, said once at
 * info. Then device reductions are staged through host memory. */
bool ol_accel_kernels_usable(const void *device_buf);
/* Why the kernels cannot be used, "" when they can or it is not known yet. */
const char *ol_accel_kernels_problem(void);
/* inout[i] = in[i] op inout[i] for count elements, both on the device;
 * finished on return. */
ol_status_t ol_accel_reduce(const ol_op_t *op, const ol_datatype_t *dt, const void *in,
                            void *inout, size_t count);
/* out[i] = ins[0][i] op ins[1][i] op ... op ins[n-1][i], in that order
 * (1 <= n <= OL_ACCEL_REDUCE_MAX_INPUTS); out may be one of the inputs.
 * Queued on the library's stream; *done as for ol_accel_copy_async. */
#define OL_ACCEL_REDUCE_MAX_INPUTS 8
ol_status_t ol_accel_reduce_many_async(const ol_op_t *op, const ol_datatype_t *dt,
                                       const void *const *ins, int n, void *out, size_t count,
                                       ol_accel_event_t **done);

/* ---- facts for ompi_lite_info and MPIX_Query_cuda_support -------------- */

/* Built with CUDA support (nvcc and the kernels). */
bool ol_accel_built(void);
/* GPUs the driver shows (opens the driver: for tools, not the hot path);
 * 0 without a driver. */
int ol_accel_visible_devices(void);

/* What ompi_lite_info prints about the driver (opens it, like the above,
 * and where there is a GPU, loads the kernels in a context of its own). */
typedef struct {
    bool built;                 /* ol_accel_built() */
    int visible_devices;        /* ol_accel_visible_devices() */
    const char *driver_library; /* the path opened or tried */
    int driver_version;         /* cuDriverGetVersion, e.g. 13000; 0: none */
    const char *problem;        /* why the driver cannot be used, "" if it can */
    bool kernels;               /* device reductions run as CUDA kernels */
    const char *kernels_problem; /* else why not (ol_accel_kernels_problem) */
} ol_accel_facts_t;
void ol_accel_facts(ol_accel_facts_t *facts);
/* The accel parameters (OMPI_LITE_CUDA_LIBRARY, OMPI_LITE_ACCEL_*). */
void ol_accel_params_print(FILE *out);

#endif
