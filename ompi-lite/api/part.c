/* Partitioned communication calls of the API (MPI 4.1 chapter 5): the
 * request handles and the arguments the bindings leave to us; pt2pt/part.c
 * does the work. The _c forms also serve the int bindings. Errors of a call
 * on a request go to the handler of the request's communicator. */
#include "gen_impl.h"
#include "pt2pt.h"

static int init(ol_request_kind_t direction, const void *buf, int partitions, MPI_Count count,
                ol_datatype_t *datatype, int peer, int tag, ol_comm_t *comm, MPI_Request *request)
{
    if (partitions < 0) {
        ol_api_set_detail("partitions is %d, must be >= 0", partitions);
        return MPI_ERR_ARG;
    }
    ol_op_args_t args = {(void *)buf, count, datatype, peer, tag, comm, OL_TAGSPACE_USER,
                         OL_SEND_STANDARD};
    ol_request_t *req;
    int rc = ol_part_init(direction, &args, partitions, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_psend_init_c(const void *buf, int partitions, MPI_Count count, ol_datatype_t *datatype,
                        int dest, int tag, ol_comm_t *comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hint changes a partitioned send */
    return init(OL_REQ_SEND, buf, partitions, count, datatype, dest, tag, comm, request);
}

int ol_api_precv_init_c(void *buf, int partitions, MPI_Count count, ol_datatype_t *datatype,
                        int source, int tag, ol_comm_t *comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return init(OL_REQ_RECV, buf, partitions, count, datatype, source, tag, comm, request);
}

/* The partitioned request behind a handle; anything else is an error. */
static int lookup(MPI_Request handle, ol_request_t **req)
{
    *req = ol_request_from_handle(handle);
    if (*req && (*req)->kind == OL_REQ_PART)
        return MPI_SUCCESS;
    if (*req)
        ol_api_set_error_comm((*req)->args.comm);
    ol_api_set_detail(handle == MPI_REQUEST_NULL ? "request is MPI_REQUEST_NULL"
                                                 : "request is not a partitioned request (made "
                                                   "by MPI_Psend_init or MPI_Precv_init)");
    return MPI_ERR_REQUEST;
}

/* A failed call's error goes to the request's communicator. */
static int on_request(const ol_request_t *req, int rc)
{
    if (rc != MPI_SUCCESS)
        ol_api_set_error_comm(req->args.comm);
    return rc;
}

int ol_api_pready(int partition, MPI_Request request)
{
    ol_request_t *req;
    int rc = lookup(request, &req);
    return rc != MPI_SUCCESS ? rc : on_request(req, ol_part_ready_range(req, partition, partition));
}

int ol_api_pready_range(int partition_low, int partition_high, MPI_Request request)
{
    ol_request_t *req;
    int rc = lookup(request, &req);
    return rc != MPI_SUCCESS
               ? rc
               : on_request(req, ol_part_ready_range(req, partition_low, partition_high));
}

int ol_api_pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    ol_request_t *req;
    int rc = lookup(request, &req);
    return rc != MPI_SUCCESS
               ? rc
               : on_request(req, ol_part_ready_list(req, length, array_of_partitions));
}

/* MPI 4.1 5.2.2: a null or inactive request answers true. */
int ol_api_parrived(MPI_Request request, int partition, int *flag)
{
    ol_request_t *req = NULL;
    if (request != MPI_REQUEST_NULL) {
        int rc = lookup(request, &req);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (!req || !req->active) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    return on_request(req, ol_part_arrived(req, partition, flag));
}
