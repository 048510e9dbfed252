/* CUDA IPC between the ranks of one host.
 *
 * Export: the handle of the whole allocation holding the buffer (IPC
 * handles name allocations, not addresses inside them), the buffer's
 * offset in it, and the allocation's buffer id, which the driver never
 * gives to two allocations of a process. Handles are remembered per buffer
 * id: the id is asked of the driver on every export, so a freed and
 * reallocated range never gets the old handle. Every export also records
 * this process's interprocess event on the legacy default stream, and the
 * importer's stream waits for it before it touches the buffer: work the
 * program queued before the MPI call (a kernel filling the buffer, a
 * cudaMemcpy still running) is finished first, as a peer's copy is not
 * ordered with our streams otherwise. Exported allocations get
 * CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, so that a synchronous cudaMemcpy into
 * them is finished when it returns.
 *
 * Import: one mapping per (peer, buffer id), opened once and kept, because
 * cuIpcOpenMemHandle costs far more than a message; at most ACCEL_IPC_CACHE
 * of them stay open, the least recently used one is closed for a new one.
 * A mapping in use (between import and release) is never closed. When a
 * peer shows a new allocation that overlaps the addresses (in the peer) of
 * one we hold, or the same handle with a new id, the peer freed the old
 * one: its mapping is closed first, since it would otherwise keep the
 * freed memory alive in the peer's GPU. Library scratch (the exporter's
 * device pool) is marked so that importers close it at release: the
 * exporter may free it once they said they are done. */
#include "accel_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- export ---------------------------------------------------------------- */

enum { EXPORTS_REMEMBERED = 32 };
static struct exported {
    uint64_t buffer_id; /* 0: unused */
    ol_cu_ipc_mem_handle_t handle;
    uintptr_t base;
    size_t size;
} exports[EXPORTS_REMEMBERED];
static unsigned next_export_slot;
static pthread_mutex_t export_lock = PTHREAD_MUTEX_INITIALIZER;

/* The event every export records; NULL until the first export. */
static ol_cu_event_t export_event;
static ol_cu_ipc_event_handle_t export_event_handle;

static bool recall_export(uint64_t buffer_id, struct exported *found)
{
    bool hit = false;
    if (buffer_id == 0) /* a driver that gives no ids: nothing to recall by */
        return false;
    pthread_mutex_lock(&export_lock);
    for (int i = 0; i < EXPORTS_REMEMBERED && !hit; i++) {
        if (exports[i].buffer_id == buffer_id) {
            *found = exports[i];
            hit = true;
        }
    }
    pthread_mutex_unlock(&export_lock);
    return hit;
}

static void remember_export(const struct exported *e)
{
    pthread_mutex_lock(&export_lock);
    exports[next_export_slot++ % EXPORTS_REMEMBERED] = *e;
    pthread_mutex_unlock(&export_lock);
}

static ol_status_t cannot_share(const void *buf, const char *why)
{
    ol_error_detail("device buffer %p cannot be shared through CUDA IPC: %s", buf, why);
    return MPI_ERR_UNSUPPORTED_OPERATION;
}

/* The handle, base and size of the allocation with this buffer id; the
 * allocation's synchronous copies and memsets made synchronous. */
static ol_status_t describe_allocation(const void *buf, uint64_t buffer_id, struct exported *e)
{
    ol_cu_deviceptr_t base = 0;
    size_t size = 0;
    ol_cu_result_t rc = ol_cu.cuMemGetAddressRange_v2(&base, &size,
                                                       (ol_cu_deviceptr_t)(uintptr_t)buf);
    if (rc != OL_CUDA_SUCCESS)
        return cannot_share(buf, ol_cu_error_text(rc));
    rc = ol_cu.cuIpcGetMemHandle(&e->handle, base);
    if (rc != OL_CUDA_SUCCESS) /* e.g. memory from cuMemCreate or a pool without IPC */
        return cannot_share(buf, ol_cu_error_text(rc));
    int sync_memops = 1;
    rc = ol_cu.cuPointerSetAttribute(&sync_memops, OL_CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, base);
    if (rc != OL_CUDA_SUCCESS)
        return cannot_share(buf, ol_cu_error_text(rc));
    e->buffer_id = buffer_id;
    e->base = (uintptr_t)base;
    e->size = size;
    return OL_OK;
}

