/* UCX generic datatypes over the datatype engine's cursor, and the pool of
 * bounce buffers of small non-contiguous messages. */
#include "ucx_datatype.h"
#include "ol_log.h"
#include "ol_param_table.h"
#include "ol_runtime.h"

#include <pthread.h>
#include <stdlib.h>

/* The state of one message in flight: its cursor and its packed size. */
typedef struct {
    ol_dt_cursor_t *cursor;
    size_t packed_size;
} generic_state_t;

static void *start(void *context, const void *buffer, size_t count)
{
    const ol_datatype_t *dt = context;
    generic_state_t *state = malloc(sizeof(*state));
    if (!state)
        return NULL;
    state->cursor = ol_dt_cursor_create(dt, buffer, (MPI_Count)count);
    state->packed_size = count * dt->size;
    if (!state->cursor) {
        free(state);
        return NULL;
    }
    return state;
}

static void *start_pack(void *context, const void *buffer, size_t count)
{
    return start(context, buffer, count);
}

static void *start_unpack(void *context, void *buffer, size_t count)
{
    return start(context, buffer, count);
}

static size_t packed_size(void *state)
{
    return ((generic_state_t *)state)->packed_size;
}

static size_t pack(void *state, size_t offset, void *dest, size_t max_length)
{
    return ol_dt_cursor_pack(((generic_state_t *)state)->cursor, offset, dest, max_length);
}

static ucs_status_t unpack(void *state, size_t offset, const void *src, size_t length)
{
    generic_state_t *s = state;
    if (offset + length > s->packed_size)
        return UCS_ERR_MESSAGE_TRUNCATED;
    ol_dt_cursor_unpack(s->cursor, offset, src, length);
    return UCS_OK;
}

static void finish(void *state)
{
    generic_state_t *s = state;
    ol_dt_cursor_free(s->cursor);
    free(s);
}

static const ucp_generic_dt_ops_t generic_ops = {
    .start_pack = start_pack,
    .start_unpack = start_unpack,
    .packed_size = packed_size,
    .pack = pack,
    .unpack = unpack,
    .finish = finish,
};

/* The UCX datatype lives as long as the ompi-lite datatype: created on the
 * first message, destroyed with the type. */
typedef struct {
    ucp_datatype_t datatype;
} transport_cache_t;

static void free_cache(void *cache)
{
    ucp_dt_destroy(((transport_cache_t *)cache)->datatype);
    free(cache);
}

void ol_ucx_datatype_init(void)
{
    ol_dt_transport_cache_free = free_cache;
}

ol_status_t ol_ucx_generic_datatype(ol_datatype_t *dt, ucp_datatype_t *ucx_dt)
{
    transport_cache_t *cache = __atomic_load_n(&dt->transport_cache, __ATOMIC_ACQUIRE);
    if (OL_LIKELY(cache != NULL)) {
        *ucx_dt = cache->datatype;
        return OL_OK;
    }
    cache = malloc(sizeof(*cache));
    if (!cache)
        return MPI_ERR_NO_MEM;
    ucs_status_t st = ucp_dt_create_generic(&generic_ops, dt, &cache->datatype);
    if (st != UCS_OK) {
        free(cache);
        OL_WARN("pt2pt", "ucp_dt_create_generic failed: %s", ucs_status_string(st));
        return MPI_ERR_INTERN;
    }
    /* Two threads may send a new type at once: the first cache wins. */
    void *expected = NULL;
    if (!__atomic_compare_exchange_n(&dt->transport_cache, &expected, cache, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        free_cache(cache);
        cache = expected;
    }
    *ucx_dt = cache->datatype;
    return OL_OK;
}

/* ---- bounce buffers ------------------------------------------------------ */

static int bounce_bytes_param; /* BOUNCE_BYTES */
size_t ol_ucx_bounce_bytes;
size_t ol_ucx_transport_packs_bytes;

static const ol_param_t datatype_params[] = {
    {"BOUNCE_BYTES", OL_PARAM_INT, "2048",
     "non-contiguous host messages of at most this many bytes are packed into a contiguous "
     "buffer before they are sent, and received into one and unpacked, instead of going "
     "through UCX's generic datatype, whose callbacks cost two mallocs and a cursor per "
     "message (0: never). osu_bw_vector on 2 ranks of the loaded 2-core development "
     "machine, packed / generic bandwidth, medians of 5-9 alternating runs in three "
     "series: 128-256 B 1.3-4x, 1 KiB 1.2-2.8x, 2 KiB 0.95-2x, 4 KiB 0.6-0.75x, 8 KiB 0.5x",
     &bounce_bytes_param, 0, 1048576},
};

void ol_ucx_datatype_params_load(void)
{
    ol_param_table_load(datatype_params, OL_ARRAY_SIZE(datatype_params));
    ol_ucx_bounce_bytes = bounce_bytes_param > 0 ? (size_t)bounce_bytes_param : 0;
}

void ol_ucx_datatype_params_print(FILE *out)
{
    ol_param_table_print(datatype_params, OL_ARRAY_SIZE(datatype_params), out);
}

/* Buffers come back to a free list (linked through their first bytes), so
 * that a message does not malloc once the pool holds as many buffers as
 * the most messages in flight at once. The lock is taken only under
 * MPI_THREAD_MULTIPLE. */
typedef struct free_bounce {
    struct free_bounce *next;
} free_bounce_t;

static free_bounce_t *free_bounces;
static pthread_mutex_t bounce_lock = PTHREAD_MUTEX_INITIALIZER;

static inline bool bounce_needs_lock(void)
{
    return ol_rt.thread_level == MPI_THREAD_MULTIPLE;
}

void *ol_ucx_bounce_get(void)
{
    bool locked = bounce_needs_lock();
    if (locked)
        pthread_mutex_lock(&bounce_lock);
    free_bounce_t *b = free_bounces;
    if (b)
        free_bounces = b->next;
    if (locked)
        pthread_mutex_unlock(&bounce_lock);
    if (b)
        return b;
    size_t bytes = ol_ucx_bounce_bytes > sizeof(free_bounce_t) ? ol_ucx_bounce_bytes
                                                                : sizeof(free_bounce_t);
    return malloc(bytes);
}

void ol_ucx_bounce_to_pool(void *bounce)
{
    free_bounce_t *b = bounce;
    bool locked = bounce_needs_lock();
    if (locked)
        pthread_mutex_lock(&bounce_lock);
    b->next = free_bounces;
    free_bounces = b;
    if (locked)
        pthread_mutex_unlock(&bounce_lock);
}

void ol_ucx_bounce_finish(void *bounce, void *buf, MPI_Count count, ol_datatype_t *dt,
                          ucs_status_t st, size_t length)
{
    if (st == UCS_OK)
        ol_dt_unpack_first(dt, buf, count, bounce, length);
    ol_ucx_bounce_to_pool(bounce);
}

/* Called when no operation is in flight (MPI_Finalize). */
void ol_ucx_datatype_finalize(void)
{
    while (free_bounces) {
        free_bounce_t *b = free_bounces;
        free_bounces = b->next;
        free(b);
    }
}
