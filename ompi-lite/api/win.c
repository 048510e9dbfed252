/* One-sided communication (MPI-4.1 chapter 12): window objects, their
 * names, hints and error handlers, and the calls that rma/ carries out.
 * Attributes of windows are in attr.c, their error handlers' creation in
 * errhandler.c. */
#include "comm_internal.h"
#include "gen_impl.h"
#include "handles.h"
#include "ol_attr.h"
#include "ol_errhandler.h"
#include "ol_info.h"

#include <stdlib.h>
#include <string.h>

/* ---- hints ------------------------------------------------------------------ */

/* The window hints of the standard and what ompi-lite does when a program
 * gives none (MPI-4.1 12.2.1): MPI_Win_get_info returns these, with the
 * program's values where it gave them. */
static const struct {
    const char *key, *value;
} window_hints[] = {
    {"no_locks", "false"},
    {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"},
    {"same_size", "false"},
    {"same_disp_unit", "false"},
    {"mpi_accumulate_granularity", "0"},
    {"alloc_shared_noncontig", "false"},
};

static ol_status_t keep_hints(ol_win_t *win, const ol_info_t *given)
{
    ol_info_t *info = win->info ? win->info : ol_info_create();
    for (size_t i = 0; info && i < sizeof window_hints / sizeof window_hints[0]; i++) {
        const char *value = given ? ol_info_get_value(given, window_hints[i].key) : NULL;
        if (!value && ol_info_get_value(info, window_hints[i].key))
            continue;
        if (ol_info_set(info, window_hints[i].key, value ? value : window_hints[i].value) !=
            MPI_SUCCESS) {
            if (!win->info)
                ol_info_release(info);
            info = NULL;
        }
    }
    if (!info) {
        ol_api_set_detail("out of memory for a window's hints");
        return MPI_ERR_NO_MEM;
    }
    win->info = info;
    return MPI_SUCCESS;
}

static bool hint_is_true(const ol_info_t *hints, const char *key)
{
    const char *value = hints ? ol_info_get_value(hints, key) : NULL;
    return value && strcmp(value, "true") == 0;
}

/* ---- creation ------------------------------------------------------------------ */

static ol_status_t check_window_args(ol_comm_t *comm, MPI_Aint size, MPI_Aint disp_unit)
{
    if (ol_comm_is_inter(comm)) {
        ol_api_set_detail("comm is an intercommunicator: windows need an intracommunicator");
        return MPI_ERR_COMM;
    }
    if (size < 0) {
        ol_api_set_detail("size is %lld, negative", (long long)size);
        return MPI_ERR_SIZE;
    }
    if (disp_unit <= 0) {
        ol_api_set_detail("disp_unit is %lld, not positive", (long long)disp_unit);
        return MPI_ERR_DISP;
    }
    return MPI_SUCCESS;
}

/* Makes the window over a private duplicate of comm. Collective: every
 * process gets here, also one whose own arguments are wrong, so that the
 * others are not left waiting. */
static int make_window(ol_win_spec_t *spec, MPI_Info info, ol_comm_t *comm, MPI_Win *win)
{
    *win = MPI_WIN_NULL;
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (spec->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        rc = check_window_args(comm, spec->size, spec->disp_unit);
        if (rc != MPI_SUCCESS)
            return rc;
    } else if (ol_comm_is_inter(comm)) {
        return check_window_args(comm, 0, 1);
    }
    spec->noncontig = hint_is_true(hints, "alloc_shared_noncontig");
    const char *ordering = hints ? ol_info_get_value(hints, "accumulate_ordering") : NULL;
    spec->unordered_accumulates = ordering && strcmp(ordering, "none") == 0;
    ol_comm_t *dup;
    rc = ol_comm_dup_private(comm, &dup);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_win_t *w;
    rc = ol_rma_win_create(spec, dup, &w);
    if (rc != MPI_SUCCESS) {
        ol_comm_free_private(dup);
        return rc;
    }
    w->errhandler = comm->errhandler;
    ol_errhandler_retain(w->errhandler);
    rc = keep_hints(w, hints);
    if (rc != MPI_SUCCESS) {
        MPI_Win handle = ol_win_to_handle(w);
        ol_api_win_free(&handle);
        return rc;
    }
    *win = ol_win_to_handle(w);
    return MPI_SUCCESS;
}

int ol_api_win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                        ol_comm_t *comm, MPI_Win *win)
{
    ol_win_spec_t spec = {.flavor = MPI_WIN_FLAVOR_CREATE, .base = base, .size = size,
                          .disp_unit = disp_unit};
    return make_window(&spec, info, comm, win);
}

