/* UCX generic datatypes over the datatype engine's cursor. */
#include "ucx_datatype.h"
#include "ol_log.h"
#include "ol_runtime.h"

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
