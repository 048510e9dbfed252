/* Pinned host buffers and device scratch buffers, pooled: allocating
 * either is slow (cuMemHostAlloc pins pages, cuMemAlloc may synchronise the
 * device), and the protocols ask for the same few sizes over and over.
 *
 * Size classes: powers of two from 4 KiB to 1 MiB; above, multiples of an
 * eighth of the power of two below the request (1 MiB + 1 byte takes
 * 1.125 MiB, 129 MiB takes 144 MiB), so that no block is more than 1/8
 * bigger than asked, where a power of two could double it. A freed block
 * waits on its pool's free list for a request of its class; the free
 * blocks of a pool hold at most ACCEL_POOL_KEEP_MB: the least recently
 * freed go back to the driver first, and a block bigger than that at once.
 * That is safe for device scratch that peers mapped through CUDA IPC: it
 * comes back here only after they closed their mappings (ipc.c: importers
 * close library scratch at release, and the callers free it after that).
 * Everything goes at finalize. */
#include "accel_internal.h"

#include <pthread.h>
#include <stdlib.h>

enum { SMALLEST_BLOCK = 4096, LARGEST_POWER_CLASS = 1 << 20, STEPS_PER_DOUBLING = 8 };

typedef struct block {
    void *ptr;
    size_t size;
    struct block *next;
} block_t;

typedef struct {
    void *(*allocate)(size_t bytes);
    void (*release)(void *ptr);
    pthread_mutex_t lock;
    block_t *free_blocks;          /* most recently freed first */
    size_t free_bytes;             /* their sizes summed */
    block_t *in_use;               /* handed out, to find a pointer's size */
} pool_t;

static void *pinned_allocate(size_t bytes)
{
    void *ptr = NULL;
    return ol_cu.cuMemHostAlloc(&ptr, bytes, OL_CU_MEMHOSTALLOC_PORTABLE) == OL_CUDA_SUCCESS
               ? ptr : NULL;
}

static void pinned_release(void *ptr)
{
    ol_cu.cuMemFreeHost(ptr);
}

static void *device_allocate(size_t bytes)
{
    ol_cu_deviceptr_t ptr = 0;
    return ol_cu.cuMemAlloc_v2(&ptr, bytes) == OL_CUDA_SUCCESS ? (void *)(uintptr_t)ptr : NULL;
}

static void device_release(void *ptr)
{
    ol_cu.cuMemFree_v2((ol_cu_deviceptr_t)(uintptr_t)ptr);
}

static pool_t host_pool = {pinned_allocate, pinned_release, PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};
static pool_t device_pool = {device_allocate, device_release, PTHREAD_MUTEX_INITIALIZER, 0, 0, 0};

/* The block size a request gets (see the top of the file). */
static size_t class_size(size_t bytes)
{
    size_t power = SMALLEST_BLOCK;
    while (power < bytes && power < LARGEST_POWER_CLASS)
        power <<= 1;
    if (bytes <= power)
        return power;
    size_t step = ((size_t)1 << (63 - __builtin_clzll(bytes))) / STEPS_PER_DOUBLING;
    return (bytes + step - 1) / step * step;
}

static size_t keep_limit(void)
{
    return (size_t)ol_accel_param.pool_keep_mb << 20;
}

static block_t *take_free(pool_t *pool, size_t size)
{
    pthread_mutex_lock(&pool->lock);
    block_t *b = NULL;
    for (block_t **link = &pool->free_blocks; *link; link = &(*link)->next) {
        if ((*link)->size == size) {
            b = *link;
            *link = b->next;
            pool->free_bytes -= b->size;
            break;
        }
    }
    pthread_mutex_unlock(&pool->lock);
    return b;
}

static block_t *new_block(pool_t *pool, size_t size)
{
    block_t *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    b->size = size;
    b->ptr = pool->allocate(size);
    if (!b->ptr) {
        free(b);
        return NULL;
    }
    return b;
}

static void *pool_alloc(pool_t *pool, size_t bytes)
{
    size_t size = class_size(bytes ? bytes : 1);
    if (ol_accel_enter(NULL) != OL_OK)
        return NULL;
    block_t *b = take_free(pool, size);
    if (!b)
        b = new_block(pool, size);
    ol_accel_leave();
    if (!b)
        return NULL;
    pthread_mutex_lock(&pool->lock);
    b->next = pool->in_use;
    pool->in_use = b;
    pthread_mutex_unlock(&pool->lock);
    return b->ptr;
}

static block_t *remove_in_use(pool_t *pool, void *ptr)
{
    for (block_t **link = &pool->in_use; *link; link = &(*link)->next) {
        block_t *b = *link;
        if (b->ptr == ptr) {
            *link = b->next;
            return b;
        }
    }
    return NULL;
}

/* Unlinks the least recently freed block (the list's last). */
static block_t *take_oldest_free(pool_t *pool)
{
    block_t **link = &pool->free_blocks;
    while ((*link)->next)
        link = &(*link)->next;
    block_t *b = *link;
    *link = NULL;
    pool->free_bytes -= b->size;
    return b;
}

static void destroy_blocks(pool_t *pool, block_t *list)
{
    for (block_t *next; list; list = next) {
        next = list->next;
        pool->release(list->ptr);
        free(list);
    }
}

/* Keeps b for reuse within the limit; returns what must go back to the
 * driver (b itself when it alone is over the limit). Called locked. */
static block_t *keep_within_limit(pool_t *pool, block_t *b)
{
    size_t limit = keep_limit();
    block_t *release = NULL;
    if (b->size > limit) {
        b->next = NULL;
        return b;
    }
    while (pool->free_bytes + b->size > limit) {
        block_t *old = take_oldest_free(pool);
        old->next = release;
        release = old;
    }
    b->next = pool->free_blocks;
    pool->free_blocks = b;
    pool->free_bytes += b->size;
    return release;
}

static void pool_free(pool_t *pool, void *ptr)
{
    if (!ptr)
        return;
    pthread_mutex_lock(&pool->lock);
    block_t *b = remove_in_use(pool, ptr);
    block_t *release = b ? keep_within_limit(pool, b) : NULL;
    pthread_mutex_unlock(&pool->lock);
    if (release && ol_accel_enter(NULL) == OL_OK) {
        destroy_blocks(pool, release);
        ol_accel_leave();
    }
}

/* Frees every block, handed out or not (finalize: nothing is in use). */
static void pool_destroy(pool_t *pool)
{
    pthread_mutex_lock(&pool->lock);
    destroy_blocks(pool, pool->free_blocks);
    destroy_blocks(pool, pool->in_use);
    pool->free_blocks = pool->in_use = NULL;
    pool->free_bytes = 0;
    pthread_mutex_unlock(&pool->lock);
}

void *ol_accel_host_alloc(size_t bytes)
{
    return pool_alloc(&host_pool, bytes);
}

void ol_accel_host_free(void *ptr)
{
    pool_free(&host_pool, ptr);
}

void *ol_accel_device_alloc(size_t bytes)
{
    return pool_alloc(&device_pool, bytes);
}

void ol_accel_device_free(void *ptr)
{
    pool_free(&device_pool, ptr);
}

bool ol_accel_is_device_scratch(const void *ptr)
{
    bool found = false;
    pthread_mutex_lock(&device_pool.lock);
    for (block_t *b = device_pool.in_use; b && !found; b = b->next)
        found = (uintptr_t)ptr - (uintptr_t)b->ptr < b->size;
    pthread_mutex_unlock(&device_pool.lock);
    return found;
}

void ol_accel_pools_finalize(void)
{
    pool_destroy(&host_pool);
    pool_destroy(&device_pool);
}