/* Records the export event after everything queued on the legacy default
 * stream, which also waits for every blocking stream of the context (the
 * per-thread default streams and ours among them); the event is created on
 * first use. */
static ol_status_t record_export_event(const void *buf, uint8_t handle[OL_CU_IPC_HANDLE_SIZE])
{
    ol_cu_result_t rc = OL_CUDA_SUCCESS;
    pthread_mutex_lock(&export_lock);
    if (!export_event) {
        ol_cu_event_t event;
        rc = ol_cu.cuEventCreate(&event, OL_CU_EVENT_INTERPROCESS | OL_CU_EVENT_DISABLE_TIMING);
        if (rc == OL_CUDA_SUCCESS) {
            rc = ol_cu.cuIpcGetEventHandle(&export_event_handle, event);
            if (rc == OL_CUDA_SUCCESS)
                export_event = event;
            else
                ol_cu.cuEventDestroy_v2(event);
        }
    }
    if (rc == OL_CUDA_SUCCESS)
        rc = ol_cu.cuEventRecord(export_event, OL_CU_STREAM_LEGACY);
    if (rc == OL_CUDA_SUCCESS)
        memcpy(handle, &export_event_handle, OL_CU_IPC_HANDLE_SIZE);
    pthread_mutex_unlock(&export_lock);
    return rc == OL_CUDA_SUCCESS ? OL_OK : cannot_share(buf, ol_cu_error_text(rc));
}

static ol_status_t export_buffer(const void *buf, ol_accel_ipc_t *ipc)
{
    ol_accel_memory_t memory;
    ol_status_t rc = ol_accel_memory_query(buf, &memory);
    if (rc != OL_OK)
        return rc;
    if (!memory.device)
        return cannot_share(buf, "it is not device memory");
    if (memory.managed)
        return cannot_share(buf, "it is managed memory");
    struct exported e;
    if (!recall_export(memory.buffer_id, &e)) {
        rc = describe_allocation(buf, memory.buffer_id, &e);
        if (rc != OL_OK)
            return rc;
        remember_export(&e);
    }
    _Static_assert(sizeof(ipc->event) == sizeof(export_event_handle), "IPC handle sizes differ");
    rc = record_export_event(buf, ipc->event);
    if (rc != OL_OK)
        return rc;
    _Static_assert(sizeof(ipc->handle) == sizeof(e.handle), "IPC handle sizes differ");
    memcpy(ipc->handle, &e.handle, sizeof(ipc->handle));
    ipc->buffer_id = e.buffer_id;
    ipc->offset = (uint64_t)((uintptr_t)buf - e.base);
    ipc->alloc_base = (uint64_t)e.base;
    ipc->alloc_size = e.size;
    ipc->flags = ol_accel_is_device_scratch(buf) ? OL_ACCEL_IPC_SCRATCH : 0;
    return OL_OK;
}

ol_status_t ol_accel_ipc_export(const void *buf, ol_accel_ipc_t *ipc)
{
    ol_status_t rc = ol_accel_enter(buf);
    if (rc != OL_OK)
        return rc;
    rc = export_buffer(buf, ipc);
    ol_accel_leave();
    return rc;
}

/* ---- import: the peers' events --------------------------------------------- */

/* Each peer's export event, opened once. */
typedef struct peer_event {
    int peer;
    uint8_t handle[OL_CU_IPC_HANDLE_SIZE];
    ol_cu_event_t event;
    struct peer_event *next;
} peer_event_t;

static peer_event_t *peer_events; /* under import_lock */

