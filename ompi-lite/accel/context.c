/* Start and end, the library's context and stream, events and copies, and
 * the facts about the build and the driver.
 *
 * The library's context is the primary context of one device: the device
 * chosen at MPI_Init (ACCEL_SELECT_DEVICE), else the device of the context
 * current when the first device buffer arrives, else that buffer's device.
 * Primary contexts are the ones the CUDA runtime uses, so the program's
 * memory and ours live in the same context. The current context belongs
 * to the program (cudaSetDevice, its own cuCtxCreate context): our driver
 * calls run between ol_accel_enter, which pushes our context when another
 * one (or none) is current, and ol_accel_leave, which pops it again, so a
 * program never finds its kernels and allocations moved to our device.
 * When ours already is current, entering costs one cuCtxGetCurrent.
 *
 * The stream is created with flags 0, i.e. blocking with respect to the
 * legacy default stream: work the program queued on the default stream
 * (a kernel that fills a send buffer) is finished before our copies start. */
#include "accel_internal.h"
#include "ol_log.h"

#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static ol_cu_context_t library_context; /* NULL until chosen */
static ol_cu_device_t library_device;
static ol_cu_stream_t library_stream;
static int multiprocessors;
static int local_rank = 0, local_size = 1;

ol_status_t ol_accel_cuda_failed(const char *what, ol_cu_result_t rc)
{
    ol_error_detail("%s failed: %s", what, ol_cu_error_text(rc));
    return MPI_ERR_OTHER;
}

/* ---- facts ------------------------------------------------------------------ */

