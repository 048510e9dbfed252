/* How a (buf, count, datatype) is handed to UCX, private to pt2pt/.
 * Contiguous data goes as bytes; anything else as a UCX generic datatype
 * whose callbacks run the datatype engine's cursor, so that no temporary
 * copy of the whole message is made. */
#ifndef OL_PT2PT_UCX_DATATYPE_H
#define OL_PT2PT_UCX_DATATYPE_H

#include "ol_datatype.h"
#include <ucp/api/ucp.h>

typedef struct {
    ucp_datatype_t datatype;
    void *buffer;
    size_t count;
} ol_ucx_data_t;

ol_status_t ol_ucx_generic_datatype(ol_datatype_t *dt, ucp_datatype_t *ucx_dt);
void ol_ucx_datatype_init(void);

static inline ol_status_t ol_ucx_describe(ol_datatype_t *dt, const void *buf, MPI_Count count,
                                          ol_ucx_data_t *data)
{
    if (OL_LIKELY(dt->contiguous)) {
        data->datatype = ucp_dt_make_contig(1);
        data->buffer = (char *)buf + dt->true_lb;
        data->count = (size_t)count * dt->size;
        return OL_OK;
    }
    data->buffer = (void *)buf;
    data->count = (size_t)count;
    return ol_ucx_generic_datatype(dt, &data->datatype);
}

#endif
