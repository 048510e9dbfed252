/* Helpers the files of coll/ share (private to coll/). */
#ifndef OL_COLL_UTIL_H
#define OL_COLL_UTIL_H

#include "coll.h"
#include "pt2pt.h"

/* Copies count typed elements (both buffers of the same type), in host or
 * device memory. */
ol_status_t ol_coll_copy(void *dst, const void *src, MPI_Count count, const ol_datatype_t *dt);

/* OL_OK when a collective got exactly count elements of dt (`got` bytes)
 * from rank `source`; else MPI_ERR_TRUNCATE, with a sentence that gives
 * both sizes. Every process of
 * a collective gives the same type signature, so any other length means
 * their counts or datatypes differ (a broadcast of 10 ints here, of 1 at
 * the root): a short message would otherwise leave the rest of the buffer
 * as it was and succeed. */
ol_status_t ol_coll_check_length(MPI_Count got, int source, MPI_Count count,
                                 const ol_datatype_t *dt);

/* A user buffer of the call is in device memory. */
bool ol_coll_on_device(const ol_coll_args_t *a);

/* Address of element i of a typed buffer. */
static inline void *ol_coll_at(const void *buf, MPI_Count i, const ol_datatype_t *dt)
{
    return (char *)buf + i * dt->extent;
}

static inline int ol_coll_tag(const ol_comm_t *comm, int tag)
{
    return comm->coll_tag_base + tag;
}

static inline bool ol_coll_in_place(const ol_coll_args_t *a)
{
    return a->sendbuf == MPI_IN_PLACE;
}

#endif