static ol_status_t peer_event(int peer, const uint8_t handle[OL_CU_IPC_HANDLE_SIZE],
                              ol_cu_event_t *event)
{
    for (peer_event_t *p = peer_events; p; p = p->next) {
        if (p->peer == peer && memcmp(p->handle, handle, OL_CU_IPC_HANDLE_SIZE) == 0) {
            *event = p->event;
            return OL_OK;
        }
    }
    peer_event_t *p = calloc(1, sizeof(*p));
    if (!p)
        return MPI_ERR_NO_MEM;
    ol_cu_ipc_event_handle_t h;
    memcpy(&h, handle, sizeof(h));
    ol_cu_result_t rc = ol_cu.cuIpcOpenEventHandle(&p->event, h);
    if (rc != OL_CUDA_SUCCESS) {
        free(p);
        return ol_accel_cuda_failed("cuIpcOpenEventHandle", rc);
    }
    p->peer = peer;
    memcpy(p->handle, handle, OL_CU_IPC_HANDLE_SIZE);
    p->next = peer_events;
    peer_events = p;
    *event = p->event;
    return OL_OK;
}

/* The library's stream waits until the peer's work before its export is
 * done. */
static ol_status_t wait_for_exporter(int peer, const ol_accel_ipc_t *ipc)
{
    ol_cu_event_t event = NULL;
    ol_status_t rc = peer_event(peer, ipc->event, &event);
    if (rc != OL_OK)
        return rc;
    ol_cu_result_t cu = ol_cu.cuStreamWaitEvent(ol_accel_stream(), event, 0);
    return cu == OL_CUDA_SUCCESS ? OL_OK : ol_accel_cuda_failed("cuStreamWaitEvent", cu);
}

/* ---- import: the mappings ------------------------------------------------------ */

enum { BUCKETS = 256 };
typedef struct mapping {
    int peer;
    uint64_t buffer_id;
    uint8_t handle[OL_CU_IPC_HANDLE_SIZE];
    uint64_t peer_base, peer_size; /* the allocation in the peer's address space */
    ol_cu_deviceptr_t base; /* where the allocation is mapped here */
    int users;              /* imports not released yet: never closed meanwhile */
    bool scratch;           /* the peer's library scratch: closed when released */
    uint64_t last_use;      /* for the least recently used */
    struct mapping *next;
} mapping_t;

static mapping_t *buckets[BUCKETS];
static int open_mappings;
static uint64_t use_clock;
static pthread_mutex_t import_lock = PTHREAD_MUTEX_INITIALIZER;

static mapping_t **bucket_of(int peer, uint64_t buffer_id)
{
    uint64_t h = (buffer_id ^ ((uint64_t)(unsigned)peer << 32)) * 0x9e3779b97f4a7c15ULL;
    return &buckets[h >> 56];
}

static mapping_t *find_mapping(int peer, uint64_t buffer_id)
{
    for (mapping_t *m = *bucket_of(peer, buffer_id); m; m = m->next)
        if (m->peer == peer && m->buffer_id == buffer_id)
            return m;
    return NULL;
}

static void close_mapping(mapping_t *m)
{
    mapping_t **link = bucket_of(m->peer, m->buffer_id);
    while (*link != m)
        link = &(*link)->next;
    *link = m->next;
    ol_cu.cuIpcCloseMemHandle(m->base);
    open_mappings--;
    free(m);
}

static bool superseded(const mapping_t *m, const ol_accel_ipc_t *ipc)
{
    bool overlaps = m->peer_base < ipc->alloc_base + ipc->alloc_size &&
                    ipc->alloc_base < m->peer_base + m->peer_size;
    return overlaps || memcmp(m->handle, ipc->handle, sizeof(m->handle)) == 0;
}

/* Closes the peer's mappings that ipc's allocation supersedes (called when
 * ipc's buffer id is new to us). One still in use stays open until its
 * release: it is what a copy in flight reads. */
static void close_stale(int peer, const ol_accel_ipc_t *ipc)
{
    for (int i = 0; i < BUCKETS; i++) {
        for (mapping_t *m = buckets[i], *next; m; m = next) {
            next = m->next;
            if (m->peer == peer && m->users == 0 && superseded(m, ipc))
                close_mapping(m);
        }
    }
}

/* Closes the least recently used mapping nobody uses, while more than
 * `keep` are open. */
static void trim_to(int keep)
{
    while (open_mappings > keep) {
        mapping_t *oldest = NULL;
        for (int i = 0; i < BUCKETS; i++)
            for (mapping_t *m = buckets[i]; m; m = m->next)
                if (m->users == 0 && (!oldest || m->last_use < oldest->last_use))
                    oldest = m;
        if (!oldest)
            return; /* all in use: the cache shrinks as they are released */
        close_mapping(oldest);
    }
}