bool ol_accel_built(void)
{
#ifdef OL_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

int ol_accel_visible_devices(void)
{
    int count = 0;
    if (!ol_cu_open(ol_accel_loaded_driver()) || ol_cu.cuDeviceGetCount(&count) != OL_CUDA_SUCCESS)
        return 0;
    return count;
}

/* Why device buffers cannot be used here ("" when they can). */
static const char *unusable_reason(void)
{
    if (!ol_accel_built())
        return "this ompi-lite was built without CUDA support (configure found no nvcc)";
    if (!ol_cu_open(ol_accel_loaded_driver()))
        return ol_cu_problem();
    if (ol_accel_visible_devices() == 0)
        return "the CUDA driver shows no GPU";
    return "";
}

bool ol_accel_usable(void)
{
    /* Only a yes is kept: a no may turn into a yes when the program loads
     * the driver later. */
    static bool usable;
    if (!__atomic_load_n(&usable, __ATOMIC_ACQUIRE) && *unusable_reason() == '\0')
        __atomic_store_n(&usable, true, __ATOMIC_RELEASE);
    return usable;
}

ol_status_t ol_accel_unsupported(const char *what, const void *buf)
{
    ol_error_detail("%s %p is CUDA device memory, but %s", what, buf,
                    ol_accel_usable() ? "the CUDA driver failed (OMPI_LITE_DEBUG=warn says how)"
                                      : unusable_reason());
    return MPI_ERR_BUFFER;
}

void ol_accel_facts(ol_accel_facts_t *facts)
{
    facts->built = ol_accel_built();
    facts->visible_devices = ol_accel_visible_devices();
    facts->driver_library = ol_cu_library();
    facts->driver_version = ol_cu_driver_version();
    facts->problem = ol_cu_problem();
    facts->kernels = ol_accel_usable() && ol_accel_kernels_usable(NULL);
    facts->kernels_problem = ol_accel_kernels_problem();
}

/* ---- the context ---------------------------------------------------------- */

/* The device whose primary context becomes the library's: the current
 * context's, else buf's, else the rank's share of the visible devices. */
static ol_status_t choose_device(const void *buf, ol_cu_device_t *device)
{
    ol_cu_context_t current = NULL;
    if (ol_cu.cuCtxGetCurrent(&current) == OL_CUDA_SUCCESS && current) {
        ol_cu_result_t rc = ol_cu.cuCtxGetDevice(device);
        return rc == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuCtxGetDevice", rc);
    }
    int ordinal = -1;
    int attribute = OL_CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL;
    void *data = &ordinal;
    if (!buf || ol_cu.cuPointerGetAttributes(1, &attribute, &data,
                                             (ol_cu_deviceptr_t)(uintptr_t)buf) != OL_CUDA_SUCCESS ||
        ordinal < 0) {
        int count = ol_accel_visible_devices();
        ordinal = count > 0 ? local_rank % count : 0;
    }
    ol_cu_result_t rc = ol_cu.cuDeviceGet(device, ordinal);
    return rc == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuDeviceGet", rc);
}

/* Retains the device's primary context and creates the stream on it,
 * leaving the current context as it was. Called with context_lock held. */
static ol_status_t open_context(ol_cu_device_t device)
{
    ol_cu_context_t context;
    ol_cu_result_t rc = ol_cu.cuDevicePrimaryCtxRetain(&context, device);
    if (rc != OL_CUDA_SUCCESS)
        return ol_accel_cuda_failed("cuDevicePrimaryCtxRetain", rc);
    const char *failed = "cuCtxPushCurrent_v2";
    rc = ol_cu.cuCtxPushCurrent_v2(context);
    if (rc == OL_CUDA_SUCCESS) {
        ol_cu_context_t popped;
        failed = "cuStreamCreate";
        rc = ol_cu.cuStreamCreate(&library_stream, 0);
        ol_cu.cuCtxPopCurrent_v2(&popped);
    }
    if (rc != OL_CUDA_SUCCESS) {
        ol_cu.cuDevicePrimaryCtxRelease_v2(device);
        return ol_accel_cuda_failed(failed, rc);
    }
    if (ol_cu.cuDeviceGetAttribute(&multiprocessors, OL_CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                   device) != OL_CUDA_SUCCESS || multiprocessors < 1)
        multiprocessors = 1;
    library_device = device;
    __atomic_store_n(&library_context, context, __ATOMIC_RELEASE);
    OL_INFO("accel", "using the primary context of CUDA device %d (%d multiprocessors)", device,
            multiprocessors);
    return OL_OK;
}

static ol_status_t choose_context(const void *buf)
{
    ol_status_t rc = OL_OK;
    pthread_mutex_lock(&context_lock);
    if (!library_context) {
        ol_cu_device_t device;
        rc = choose_device(buf, &device);
        if (rc == OL_OK)
            rc = open_context(device);
    }
    pthread_mutex_unlock(&context_lock);
    return rc;
}

/* How deep this thread is in enter/leave pairs, and whether the outermost
 * enter pushed our context (then the outermost leave pops it). */
static _Thread_local int entered;
static _Thread_local bool pushed;

/* Our context on top of this thread's stack, above the program's. */
static ol_status_t push_library_context(ol_cu_context_t context)
{
    ol_cu_context_t current = NULL;
    ol_cu_result_t rc = ol_cu.cuCtxGetCurrent(&current);
    if (rc == OL_CUDA_SUCCESS && current != context) {
        rc = ol_cu.cuCtxPushCurrent_v2(context);
        pushed = rc == OL_CUDA_SUCCESS;
    }
    return rc == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuCtxPushCurrent_v2", rc);
}

ol_status_t ol_accel_enter(const void *buf)
{
    if (entered > 0) {
        entered++;
        return OL_OK;
    }
    if (!ol_accel_usable()) {
        ol_error_detail("CUDA cannot be used: %s", unusable_reason());
        return MPI_ERR_OTHER;
    }
    ol_cu_context_t context = __atomic_load_n(&library_context, __ATOMIC_ACQUIRE);
    if (!context) {
        ol_status_t rc = choose_context(buf);
        if (rc != OL_OK)
            return rc;
        context = library_context;
    }
    ol_status_t rc = push_library_context(context);
    if (rc == OL_OK)
        entered = 1;
    return rc;
}

void ol_accel_leave(void)
{
    if (entered <= 0 || --entered > 0 || !pushed)
        return;
    ol_cu_context_t popped;
    ol_cu_result_t rc = ol_cu.cuCtxPopCurrent_v2(&popped);
    pushed = false;
    if (rc != OL_CUDA_SUCCESS) /* the program's context may now be wrong: say so */
        OL_WARN("accel", "cuCtxPopCurrent_v2 failed: %s", ol_cu_error_text(rc));
}

ol_cu_stream_t ol_accel_stream(void)
{
    return library_stream;
}

int ol_accel_multiprocessors(void)
{
    return multiprocessors;
}

/* ---- device selection at MPI_Init ---------------------------------------- */

/* The devices whose PCI locality holds all the cores this process is bound
 * to, written to near[]; returns how many. */
static int devices_near_binding(int count, int *near)
{
    hwloc_topology_t topology;
    int n = 0;
    if (hwloc_topology_init(&topology) != 0)
        return 0;
    hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_bitmap_t binding = hwloc_bitmap_alloc();
    if (binding && hwloc_topology_load(topology) == 0 &&
        hwloc_get_cpubind(topology, binding, HWLOC_CPUBIND_PROCESS) == 0) {
        for (int ordinal = 0; ordinal < count; ordinal++) {
            ol_cu_device_t device;
            char bus_id[32];
            if (ol_cu.cuDeviceGet(&device, ordinal) != OL_CUDA_SUCCESS ||
                ol_cu.cuDeviceGetPCIBusId(bus_id, sizeof(bus_id), device) != OL_CUDA_SUCCESS)
                continue;
            hwloc_obj_t pci = hwloc_get_pcidev_by_busidstring(topology, bus_id);
            hwloc_obj_t where = pci ? hwloc_get_non_io_ancestor_obj(topology, pci) : NULL;
            if (where && where->cpuset && hwloc_bitmap_isincluded(binding, where->cpuset))
                near[n++] = ordinal;
        }
    }
    hwloc_bitmap_free(binding);
    hwloc_topology_destroy(topology);
    return n;
}

/* The GPU for this rank: one near its cores (the local ranks bound to the
 * same cores share those round robin), else local rank modulo the count. */
static int nearest_device(int count)
{
    int *near = calloc((size_t)count, sizeof(int));
    int n = near ? devices_near_binding(count, near) : 0;
    int ordinal = n > 0 ? near[local_rank % n] : local_rank % count;
    OL_INFO("accel", "local rank %d of %d: CUDA device %d (%s)", local_rank, local_size, ordinal,
            n > 0 ? "near the rank's cores" : "local rank modulo the device count");
    free(near);
    return ordinal;
}

static void select_device(void)
{
    ol_cu_context_t current = NULL;
    if (!ol_accel_usable() || ol_cu.cuCtxGetCurrent(&current) != OL_CUDA_SUCCESS || current)
        return;
    ol_cu_device_t device;
    ol_cu_result_t rc = ol_cu.cuDeviceGet(&device, nearest_device(ol_accel_visible_devices()));
    ol_status_t status = rc == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuDeviceGet", rc);
    if (status == OL_OK) {
        pthread_mutex_lock(&context_lock);
        status = library_context ? OL_OK : open_context(device);
        pthread_mutex_unlock(&context_lock);
    }
    if (status != OL_OK)
        OL_WARN("accel", "no GPU selected: %s", ol_error_detail_take());
}

/* ---- events ------------------------------------------------------------------ */

struct ol_accel_event {
    ol_cu_event_t event;
    bool error_reported;
    ol_accel_event_t *next_free;
};

static pthread_mutex_t events_lock = PTHREAD_MUTEX_INITIALIZER;
static ol_accel_event_t *free_events;

static ol_accel_event_t *take_event(void)
{
    pthread_mutex_lock(&events_lock);
    ol_accel_event_t *e = free_events;
    if (e)
        free_events = e->next_free;
    pthread_mutex_unlock(&events_lock);
    if (e)
        return e;
    e = calloc(1, sizeof(*e));
    if (e && ol_cu.cuEventCreate(&e->event, OL_CU_EVENT_DISABLE_TIMING) != OL_CUDA_SUCCESS) {
        free(e);
        e = NULL;
    }
    return e;
}

void ol_accel_event_free(ol_accel_event_t *event)
{
    if (!event)
        return;
    event->error_reported = false;
    pthread_mutex_lock(&events_lock);
    event->next_free = free_events;
    free_events = event;
    pthread_mutex_unlock(&events_lock);
}

static void destroy_events(void)
{
    pthread_mutex_lock(&events_lock);
    while (free_events) {
        ol_accel_event_t *e = free_events;
        free_events = e->next_free;
        ol_cu.cuEventDestroy_v2(e->event);
        free(e);
    }
    pthread_mutex_unlock(&events_lock);
}

static ol_status_t record_event(ol_accel_event_t **done)
{
    ol_accel_event_t *e = take_event();
    if (!e) {
        ol_error_detail("cannot create a CUDA event");
        return MPI_ERR_NO_MEM;
    }
    ol_cu_result_t rc = ol_cu.cuEventRecord(e->event, library_stream);
    if (rc != OL_CUDA_SUCCESS) {
        ol_accel_event_free(e);
        return ol_accel_cuda_failed("cuEventRecord", rc);
    }
    *done = e;
    return OL_OK;
}

ol_status_t ol_accel_record_event(ol_accel_event_t **done)
{
    ol_status_t rc = ol_accel_enter(NULL);
    if (rc != OL_OK)
        return rc;
    rc = record_event(done);
    ol_accel_leave();
    return rc;
}

bool ol_accel_event_done(ol_accel_event_t *event, ol_status_t *error)
{
    ol_status_t rc = ol_accel_enter(NULL);
    if (rc == OL_OK) {
        ol_cu_result_t query = ol_cu.cuEventQuery(event->event);
        ol_accel_leave();
        if (query == OL_CUDA_SUCCESS)
            return true;
        if (query == OL_CUDA_ERROR_NOT_READY)
            return false;
        rc = ol_accel_cuda_failed("cuEventQuery", query);
    }
    if (!event->error_reported) {
        event->error_reported = true;
        if (error)
            *error = rc;
    }
    return true;
}

/* ---- copies ---------------------------------------------------------------- */

/* The context follows the first device buffer, so the copy's device end
 * chooses it. */
static const void *device_end(const void *dst, const void *src)
{
    return ol_accel_is_device(src) ? src : dst;
}

static ol_status_t queue_copy(void *dst, const void *src, size_t bytes)
{
    ol_status_t rc = ol_accel_enter(device_end(dst, src));
    if (rc != OL_OK || bytes == 0) {
        if (rc == OL_OK)
            ol_accel_leave();
        return rc;
    }
    ol_cu_result_t cu = ol_cu.cuMemcpyAsync((ol_cu_deviceptr_t)(uintptr_t)dst,
                                            (ol_cu_deviceptr_t)(uintptr_t)src, bytes,
                                            library_stream);
    ol_accel_leave();
    return cu == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuMemcpyAsync", cu);
}

ol_status_t ol_accel_copy(void *dst, const void *src, size_t bytes)
{
    ol_status_t rc = queue_copy(dst, src, bytes);
    return rc == OL_OK ? ol_accel_synchronize() : rc;
}

ol_status_t ol_accel_copy_async(void *dst, const void *src, size_t bytes,
                                ol_accel_event_t **done)
{
    ol_status_t rc = queue_copy(dst, src, bytes);
    return rc == OL_OK ? ol_accel_record_event(done) : rc;
}

ol_status_t ol_accel_copy_span_to_host(const void *buf, MPI_Count count, const ol_datatype_t *dt,
                                       char **copy)
{
    size_t span = ol_dt_span(dt, count), room = ol_dt_scratch_span(dt, count);
    *copy = malloc(room ? room : 1);
    if (!*copy)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = ol_accel_copy(*copy, ol_dt_data_at(buf, dt), span);
    if (rc != OL_OK) {
        free(*copy);
        *copy = NULL;
    }
    return rc;
}

ol_status_t ol_accel_synchronize(void)
{
    if (!__atomic_load_n(&library_context, __ATOMIC_ACQUIRE))
        return OL_OK; /* nothing was ever queued */
    ol_status_t rc = ol_accel_enter(NULL);
    if (rc != OL_OK)
        return rc;
    ol_cu_result_t cu = ol_cu.cuStreamSynchronize(library_stream);
    ol_accel_leave();
    return cu == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuStreamSynchronize", cu);
}

/* ---- start and end --------------------------------------------------------- */

ol_status_t ol_accel_init(int rank_on_host, int ranks_on_host)
{
    ol_accel_params_load();
    local_rank = rank_on_host;
    local_size = ranks_on_host;
    ol_accel_watch_start();
    if (ol_accel_loaded_driver() && ol_accel_param.select_device)
        select_device();
    return OL_OK;
}

void ol_accel_release_peers(void)
{
    if (!library_context || ol_accel_enter(NULL) != OL_OK)
        return;
    ol_accel_synchronize(); /* nothing of ours reads a mapping any more */
    ol_accel_ipc_close_imports();
    ol_accel_leave();
}

void ol_accel_finalize(void)
{
    if (!library_context || ol_accel_enter(NULL) != OL_OK)
        return;
    ol_accel_synchronize();
    ol_accel_ipc_finalize();
    ol_accel_reduce_finalize();
    ol_accel_pools_finalize();
    destroy_events();
    ol_cu.cuStreamDestroy_v2(library_stream);
    ol_cu.cuDevicePrimaryCtxRelease_v2(library_device);
    library_stream = NULL;
    __atomic_store_n(&library_context, NULL, __ATOMIC_RELEASE);
    ol_accel_leave();
}