int ol_api_win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, ol_comm_t *comm,
                          void *baseptr, MPI_Win *win)
{
    ol_win_spec_t spec = {.flavor = MPI_WIN_FLAVOR_ALLOCATE, .size = size,
                          .disp_unit = disp_unit};
    int rc = make_window(&spec, info, comm, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = ol_win_from_handle(*win)->base;
    return rc;
}

int ol_api_win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                                 ol_comm_t *comm, void *baseptr, MPI_Win *win)
{
    ol_win_spec_t spec = {.flavor = MPI_WIN_FLAVOR_SHARED, .size = size,
                          .disp_unit = disp_unit};
    int rc = make_window(&spec, info, comm, win);
    if (rc == MPI_SUCCESS)
        *(void **)baseptr = ol_win_from_handle(*win)->base;
    return rc;
}

/* The int forms of the three above: disp_unit widens to MPI_Aint, which
 * the generator does not pair by itself (it pairs int with MPI_Count). */
int ol_api_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, ol_comm_t *comm,
                      MPI_Win *win)
{
    return ol_api_win_create_c(base, size, disp_unit, info, comm, win);
}

int ol_api_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, ol_comm_t *comm,
                        void *baseptr, MPI_Win *win)
{
    return ol_api_win_allocate_c(size, disp_unit, info, comm, baseptr, win);
}

int ol_api_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, ol_comm_t *comm,
                               void *baseptr, MPI_Win *win)
{
    return ol_api_win_allocate_shared_c(size, disp_unit, info, comm, baseptr, win);
}

int ol_api_win_create_dynamic(MPI_Info info, ol_comm_t *comm, MPI_Win *win)
{
    ol_win_spec_t spec = {.flavor = MPI_WIN_FLAVOR_DYNAMIC, .disp_unit = 1};
    return make_window(&spec, info, comm, win);
}

int ol_api_win_free(MPI_Win *win)
{
    ol_win_t *w = ol_win_from_handle(*win);
    if (!w) {
        ol_api_set_detail("win is %s", *win == MPI_WIN_NULL ? "MPI_WIN_NULL"
                                                            : "not a valid window");
        return MPI_ERR_WIN;
    }
    /* A window still in an epoch stays whole, attributes included. */
    int rc = ol_rma_win_can_free(w);
    if (rc == MPI_SUCCESS)
        rc = ol_attr_delete_all_win(w);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_comm_t *comm = w->comm;
    rc = ol_rma_win_free(w);
    ol_comm_free_private(comm);
    ol_errhandler_release(w->errhandler);
    if (w->info)
        ol_info_release(w->info);
    ol_handle_forget(w);
    free(w);
    *win = MPI_WIN_NULL;
    return rc;
}

int ol_api_win_attach(ol_win_t *win, void *base, MPI_Aint size)
{
    if (size < 0) {
        ol_api_set_detail("size is %lld, negative", (long long)size);
        return MPI_ERR_SIZE;
    }
    return ol_rma_win_attach(win, base, size);
}

int ol_api_win_detach(ol_win_t *win, const void *base)
{
    return ol_rma_win_detach(win, base);
}

static int check_query_rank(ol_win_t *win, int rank)
{
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < win->comm->size))
        return MPI_SUCCESS;
    ol_api_set_detail("rank %d is not a rank of the window's group (size %d)", rank,
                      win->comm->size);
    return MPI_ERR_RANK;
}

