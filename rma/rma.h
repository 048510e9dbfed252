/* One-sided communication: windows, their operations and their
 * synchronisation; the interface the API layer calls (api/win.c).
 *
 * Every window has a private communicator (a duplicate of the one it was
 * made over, made and freed by the API layer) that carries all of its
 * traffic: operations, lock requests, replies. See README.md for the
 * protocol and its ordering argument. Functions return MPI error classes
 * and record a sentence with ol_error_detail on failure. */
#ifndef OL_RMA_H
#define OL_RMA_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_group.h"
#include "ol_op.h"
#include "request.h"

#define OL_WIN_MAGIC 0x6f6c776eU /* "olwn" */

struct ol_attr_list;
struct ol_info;
struct ol_rma_state;

typedef struct ol_win {
    uint32_t magic;
    int flavor;              /* MPI_WIN_FLAVOR_* */
    ol_comm_t *comm;         /* the private duplicate (the API layer's to free) */
    void *base;              /* this process's memory (NULL for dynamic windows) */
    MPI_Aint size;
    MPI_Aint disp_unit;
    int disp_unit_int;       /* what the MPI_WIN_DISP_UNIT attribute points to */
    /* The API layer's: what MPI_Win_get_* answer. */
    MPI_Errhandler errhandler;
    struct ol_attr_list *attrs;
    struct ol_info *info;
    char name[MPI_MAX_OBJECT_NAME];
    struct ol_rma_state *state; /* private to rma/ */
} ol_win_t;

ol_win_t *ol_win_from_handle(MPI_Win handle);
static inline MPI_Win ol_win_to_handle(ol_win_t *win)
{
    return (MPI_Win)win;
}

/* ---- windows --------------------------------------------------------------- */

/* The parameters of rma/ (RMA_SHARED_MEMORY, RMA_PROGRESS_US), loaded
 * before the runtime starts: with a progress thread, MPI runs at
 * MPI_THREAD_MULTIPLE inside. */
void ol_rma_params_load(void);
void ol_rma_params_print(FILE *out);
/* RMA_PROGRESS_US: 0, or the period of the progress thread. */
int ol_rma_progress_interval_us(void);
/* Stops the progress thread, if any (MPI_Finalize, before the runtime). */
void ol_rma_finalize(void);

/* What a window is made of; size and disp_unit are this process's. */
typedef struct {
    int flavor;         /* MPI_WIN_FLAVOR_* */
    void *base;         /* MPI_WIN_FLAVOR_CREATE: the program's memory */
    MPI_Aint size;
    MPI_Aint disp_unit;
    bool noncontig;     /* shared windows: alloc_shared_noncontig */
    bool unordered_accumulates; /* accumulate_ordering none */
} ol_win_spec_t;

/* Collective over comm, which the window keeps (the private duplicate).
 * Allocates the memory of MPI_Win_allocate and MPI_Win_allocate_shared
 * (every member of comm on this host, else MPI_ERR_RMA_SHARED). */
ol_status_t ol_rma_win_create(const ol_win_spec_t *spec, ol_comm_t *comm, ol_win_t **win);
/* MPI_ERR_RMA_SYNC while this process is in an epoch that needs closing
 * before the window is freed (a lock held, an access or exposure epoch
 * started); the API layer asks before it touches the window. */
ol_status_t ol_rma_win_can_free(ol_win_t *win);
/* Collective, once ol_rma_win_can_free said yes: waits until no process
 * has operations in flight on the window, then frees what
 * ol_rma_win_create made (not win->comm, nor the API layer's fields). */
ol_status_t ol_rma_win_free(ol_win_t *win);
/* Dynamic windows: memory the others may address by its address here. */
ol_status_t ol_rma_win_attach(ol_win_t *win, void *base, MPI_Aint size);
ol_status_t ol_rma_win_detach(ol_win_t *win, const void *base);
/* Where rank's memory of a shared window (or of any window whose memory
 * this process can load and store: rank itself) lies here. rank may be
 * MPI_PROC_NULL: the first with memory. */
ol_status_t ol_rma_shared_query(ol_win_t *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                void **base);

/* ---- operations ------------------------------------------------------------- */

typedef enum {
    OL_RMA_PUT,
    OL_RMA_GET,
    OL_RMA_ACCUMULATE,
    OL_RMA_GET_ACCUMULATE, /* also MPI_Fetch_and_op */
    OL_RMA_COMPARE_AND_SWAP,
} ol_rma_kind_t;

/* One operation as the standard names its arguments; unused fields are
 * zero. The origin buffer is read for puts and accumulates; the result
 * buffer receives what a get, get-accumulate or compare-and-swap reads. */
typedef struct {
    ol_rma_kind_t kind;
    const void *origin;
    MPI_Count origin_count;
    ol_datatype_t *origin_dt;
    void *result;
    MPI_Count result_count;
    ol_datatype_t *result_dt;
    const void *compare;
    int target;
    MPI_Aint target_disp;
    MPI_Count target_count;
    ol_datatype_t *target_dt;
    ol_op_t *op;
} ol_rma_op_t;

/* Issues an operation in the current epoch. request (NULL for the plain
 * forms) completes when the operation is complete at the origin: buffers
 * may be reused, results are in place. */
ol_status_t ol_rma_issue(ol_win_t *win, const ol_rma_op_t *op, ol_request_t **request);

/* ---- synchronisation ------------------------------------------------------- */

ol_status_t ol_rma_fence(ol_win_t *win, int assert);
ol_status_t ol_rma_post(ol_win_t *win, const ol_group_t *group, int assert);
ol_status_t ol_rma_start(ol_win_t *win, const ol_group_t *group, int assert);
ol_status_t ol_rma_complete(ol_win_t *win);
ol_status_t ol_rma_wait(ol_win_t *win);
ol_status_t ol_rma_test(ol_win_t *win, int *flag);
ol_status_t ol_rma_lock(ol_win_t *win, int lock_type, int rank, int assert);
ol_status_t ol_rma_unlock(ol_win_t *win, int rank);
ol_status_t ol_rma_lock_all(ol_win_t *win, int assert);
ol_status_t ol_rma_unlock_all(ol_win_t *win);
/* rank < 0: every rank. local: complete at the origin only. */
ol_status_t ol_rma_flush(ol_win_t *win, int rank, bool local);
ol_status_t ol_rma_sync(ol_win_t *win);

#endif
