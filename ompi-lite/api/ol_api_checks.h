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

static inline ol_status_t ol_check_win(MPI_Win handle, const char *arg, ol_win_t **win)
{
    *win = ol_win_from_handle(handle);
    if (OL_LIKELY(*win != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg, handle == MPI_WIN_NULL ? "MPI_WIN_NULL" : "not a valid window");
    return MPI_ERR_WIN;
}

static inline ol_status_t ol_check_file(MPI_File handle, const char *arg, ol_file_t **file)
{
    *file = ol_file_from_handle(handle);
    if (OL_LIKELY(*file != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg,
                      handle == MPI_FILE_NULL ? "MPI_FILE_NULL" : "not a valid file handle");
    return MPI_ERR_FILE;
}

static inline ol_status_t ol_check_session(MPI_Session handle, const char *arg,
                                           ol_session_t **session)
{
    *session = ol_session_from_handle(handle);
    if (OL_LIKELY(*session != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg,
                      handle == MPI_SESSION_NULL
                          ? "MPI_SESSION_NULL"
                          : "not a live session (finalized already, or never initialized)");
    return MPI_ERR_SESSION;
}

/* Any valid datatype: constructors and queries accept uncommitted ones;
 * ol_check_buffer requires commitment where data moves. */
static inline ol_status_t ol_check_datatype(MPI_Datatype handle, const char *arg,
                                            ol_datatype_t **dt)
{
    *dt = ol_dt_from_handle(handle);
    if (OL_LIKELY(*dt != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg,
                      handle == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                      : ol_dt_is_unsupported(handle)
                          ? "an optional type that the program's Fortran lacks, as it told "
                            "MPI_Abi_set_fortran_info"
                          : "not a valid datatype");
    return MPI_ERR_TYPE;
}

static inline ol_status_t ol_check_group(MPI_Group handle, const char *arg, ol_group_t **group)
{
    *group = ol_group_from_handle(handle);
    if (OL_LIKELY(*group != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg,
                      handle == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "not a valid group");
    return MPI_ERR_GROUP;
}

static inline ol_status_t ol_check_op(MPI_Op handle, const char *arg, ol_op_t **op)
{
    *op = ol_op_from_handle(handle);
    if (OL_LIKELY(*op != NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %s", arg, handle == MPI_OP_NULL ? "MPI_OP_NULL" : "not a valid operation");
    return MPI_ERR_OP;
}

static inline ol_status_t ol_check_count(MPI_Count count, const char *arg)
{
    if (OL_LIKELY(count >= 0))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %lld, a count must not be negative", arg, (long long)count);
    return MPI_ERR_COUNT;
}

/* No memory can lie in the first 64 KiB of an address space (Linux's
 * vm.mmap_min_addr): a NULL buffer whose data would begin there is a
 * forgotten allocation, not MPI_BOTTOM. */
#define OL_LOWEST_DATA_ADDRESS 65536

/* The datatype of data that moves must be committed. A NULL buffer is
 * MPI_BOTTOM, for data whose addresses are absolute: a datatype built from
 * MPI_Get_address values, or displacements (displ, bytes) that carry them;
 * data that would begin in the lowest 64 KiB is refused. */
static inline ol_status_t ol_check_buffer_at(const void *buf, MPI_Aint displ, MPI_Count count,
                                             const ol_datatype_t *dt, const char *arg)
{
    if (OL_UNLIKELY(!dt->committed)) {
        ol_api_set_detail("the datatype of %s (%s) is not committed", arg, dt->name);
        return MPI_ERR_TYPE;
    }
    uintptr_t first = (uintptr_t)(displ + dt->true_lb);
    if (OL_LIKELY(buf != NULL || count == 0 || dt->size == 0 || first >= OL_LOWEST_DATA_ADDRESS))
        return MPI_SUCCESS;
    ol_api_set_detail("%s is NULL (MPI_BOTTOM) and the data of its %lld elements of %s would "
                      "begin at address %p, where no memory can be",
                      arg, (long long)count, ol_dt_name(dt),
                      (void *)first);
    return MPI_ERR_BUFFER;
}

static inline ol_status_t ol_check_buffer(const void *buf, MPI_Count count,
                                          const ol_datatype_t *dt, const char *arg)
{
    return ol_check_buffer_at(buf, 0, count, dt, arg);
}

static inline ol_status_t ol_rank_error(const ol_comm_t *comm, int rank, const char *arg)
{
    ol_api_set_detail("invalid rank %d in argument %s (%s has %d %s)", rank, arg, comm->name,
                      comm->peer_size,
                      comm->remote_group ? "ranks in its remote group" : "ranks");
    return MPI_ERR_RANK;
}

static inline ol_status_t ol_check_dest(const ol_comm_t *comm, int rank, const char *arg)
{
    if (OL_LIKELY((rank >= 0 && rank < comm->peer_size) || rank == MPI_PROC_NULL))
        return MPI_SUCCESS;
    return ol_rank_error(comm, rank, arg);
}

static inline ol_status_t ol_check_source(const ol_comm_t *comm, int rank, const char *arg)
{
    if (OL_LIKELY((rank >= 0 && rank < comm->peer_size) || rank == MPI_ANY_SOURCE ||
                  rank == MPI_PROC_NULL))
        return MPI_SUCCESS;
    return ol_rank_error(comm, rank, arg);
}

/* On an intercommunicator the root is a rank of the remote group, or
 * MPI_ROOT / MPI_PROC_NULL in the root's own group. */
static inline ol_status_t ol_check_root(const ol_comm_t *comm, int rank, const char *arg)
{
    if (OL_LIKELY(rank >= 0 && rank < comm->peer_size))
        return MPI_SUCCESS;
    if (comm->remote_group && (rank == MPI_ROOT || rank == MPI_PROC_NULL))
        return MPI_SUCCESS;
    ol_api_set_detail("invalid root %d in argument %s (%s has %d ranks)", rank, arg, comm->name,
                      comm->peer_size);
    return MPI_ERR_ROOT;
}

/* Whether this process reads the root-only arguments of a rooted
 * collective: the root itself, or MPI_ROOT's side of an intercommunicator. */
static inline bool ol_api_is_root(const ol_comm_t *comm, int root)
{
    return comm->remote_group ? root == MPI_ROOT : comm->rank == root;
}

/* Whether this process reads the sending side's arguments of a rooted
 * collective: every process of an intracommunicator, the non-root group of
 * an intercommunicator (not MPI_ROOT, not MPI_PROC_NULL). */
static inline bool ol_api_is_sender(const ol_comm_t *comm, int root)
{
    return !comm->remote_group || root >= 0;
}

/* Whether this process takes part in a rooted collective at all: not when
 * it passes MPI_PROC_NULL on an intercommunicator. */
static inline bool ol_api_takes_part(const ol_comm_t *comm, int root)
{
    return !comm->remote_group || root != MPI_PROC_NULL;
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

/* An empty status (MPI 3.7.3: of a null or inactive request) is whole:
 * its MPI_ERROR says MPI_SUCCESS even where a call leaves that field alone
 * otherwise. No status of a message has MPI_ANY_SOURCE. */
static inline bool ol_api_status_is_empty(const MPI_Status *status)
{
    return status->MPI_SOURCE == MPI_ANY_SOURCE && status->MPI_TAG == MPI_ANY_TAG;
}

#endif
