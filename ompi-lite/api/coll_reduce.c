/* The reduction collectives of the API: MPI_Reduce, Allreduce,
 * Reduce_scatter, Reduce_scatter_block, Scan, Exscan, in their blocking,
 * nonblocking (I...) and persistent (..._init) forms; the int-count forms
 * share the _c implementations. Each checks what the generated binding
 * cannot (the op on the datatype, MPI_IN_PLACE where the standard forbids
 * it, the v form's count array) and hands over to coll/, which builds one
 * schedule and runs it (blocking), starts it (I...) or keeps it (_init). */
#include "coll_internal.h"
#include "gen_impl.h"
#include "ol_api_checks.h"

#include <stdlib.h>

static int in_place_error(const char *what)
{
    ol_api_set_detail("%s", what);
    return MPI_ERR_BUFFER;
}

/* The checks every reduction shares: the op on the datatype; the receive
 * buffer never MPI_IN_PLACE; no in place on an intercommunicator; send and
 * receive buffers not the same memory (MPI_IN_PLACE is the way to say it). */
static int check_common(const ol_coll_args_t *a, MPI_Count count, bool recv_significant)
{
    int rc = ol_op_check_reduction(a->op, a->recvtype);
    if (rc != MPI_SUCCESS)
        return rc;
    if (recv_significant && a->recvbuf == MPI_IN_PLACE)
        return in_place_error("recvbuf is MPI_IN_PLACE: only sendbuf may be");
    if (ol_comm_is_inter(a->comm) && a->sendbuf == MPI_IN_PLACE)
        return in_place_error("MPI_IN_PLACE is not allowed on an intercommunicator");
    if (recv_significant && count > 0 && a->sendbuf == a->recvbuf)
        return in_place_error("sendbuf and recvbuf are the same buffer: pass MPI_IN_PLACE as "
                              "sendbuf instead");
    return MPI_SUCCESS;
}

static ol_coll_args_t args(ol_coll_kind_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                           ol_datatype_t *dt, ol_op_t *op, ol_comm_t *comm)
{
    return (ol_coll_args_t){.kind = kind,
                            .sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .sendcount = count,
                            .recvcount = count,
                            .sendtype = dt,
                            .recvtype = dt,
                            .op = op,
                            .comm = comm};
}

/* ---- Reduce -------------------------------------------------------------- */

int ol_api_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, ol_datatype_t *datatype,
                    ol_op_t *op, int root, ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    ol_coll_args_t a = args(OL_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, comm);
    a.root = root;
    bool inter = ol_comm_is_inter(comm);
    bool at_root = inter ? root == MPI_ROOT : comm->rank == root;
    int rc = inter && root == MPI_PROC_NULL ? MPI_SUCCESS : check_common(&a, count, at_root);
    if (rc == MPI_SUCCESS && !inter && !at_root && sendbuf == MPI_IN_PLACE)
        rc = in_place_error("sendbuf is MPI_IN_PLACE at a process that is not the root");
    return rc == MPI_SUCCESS ? ol_api_coll_issue(&a, how, request) : rc;
}

/* ---- Allreduce, Reduce_scatter_block, Scan, Exscan ---------------------- */

/* The collectives whose every process sends and receives one vector. */
static int everyone(ol_coll_kind_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                    ol_datatype_t *dt, ol_op_t *op, ol_comm_t *comm, ol_api_how_t how,
                    MPI_Request *request)
{
    ol_coll_args_t a = args(kind, sendbuf, recvbuf, count, dt, op, comm);
    if ((kind == OL_COLL_SCAN || kind == OL_COLL_EXSCAN) && ol_comm_is_inter(comm)) {
        ol_api_set_detail("%s is an intercommunicator: scans need an intracommunicator",
                          comm->name);
        return MPI_ERR_COMM;
    }
    if (kind == OL_COLL_REDUCE_SCATTER_BLOCK)
        a.sendcount = count * comm->size;
    int rc = check_common(&a, count, true);
    return rc == MPI_SUCCESS ? ol_api_coll_issue(&a, how, request) : rc;
}

int ol_api_allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, ol_datatype_t *datatype,
                       ol_op_t *op, ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return everyone(OL_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, comm, how, request);
}

int ol_api_reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                  ol_datatype_t *datatype, ol_op_t *op, ol_comm_t *comm,
                                  ol_api_how_t how, MPI_Request *request)
{
    return everyone(OL_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, datatype, op, comm,
                    how, request);
}

int ol_api_scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, ol_datatype_t *datatype,
                  ol_op_t *op, ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return everyone(OL_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, how, request);
}

int ol_api_exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, ol_datatype_t *datatype,
                    ol_op_t *op, ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return everyone(OL_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, how, request);
}

/* ---- Reduce_scatter (the v form) --------------------------------------- */

/* The binding checks no buffer of the v form (its counts are an array):
 * the counts, the datatype and the buffers are checked here. The schedule
 * is built at once, so the widened counts need not outlive the call. */
static int reduce_scatter(const void *sendbuf, void *recvbuf, const int *counts_int,
                          const MPI_Count *counts_c, ol_datatype_t *dt, ol_op_t *op,
                          ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    if (!counts_int && !counts_c) {
        ol_api_set_detail("recvcounts is NULL");
        return MPI_ERR_ARG;
    }
    int p = comm->size;
    MPI_Count *counts = malloc(sizeof(MPI_Count) * (size_t)p), total = 0;
    if (!counts)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int i = 0; rc == MPI_SUCCESS && i < p; i++) {
        counts[i] = counts_int ? counts_int[i] : counts_c[i];
        total += counts[i];
        if (counts[i] < 0) {
            ol_api_set_detail("recvcounts[%d] is %lld, a count must not be negative", i,
                              (long long)counts[i]);
            rc = MPI_ERR_COUNT;
        }
    }
    ol_coll_args_t a = args(OL_COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, dt, op, comm);
    a.sendcount = total;
    a.recvcounts = counts;
    if (rc == MPI_SUCCESS && !dt->committed) {
        ol_api_set_detail("the datatype (%s) is not committed", dt->name);
        rc = MPI_ERR_TYPE;
    }
    if (rc == MPI_SUCCESS)
        rc = check_common(&a, total, true);
    bool in_place = sendbuf == MPI_IN_PLACE;
    if (rc == MPI_SUCCESS && !in_place)
        rc = ol_check_buffer(sendbuf, total, dt, "sendbuf");
    if (rc == MPI_SUCCESS)
        rc = ol_check_buffer(recvbuf, in_place ? total : counts[comm->rank], dt, "recvbuf");
    if (rc == MPI_SUCCESS)
        rc = ol_api_coll_issue(&a, how, request);
    free(counts);
    return rc;
}

int ol_api_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                          ol_datatype_t *datatype, ol_op_t *op, ol_comm_t *comm, ol_api_how_t how,
                          MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, NULL, datatype, op, comm, how, request);
}

int ol_api_reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                            ol_datatype_t *datatype, ol_op_t *op, ol_comm_t *comm, ol_api_how_t how,
                            MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcounts, datatype, op, comm, how, request);
}