static ol_status_t open_mapping(int peer, const ol_accel_ipc_t *ipc, mapping_t **opened)
{
    mapping_t *m = calloc(1, sizeof(*m));
    if (!m)
        return MPI_ERR_NO_MEM;
    ol_cu_ipc_mem_handle_t handle;
    memcpy(&handle, ipc->handle, sizeof(handle));
    ol_cu_result_t rc = ol_cu.cuIpcOpenMemHandle_v2(&m->base, handle,
                                                     OL_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    if (rc != OL_CUDA_SUCCESS) {
        free(m);
        return ol_accel_cuda_failed("cuIpcOpenMemHandle", rc);
    }
    m->peer = peer;
    m->buffer_id = ipc->buffer_id;
    m->peer_base = ipc->alloc_base;
    m->peer_size = ipc->alloc_size;
    m->scratch = ipc->flags & OL_ACCEL_IPC_SCRATCH;
    memcpy(m->handle, ipc->handle, sizeof(m->handle));
    mapping_t **bucket = bucket_of(peer, ipc->buffer_id);
    m->next = *bucket;
    *bucket = m;
    open_mappings++;
    *opened = m;
    return OL_OK;
}

/* The mapping of ipc's allocation, opened if needed (making room first). */
static ol_status_t use_mapping(int peer, const ol_accel_ipc_t *ipc, mapping_t **found)
{
    mapping_t *m = find_mapping(peer, ipc->buffer_id);
    if (!m) {
        close_stale(peer, ipc);
        trim_to(ol_accel_param.ipc_cache - 1);
        ol_status_t rc = open_mapping(peer, ipc, &m);
        if (rc != OL_OK)
            return rc;
    }
    m->users++;
    m->last_use = ++use_clock;
    *found = m;
    return OL_OK;
}

static void release_mapping(mapping_t *m)
{
    m->users--;
    if (m->users == 0 && m->scratch)
        close_mapping(m);
    else
        trim_to(ol_accel_param.ipc_cache);
}

ol_status_t ol_accel_ipc_import(int peer_world_rank, const ol_accel_ipc_t *ipc, void **ptr)
{
    ol_status_t rc = ol_accel_enter(NULL);
    if (rc != OL_OK)
        return rc;
    pthread_mutex_lock(&import_lock);
    mapping_t *m;
    rc = use_mapping(peer_world_rank, ipc, &m);
    if (rc == OL_OK) {
        rc = wait_for_exporter(peer_world_rank, ipc);
        if (rc == OL_OK)
            *ptr = (void *)(uintptr_t)(m->base + ipc->offset);
        else
            release_mapping(m);
    }
    pthread_mutex_unlock(&import_lock);
    ol_accel_leave();
    return rc;
}

void ol_accel_ipc_release(int peer_world_rank, const ol_accel_ipc_t *ipc)
{
    if (ol_accel_enter(NULL) != OL_OK)
        return;
    pthread_mutex_lock(&import_lock);
    mapping_t *m = find_mapping(peer_world_rank, ipc->buffer_id);
    if (m && m->users > 0)
        release_mapping(m);
    pthread_mutex_unlock(&import_lock);
    ol_accel_leave();
}

/* ---- end ------------------------------------------------------------------------- */

void ol_accel_ipc_close_imports(void)
{
    pthread_mutex_lock(&import_lock);
    for (int i = 0; i < BUCKETS; i++)
        while (buckets[i])
            close_mapping(buckets[i]);
    while (peer_events) {
        peer_event_t *p = peer_events;
        peer_events = p->next;
        ol_cu.cuEventDestroy_v2(p->event);
        free(p);
    }
    pthread_mutex_unlock(&import_lock);
}

void ol_accel_ipc_finalize(void)
{
    ol_accel_ipc_close_imports();
    pthread_mutex_lock(&export_lock);
    memset(exports, 0, sizeof(exports));
    if (export_event)
        ol_cu.cuEventDestroy_v2(export_event);
    export_event = NULL;
    pthread_mutex_unlock(&export_lock);
}
