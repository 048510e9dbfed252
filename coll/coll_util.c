/* Helpers of coll/: typed copies, send-receive. */
#include "coll_util.h"
#include "ol_accel.h"

#include <stdlib.h>
#include <string.h>

/* Either buffer may be device memory: contiguous data is then one device
 * copy, other data goes through pt2pt's device-aware packing. */
ol_status_t ol_coll_copy(void *dst, const void *src, MPI_Count count, const ol_datatype_t *dt)
{
    if (dst == src || count == 0)
        return OL_OK;
    char *to = ol_dt_data_at(dst, dt);
    const char *from = ol_dt_data_at(src, dt);
    size_t bytes = (size_t)count * dt->size;
    bool device = ol_accel_is_device(to) || ol_accel_is_device(from);
    if (dt->contiguous) {
        if (OL_UNLIKELY(device))
            return ol_accel_copy(to, from, bytes);
        ol_copy_bytes(to, from, bytes);
        return OL_OK;
    }
    void *packed = malloc(bytes);
    if (!packed)
        return MPI_ERR_NO_MEM;
    ol_datatype_t *type = (ol_datatype_t *)dt; /* packing reads it only */
    ol_status_t rc = ol_pt2pt_pack(src, count, type, packed);
    if (rc == OL_OK)
        rc = ol_pt2pt_unpack(packed, dst, count, type);
    free(packed);
    return rc;
}

ol_status_t ol_coll_check_length(MPI_Count got, int source, MPI_Count count,
                                 const ol_datatype_t *dt)
{
    MPI_Count want = count * (MPI_Count)dt->size;
    if (got == want)
        return OL_OK;
    ol_error_detail("a collective received %lld bytes from rank %d where this process's count "
                    "and datatype give %lld: the processes' counts or datatypes differ",
                    (long long)got, source, (long long)want);
    return MPI_ERR_TRUNCATE;
}

static bool on_device(const void *buf)
{
    return buf != NULL && buf != MPI_IN_PLACE && ol_accel_is_device(buf);
}

bool ol_coll_on_device(const ol_coll_args_t *a)
{
    return on_device(a->sendbuf) || on_device(a->recvbuf);
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
