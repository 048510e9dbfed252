/* Helpers of coll/: typed copies, send-receive. */
#include "coll_util.h"

#include <stdlib.h>
#include <string.h>

ol_status_t ol_coll_copy(void *dst, const void *src, MPI_Count count, const ol_datatype_t *dt)
{
    if (dst == src || count == 0)
        return OL_OK;
    if (dt->contiguous) {
        memcpy((char *)dst + dt->true_lb, (const char *)src + dt->true_lb,
               (size_t)count * dt->size);
        return OL_OK;
    }
    void *packed = malloc((size_t)count * dt->size);
    if (!packed)
        return MPI_ERR_NO_MEM;
    ol_dt_pack_all(dt, src, count, packed);
    ol_dt_unpack_all(dt, dst, count, packed);
    free(packed);
    return OL_OK;
}

ol_status_t ol_coll_sendrecv(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                             int dest, void *recvbuf, MPI_Count recvcount,
                             ol_datatype_t *recvtype, int source, int tag, ol_comm_t *comm)
{
    ol_request_t *recv_req;
    int t = ol_coll_tag(comm, tag);
    ol_status_t rc = ol_pt2pt_irecv(recvbuf, recvcount, recvtype, source, t, comm,
                                    OL_TAGSPACE_COLL, &recv_req);
    if (rc != OL_OK)
        return rc;
    rc = ol_pt2pt_send(sendbuf, sendcount, sendtype, dest, t, comm, OL_TAGSPACE_COLL,
                       OL_SEND_STANDARD);
    if (rc != OL_OK)
        ol_pt2pt_cancel(recv_req);
    ol_status_t wait_rc = ol_pt2pt_wait(recv_req, NULL);
    return rc != OL_OK ? rc : wait_rc;
}
