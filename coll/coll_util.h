/* Helpers every algorithm of coll/ shares (private to coll/). */
#ifndef OL_COLL_UTIL_H
#define OL_COLL_UTIL_H

#include "coll.h"
#include "pt2pt.h"

/* A scratch buffer for count elements of dt, laid out like a user buffer:
 * *base is what to free; the returned pointer is what to pass as buf. */
void *ol_coll_scratch(const ol_datatype_t *dt, MPI_Count count, void **base);

/* Copies count typed elements (both buffers of the same type). */
ol_status_t ol_coll_copy(void *dst, const void *src, MPI_Count count, const ol_datatype_t *dt);

/* Address of element i of a typed buffer. */
static inline void *ol_coll_at(const void *buf, MPI_Count i, const ol_datatype_t *dt)
{
    return (char *)buf + i * dt->extent;
}

static inline int ol_coll_tag(const ol_comm_t *comm, int tag)
{
    return comm->coll_tag_base + tag;
}

static inline ol_status_t ol_coll_send(const void *buf, MPI_Count count, ol_datatype_t *dt,
                                       int dest, int tag, ol_comm_t *comm)
{
    return ol_pt2pt_send(buf, count, dt, dest, ol_coll_tag(comm, tag), comm, OL_TAGSPACE_COLL,
                         OL_SEND_STANDARD);
}

static inline ol_status_t ol_coll_recv(void *buf, MPI_Count count, ol_datatype_t *dt, int source,
                                       int tag, ol_comm_t *comm)
{
    return ol_pt2pt_recv(buf, count, dt, source, ol_coll_tag(comm, tag), comm, OL_TAGSPACE_COLL,
                         NULL);
}

#endif
