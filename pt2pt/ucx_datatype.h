/* How a (buf, count, datatype) is handed to UCX, private to pt2pt/.
 * Contiguous data goes as bytes. Other data goes as a UCX generic datatype
 * whose callbacks run the datatype engine's cursor, so that no temporary
 * copy of the whole message is made; except small messages (at most
 * BOUNCE_BYTES), which go through a bounce buffer of a per-process pool:
 * packed before the send, unpacked when the receive completes. */
#ifndef OL_PT2PT_UCX_DATATYPE_H
#define OL_PT2PT_UCX_DATATYPE_H

#include "ol_datatype.h"
#include <stdio.h>
#include <ucp/api/ucp.h>

typedef struct {
    ucp_datatype_t datatype;
    void *buffer;
    size_t count;
    void *bounce; /* the pool's buffer UCX sends from or receives into; NULL: none */
    ol_datatype_t *dt; /* a generic datatype's type (count is then in its elements); NULL:
                          bytes */
} ol_ucx_data_t;

ol_status_t ol_ucx_generic_datatype(ol_datatype_t *dt, ucp_datatype_t *ucx_dt);
void ol_ucx_datatype_init(void);
void ol_ucx_datatype_finalize(void);
void ol_ucx_datatype_params_load(void);
void ol_ucx_datatype_params_print(FILE *out);

/* BOUNCE_BYTES: the largest message that takes a bounce buffer. */
extern size_t ol_ucx_bounce_bytes;

/* A buffer of ol_ucx_bounce_bytes from the pool (NULL: out of memory), and
 * its return. */
void *ol_ucx_bounce_get(void);
void ol_ucx_bounce_to_pool(void *bounce);

/* Returns data's bounce buffer, if it took one: inline, since the common
 * message took none. */
static inline void ol_ucx_bounce_put(void *bounce)
{
    if (OL_UNLIKELY(bounce != NULL))
        ol_ucx_bounce_to_pool(bounce);
}

/* Messages of at most this many bytes are packed and unpacked by the
 * transport itself, straight between the user's buffer and shared memory
 * (match.c's rings, which set it): a bounce buffer would be one more copy. */
extern size_t ol_ucx_transport_packs_bytes;

static inline bool ol_ucx_bounces(const ol_datatype_t *dt, MPI_Count count)
{
    return dt->size > 0 && (size_t)count <= ol_ucx_bounce_bytes / dt->size &&
           (size_t)count > ol_ucx_transport_packs_bytes / dt->size;
}

static inline void ol_ucx_describe_bytes(void *start, size_t bytes, ol_ucx_data_t *data)
{
    data->datatype = ucp_dt_make_contig(1);
    data->buffer = start;
    data->count = bytes;
    data->dt = NULL;
}

typedef enum { OL_UCX_SEND, OL_UCX_RECV } ol_ucx_direction_t;

/* The data of a send or a receive; a send's is packed into the bounce
 * buffer when it takes one. The caller returns data->bounce to the pool
 * when UCX is done with it (ol_ucx_bounce_put, ol_ucx_bounce_finish). */
static inline ol_status_t ol_ucx_describe(ol_datatype_t *dt, const void *buf, MPI_Count count,
                                          ol_ucx_direction_t direction, ol_ucx_data_t *data)
{
    data->bounce = NULL;
    if (OL_LIKELY(dt->contiguous)) {
        ol_ucx_describe_bytes(ol_dt_data_at(buf, dt), (size_t)count * dt->size, data);
        return OL_OK;
    }
    /* A small message: UCX's generic datatype would cost two mallocs, a
     * cursor and callbacks, and never takes the eager-short protocol; up to
     * BOUNCE_BYTES one pack into a pooled buffer is cheaper (see its help). */
    if (ol_ucx_bounces(dt, count) && (data->bounce = ol_ucx_bounce_get()) != NULL) {
        if (direction == OL_UCX_SEND)
            ol_dt_pack_all(dt, buf, count, data->bounce);
        ol_ucx_describe_bytes(data->bounce, (size_t)count * dt->size, data);
        return OL_OK;
    }
    data->buffer = (void *)buf;
    data->count = (size_t)count;
    data->dt = dt;
    return ol_ucx_generic_datatype(dt, &data->datatype);
}

/* Ends a receive that went through a bounce buffer: unpacks the length
 * bytes that arrived when st is UCS_OK (after an error, a truncation or a
 * cancel the user's buffer stays as it was) and returns the buffer to the
 * pool. */
void ol_ucx_bounce_finish(void *bounce, void *buf, MPI_Count count, ol_datatype_t *dt,
                          ucs_status_t st, size_t length);

#endif
