/* The argument checks of the generated bindings, one per parameter KIND
 * (see functions.def). Each returns MPI_SUCCESS or an error class, and
 * records a sentence naming the argument. Inline: they are on every call. */
#ifndef OL_API_CHECKS_H
#define OL_API_CHECKS_H

#include "ol_api.h"
#include "tag_layout.h"

ol_status_t ol_check_running_slow(void);

static inline ol_status_t ol_check_running(void)
{
    return OL_LIKELY(ol_rt.state == OL_RT_RUNNING) ? MPI_SUCCESS : ol_check_running_slow();
}

static inline ol_status_t ol_check_comm(MPI_Comm handle, const char *arg, ol_comm_t **comm)
{
    *comm = ol_comm_from_handle(handle);
    if (OL_LIKELY(*comm != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg,
                      handle == MPI_COMM_NULL ? "MPI_COMM_NULL" : "not a valid communicator");
    return MPI_ERR_COMM;
}

static inline ol_status_t ol_check_datatype(MPI_Datatype handle, const char *arg,
                                            ol_datatype_t **dt)
{
    *dt = ol_dt_from_handle(handle);
    if (OL_LIKELY(*dt != NULL && (*dt)->committed))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg,
                      handle == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                      : *dt                       ? "not committed"
                                                  : "not a valid datatype");
    return MPI_ERR_TYPE;
}

static inline ol_status_t ol_check_count(MPI_Count count, const char *arg)
{
    if (OL_LIKELY(count >= 0))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %lld, a count must not be negative", arg, (long long)count);
    return MPI_ERR_COUNT;
}

/* NULL is MPI_BOTTOM, which only a datatype of absolute addresses may use;
 * every predefined datatype is relative. */
static inline ol_status_t ol_check_buffer(const void *buf, MPI_Count count,
                                          const ol_datatype_t *dt, const char *arg)
{
    if (OL_LIKELY(buf != NULL || count == 0 || dt->size == 0))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is NULL with %lld elements of %s", arg, (long long)count, dt->name);
    return MPI_ERR_BUFFER;
}

static inline ol_status_t ol_rank_error(const ol_comm_t *comm, int rank, const char *arg)
{
    ol_api_set_detail("invalid rank %d in argument %s (the size of %s is %d)", rank, arg, comm->name,
                      comm->size);
    return MPI_ERR_RANK;
}

static inline ol_status_t ol_check_dest(const ol_comm_t *comm, int rank, const char *arg)
{
    if (OL_LIKELY((rank >= 0 && rank < comm->size) || rank == MPI_PROC_NULL))
        return MPI_SUCCESS;
    return ol_rank_error(comm, rank, arg);
}

static inline ol_status_t ol_check_source(const ol_comm_t *comm, int rank, const char *arg)
{
    if (OL_LIKELY((rank >= 0 && rank < comm->size) || rank == MPI_ANY_SOURCE ||
                  rank == MPI_PROC_NULL))
        return MPI_SUCCESS;
    return ol_rank_error(comm, rank, arg);
}

static inline ol_status_t ol_check_root(const ol_comm_t *comm, int rank, const char *arg)
{
    if (OL_LIKELY(rank >= 0 && rank < comm->size))
        return MPI_SUCCESS;
    ol_api_set_detail("invalid root %d in argument %s (the size of %s is %d)", rank, arg, comm->name,
                      comm->size);
    return MPI_ERR_ROOT;
}

static inline ol_status_t ol_check_tag(int tag, const char *arg)
{
    if (OL_LIKELY(tag >= 0 && tag <= OL_TAG_UB))
        return MPI_SUCCESS;
    ol_api_set_detail("invalid tag %d in argument %s (tags go from 0 to MPI_TAG_UB = %d)", tag,
                      arg, OL_TAG_UB);
    return MPI_ERR_TAG;
}

static inline ol_status_t ol_check_recv_tag(int tag, const char *arg)
{
    return tag == MPI_ANY_TAG ? MPI_SUCCESS : ol_check_tag(tag, arg);
}

static inline ol_status_t ol_check_not_null(const void *ptr, const char *arg)
{
    if (OL_LIKELY(ptr != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is NULL", arg);
    return MPI_ERR_ARG;
}

#endif