int ol_api_win_shared_query_c(ol_win_t *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                              void *baseptr)
{
    int rc = check_query_rank(win, rank);
    return rc != MPI_SUCCESS ? rc
                             : ol_rma_shared_query(win, rank, size, disp_unit, (void **)baseptr);
}

int ol_api_win_shared_query(ol_win_t *win, int rank, MPI_Aint *size, int *disp_unit,
                            void *baseptr)
{
    MPI_Aint unit;
    int rc = ol_api_win_shared_query_c(win, rank, size, &unit, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)unit;
    return rc;
}

/* ---- names, hints, groups, error handlers --------------------------------------------- */

int ol_api_win_set_name(ol_win_t *win, const char *win_name)
{
    if (!win_name) {
        ol_api_set_detail("win_name is NULL");
        return MPI_ERR_ARG;
    }
    snprintf(win->name, sizeof(win->name), "%s", win_name);
    return MPI_SUCCESS;
}

int ol_api_win_get_name(ol_win_t *win, char *win_name, int *resultlen)
{
    if (!win_name) {
        ol_api_set_detail("win_name is NULL");
        return MPI_ERR_ARG;
    }
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    return MPI_SUCCESS;
}

int ol_api_win_set_info(ol_win_t *win, MPI_Info info)
{
    const ol_info_t *hints = ol_info_from_handle(info);
    if (!hints) {
        ol_api_set_detail("info is %s",
                          info == MPI_INFO_NULL ? "MPI_INFO_NULL" : "not a valid info object");
        return MPI_ERR_INFO;
    }
    return keep_hints(win, hints);
}

int ol_api_win_get_info(ol_win_t *win, MPI_Info *info_used)
{
    ol_info_t *copy = ol_info_dup(win->info);
    if (!copy) {
        ol_api_set_detail("out of memory for an info object");
        return MPI_ERR_NO_MEM;
    }
    *info_used = ol_info_to_handle(copy);
    return MPI_SUCCESS;
}

int ol_api_win_get_group(ol_win_t *win, MPI_Group *group)
{
    ol_group_retain(win->comm->group);
    *group = ol_group_to_handle(win->comm->group);
    return MPI_SUCCESS;
}

int ol_api_win_set_errhandler(ol_win_t *win, MPI_Errhandler errhandler)
{
    if (!ol_errhandler_fits_win(errhandler)) {
        ol_api_set_detail("errhandler is not a valid error handler for a window");
        return MPI_ERR_ERRHANDLER;
    }
    ol_errhandler_retain(errhandler);
    ol_errhandler_release(win->errhandler);
    win->errhandler = errhandler;
    return MPI_SUCCESS;
}

/* A new reference: the program frees it with MPI_Errhandler_free. */
int ol_api_win_get_errhandler(ol_win_t *win, MPI_Errhandler *errhandler)
{
    ol_errhandler_retain(win->errhandler);
    *errhandler = win->errhandler;
    return MPI_SUCCESS;
}

/* ---- operations ----------------------------------------------------------------------- */

