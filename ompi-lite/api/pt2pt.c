/* Point-to-point calls of the API: they hand over to pt2pt/. */
#include "gen_impl.h"
#include "pt2pt.h"

/* Derived and holed predefined types (MPI_DOUBLE_INT) need the datatype
 * engine; until it exists they are refused, not sent wrongly. */
static int check_contiguous(const ol_datatype_t *dt)
{
    if (OL_LIKELY(dt->contiguous))
        return MPI_SUCCESS;
    ol_api_set_detail("datatype %s is not contiguous, which point-to-point does not support yet",
                      dt->name);
    return MPI_ERR_TYPE;
}

int ol_api_send(const void *buf, int count, ol_datatype_t *datatype, int dest, int tag,
                ol_comm_t *comm)
{
    int rc = check_contiguous(datatype);
    if (OL_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    return ol_pt2pt_send(buf, count, datatype, dest, tag, comm, OL_TAGSPACE_USER);
}

int ol_api_recv(void *buf, int count, ol_datatype_t *datatype, int source, int tag,
                ol_comm_t *comm, MPI_Status *status)
{
    int rc = check_contiguous(datatype);
    if (OL_UNLIKELY(rc != MPI_SUCCESS))
        return rc;
    rc = ol_pt2pt_recv(buf, count, datatype, source, tag, comm, OL_TAGSPACE_USER, status);
    if (OL_UNLIKELY(rc == MPI_ERR_TRUNCATE))
        ol_api_set_detail("a message of more than %d elements of %s arrived for buf", count,
                          datatype->name);
    return rc;
}

int ol_api_get_count(const MPI_Status *status, ol_datatype_t *datatype, int *count)
{
    MPI_Count bytes = ol_status_get_bytes(status);
    if (datatype->size == 0)
        *count = bytes == 0 ? 0 : MPI_UNDEFINED;
    else if (bytes % (MPI_Count)datatype->size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(bytes / (MPI_Count)datatype->size);
    return MPI_SUCCESS;
}
