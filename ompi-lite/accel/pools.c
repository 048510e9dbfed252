/* Pinned host buffers and device scratch buffers, pooled: allocating
 * either is slow (cuMemHostAlloc pins pages, cuMemAlloc may synchronise the
 * device), and the protocols ask for the same few sizes over and over.
 *
 * Sizes up to 256 MiB are rounded up to a power of two (at least 4 KiB); a
 * freed block waits on its size class's free list for the next request of
 * that class. Larger blocks are allocated as asked and freed at once.
 * Everything goes at finalize. */
#include "accel_internal.h"

#include <pthread.h>
#include <stdlib.h>

enum { SMALLEST_CLASS = 12, LARGEST_CLASS = 28, CLASSES = LARGEST_CLASS + 1 };

typedef struct block {
    void *ptr;
    size_t size;
    struct block *next;
} block_t;

typedef struct {
    void *(*allocate)(size_t bytes);
    void (*release)(void *ptr);
    pthread_mutex_t lock;
    block_t *free_blocks[CLASSES]; /* by size class */
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

static pool_t host_pool = {pinned_allocate, pinned_release, PTHREAD_MUTEX_INITIALIZER, {0}, 0};
static pool_t device_pool = {device_allocate, device_release, PTHREAD_MUTEX_INITIALIZER, {0}, 0};

/* The class of a request: the power of two it rounds up to. */
static int size_class(size_t bytes)
{
    int c = SMALLEST_CLASS;
    while (c < 63 && ((size_t)1 << c) < bytes)
        c++;
    return c;
}

static block_t *take_free(pool_t *pool, int c)
{
    if (c >= CLASSES)
        return NULL;
    pthread_mutex_lock(&pool->lock);
    block_t *b = pool->free_blocks[c];
    if (b)
        pool->free_blocks[c] = b->next;
    pthread_mutex_unlock(&pool->lock);
    return b;
}

/* Pooled classes get their power of two, larger requests their size. */
static block_t *new_block(pool_t *pool, int c, size_t bytes)
{
    block_t *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    b->size = c < CLASSES ? (size_t)1 << c : bytes;
    b->ptr = pool->allocate(b->size);
    if (!b->ptr) {
        free(b);
        return NULL;
    }
    return b;
}

static void *pool_alloc(pool_t *pool, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (ol_accel_enter(NULL) != OL_OK)
        return NULL;
    int c = size_class(bytes);
    block_t *b = take_free(pool, c);
    if (!b)
        b = new_block(pool, c, bytes);
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

static void destroy_block(pool_t *pool, block_t *b)
{
    pool->release(b->ptr);
    free(b);
}

static void pool_free(pool_t *pool, void *ptr)
{
    if (!ptr)
        return;
    pthread_mutex_lock(&pool->lock);
    block_t *b = remove_in_use(pool, ptr);
    int c = b ? size_class(b->size) : CLASSES;
    if (b && c < CLASSES) {
        b->next = pool->free_blocks[c];
        pool->free_blocks[c] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&pool->lock);
    if (b && ol_accel_enter(NULL) == OL_OK) {
        destroy_block(pool, b);
        ol_accel_leave();
    }
}

/* Frees every block, handed out or not (finalize: nothing is in use). */
static void pool_destroy(pool_t *pool)
{
    pthread_mutex_lock(&pool->lock);
    for (int c = 0; c < CLASSES; c++) {
        while (pool->free_blocks[c]) {
            block_t *b = pool->free_blocks[c];
            pool->free_blocks[c] = b->next;
            destroy_block(pool, b);
        }
    }
    while (pool->in_use) {
        block_t *b = pool->in_use;
        pool->in_use = b->next;
        destroy_block(pool, b);
    }
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