static int put_or_get(ol_rma_kind_t kind, void *origin, MPI_Count origin_count,
                      ol_datatype_t *origin_dt, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, ol_datatype_t *target_dt, ol_win_t *win,
                      MPI_Request *request)
{
    ol_rma_op_t op = {.kind = kind, .target = target_rank, .target_disp = target_disp,
                      .target_count = target_count, .target_dt = target_dt};
    if (kind == OL_RMA_PUT) {
        op.origin = origin;
        op.origin_count = origin_count;
        op.origin_dt = origin_dt;
    } else {
        op.result = origin;
        op.result_count = origin_count;
        op.result_dt = origin_dt;
    }
    ol_request_t *req;
    int rc = ol_rma_issue(win, &op, request ? &req : NULL);
    if (rc == MPI_SUCCESS && request)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_put_c(const void *origin_addr, MPI_Count origin_count, ol_datatype_t *origin_datatype,
                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                 ol_datatype_t *target_datatype, ol_win_t *win)
{
    return put_or_get(OL_RMA_PUT, (void *)origin_addr, origin_count, origin_datatype,
                      target_rank, target_disp, target_count, target_datatype, win, NULL);
}

int ol_api_rput_c(const void *origin_addr, MPI_Count origin_count, ol_datatype_t *origin_datatype,
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                  ol_datatype_t *target_datatype, ol_win_t *win, MPI_Request *request)
{
    return put_or_get(OL_RMA_PUT, (void *)origin_addr, origin_count, origin_datatype,
                      target_rank, target_disp, target_count, target_datatype, win, request);
}

int ol_api_get_c(void *origin_addr, MPI_Count origin_count, ol_datatype_t *origin_datatype,
                 int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                 ol_datatype_t *target_datatype, ol_win_t *win)
{
    return put_or_get(OL_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank,
                      target_disp, target_count, target_datatype, win, NULL);
}

int ol_api_rget_c(void *origin_addr, MPI_Count origin_count, ol_datatype_t *origin_datatype,
                  int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                  ol_datatype_t *target_datatype, ol_win_t *win, MPI_Request *request)
{
    return put_or_get(OL_RMA_GET, origin_addr, origin_count, origin_datatype, target_rank,
                      target_disp, target_count, target_datatype, win, request);
}

static int issue(const ol_rma_op_t *op, ol_win_t *win, MPI_Request *request)
{
    ol_request_t *req;
    int rc = ol_rma_issue(win, op, request ? &req : NULL);
    if (rc == MPI_SUCCESS && request)
        *request = ol_request_to_handle(req);
    return rc;
}

int ol_api_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                        ol_datatype_t *origin_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Count target_count, ol_datatype_t *target_datatype, ol_op_t *op,
                        ol_win_t *win)
{
    ol_rma_op_t a = {.kind = OL_RMA_ACCUMULATE, .origin = origin_addr,
                     .origin_count = origin_count, .origin_dt = origin_datatype,
                     .target = target_rank, .target_disp = target_disp,
                     .target_count = target_count, .target_dt = target_datatype, .op = op};
    return issue(&a, win, NULL);
}

int ol_api_raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                         ol_datatype_t *origin_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, ol_datatype_t *target_datatype, ol_op_t *op,
                         ol_win_t *win, MPI_Request *request)
{
    ol_rma_op_t a = {.kind = OL_RMA_ACCUMULATE, .origin = origin_addr,
                     .origin_count = origin_count, .origin_dt = origin_datatype,
                     .target = target_rank, .target_disp = target_disp,
                     .target_count = target_count, .target_dt = target_datatype, .op = op};
    return issue(&a, win, request);
}

int ol_api_get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                            ol_datatype_t *origin_datatype, void *result_addr,
                            MPI_Count result_count, ol_datatype_t *result_datatype,
                            int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                            ol_datatype_t *target_datatype, ol_op_t *op, ol_win_t *win)
{
    ol_rma_op_t a = {.kind = OL_RMA_GET_ACCUMULATE, .origin = origin_addr,
                     .origin_count = origin_count, .origin_dt = origin_datatype,
                     .result = result_addr, .result_count = result_count,
                     .result_dt = result_datatype, .target = target_rank,
                     .target_disp = target_disp, .target_count = target_count,
                     .target_dt = target_datatype, .op = op};
    return issue(&a, win, NULL);
}

int ol_api_rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                             ol_datatype_t *origin_datatype, void *result_addr,
                             MPI_Count result_count, ol_datatype_t *result_datatype,
                             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                             ol_datatype_t *target_datatype, ol_op_t *op, ol_win_t *win,
                             MPI_Request *request)
{
    ol_rma_op_t a = {.kind = OL_RMA_GET_ACCUMULATE, .origin = origin_addr,
                     .origin_count = origin_count, .origin_dt = origin_datatype,
                     .result = result_addr, .result_count = result_count,
                     .result_dt = result_datatype, .target = target_rank,
                     .target_disp = target_disp, .target_count = target_count,
                     .target_dt = target_datatype, .op = op};
    return issue(&a, win, request);
}

