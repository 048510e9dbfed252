/* CUDA IPC between the ranks of one host.
 *
 * Export: the handle of the whole allocation holding the buffer (IPC
 * handles name allocations, not addresses inside them), the buffer's
 * offset in it, and the allocation's buffer id, which the driver never
 * gives to two allocations of a process. Handles are remembered per buffer
 * id: the id is asked of the driver on every export, so a freed and
 * reallocated range never gets the old handle.
 *
 * Import: one mapping per (peer, buffer id), opened once and kept, because
 * cuIpcOpenMemHandle costs far more than a message. When a peer shows a new
 * allocation that overlaps the addresses (in the peer) of one we hold, or
 * the same handle with a new id, the peer freed the old one: its mapping is
 * closed first, since it would otherwise keep the freed memory alive in the
 * peer's GPU. */
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

/* The handle, base and size of the allocation with this buffer id. */
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
    e->buffer_id = buffer_id;
    e->base = (uintptr_t)base;
    e->size = size;
    return OL_OK;
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
    _Static_assert(sizeof(ipc->handle) == sizeof(e.handle), "IPC handle sizes differ");
    memcpy(ipc->handle, &e.handle, sizeof(ipc->handle));
    ipc->buffer_id = e.buffer_id;
    ipc->offset = (uint64_t)((uintptr_t)buf - e.base);
    ipc->alloc_base = (uint64_t)e.base;
    ipc->alloc_size = e.size;
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

/* ---- import ------------------------------------------------------------------ */

enum { BUCKETS = 256 };
typedef struct mapping {
    int peer;
    uint64_t buffer_id;
    uint8_t handle[OL_CU_IPC_HANDLE_SIZE];
    uint64_t peer_base, peer_size; /* the allocation in the peer's address space */
    ol_cu_deviceptr_t base; /* where the allocation is mapped here */
    struct mapping *next;
} mapping_t;

static mapping_t *buckets[BUCKETS];
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

static bool superseded(const mapping_t *m, const ol_accel_ipc_t *ipc)
{
    bool overlaps = m->peer_base < ipc->alloc_base + ipc->alloc_size &&
                    ipc->alloc_base < m->peer_base + m->peer_size;
    return overlaps || memcmp(m->handle, ipc->handle, sizeof(m->handle)) == 0;
}

/* Closes the peer's mappings that ipc's allocation supersedes (called when
 * ipc's buffer id is new to us). */
static void close_stale(int peer, const ol_accel_ipc_t *ipc)
{
    for (int i = 0; i < BUCKETS; i++) {
        for (mapping_t **link = &buckets[i]; *link;) {
            mapping_t *m = *link;
            if (m->peer == peer && superseded(m, ipc)) {
                ol_cu.cuIpcCloseMemHandle(m->base);
                *link = m->next;
                free(m);
            } else {
                link = &m->next;
            }
        }
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
    memcpy(m->handle, ipc->handle, sizeof(m->handle));
    mapping_t **bucket = bucket_of(peer, ipc->buffer_id);
    m->next = *bucket;
    *bucket = m;
    *opened = m;
    return OL_OK;
}

ol_status_t ol_accel_ipc_import(int peer_world_rank, const ol_accel_ipc_t *ipc, void **ptr)
{
    ol_status_t rc = ol_accel_enter(NULL);
    if (rc != OL_OK)
        return rc;
    pthread_mutex_lock(&import_lock);
    mapping_t *m = find_mapping(peer_world_rank, ipc->buffer_id);
    if (!m) {
        close_stale(peer_world_rank, ipc);
        rc = open_mapping(peer_world_rank, ipc, &m);
    }
    if (rc == OL_OK)
        *ptr = (void *)(uintptr_t)(m->base + ipc->offset);
    pthread_mutex_unlock(&import_lock);
    ol_accel_leave();
    return rc;
}

void ol_accel_ipc_finalize(void)
{
    pthread_mutex_lock(&import_lock);
    for (int i = 0; i < BUCKETS; i++) {
        while (buckets[i]) {
            mapping_t *m = buckets[i];
            buckets[i] = m->next;
            ol_cu.cuIpcCloseMemHandle(m->base);
            free(m);
        }
    }
    pthread_mutex_unlock(&import_lock);
    pthread_mutex_lock(&export_lock);
    memset(exports, 0, sizeof(exports));
    pthread_mutex_unlock(&export_lock);
}