int ol_api_fetch_and_op(const void *origin_addr, void *result_addr, ol_datatype_t *datatype,
                        int target_rank, MPI_Aint target_disp, ol_op_t *op, ol_win_t *win)
{
    ol_rma_op_t a = {.kind = OL_RMA_GET_ACCUMULATE, .origin = origin_addr, .origin_count = 1,
                     .origin_dt = datatype, .result = result_addr, .result_count = 1,
                     .result_dt = datatype, .target = target_rank, .target_disp = target_disp,
                     .target_count = 1, .target_dt = datatype, .op = op};
    return issue(&a, win, NULL);
}

int ol_api_compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                            ol_datatype_t *datatype, int target_rank, MPI_Aint target_disp,
                            ol_win_t *win)
{
    ol_rma_op_t a = {.kind = OL_RMA_COMPARE_AND_SWAP, .origin = origin_addr, .origin_count = 1,
                     .origin_dt = datatype, .compare = compare_addr, .result = result_addr,
                     .result_count = 1, .result_dt = datatype, .target = target_rank,
                     .target_disp = target_disp, .target_count = 1, .target_dt = datatype};
    return issue(&a, win, NULL);
}

/* ---- synchronisation ------------------------------------------------------------------- */

int ol_api_win_fence(int assert, ol_win_t *win)
{
    return ol_rma_fence(win, assert);
}

int ol_api_win_post(ol_group_t *group, int assert, ol_win_t *win)
{
    return ol_rma_post(win, group, assert);
}

int ol_api_win_start(ol_group_t *group, int assert, ol_win_t *win)
{
    return ol_rma_start(win, group, assert);
}

int ol_api_win_complete(ol_win_t *win)
{
    return ol_rma_complete(win);
}

int ol_api_win_wait(ol_win_t *win)
{
    return ol_rma_wait(win);
}

int ol_api_win_test(ol_win_t *win, int *flag)
{
    return ol_rma_test(win, flag);
}

int ol_api_win_lock(int lock_type, int rank, int assert, ol_win_t *win)
{
    return ol_rma_lock(win, lock_type, rank, assert);
}

int ol_api_win_unlock(int rank, ol_win_t *win)
{
    return ol_rma_unlock(win, rank);
}

int ol_api_win_lock_all(int assert, ol_win_t *win)
{
    return ol_rma_lock_all(win, assert);
}

int ol_api_win_unlock_all(ol_win_t *win)
{
    return ol_rma_unlock_all(win);
}

/* A rank of the window's group, for the flushes; with MPI_PROC_NULL a
 * flush, like a lock, does nothing, as the standard says. */
static int check_flush_rank(ol_win_t *win, int rank)
{
    if (rank >= 0 && rank < win->comm->size)
        return MPI_SUCCESS;
    ol_api_set_detail("rank %d is not a rank of the window's group (size %d)", rank,
                      win->comm->size);
    return MPI_ERR_RANK;
}

int ol_api_win_flush(int rank, ol_win_t *win)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = check_flush_rank(win, rank);
    return rc != MPI_SUCCESS ? rc : ol_rma_flush(win, rank, false);
}

int ol_api_win_flush_local(int rank, ol_win_t *win)
{
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int rc = check_flush_rank(win, rank);
    return rc != MPI_SUCCESS ? rc : ol_rma_flush(win, rank, true);
}

int ol_api_win_flush_all(ol_win_t *win)
{
    return ol_rma_flush(win, -1, false);
}

int ol_api_win_flush_local_all(ol_win_t *win)
{
    return ol_rma_flush(win, -1, true);
}

int ol_api_win_sync(ol_win_t *win)
{
    return ol_rma_sync(win);
}
