/* Error handler objects: MPI_Comm_create_errhandler, MPI_Errhandler_free,
 * setting and getting a communicator's handler. How an error reaches the
 * handler is in errors.c (ol_api_raise). */
#include "gen_impl.h"
#include "handles.h"
#include "ol_errhandler.h"

#include <stdlib.h>

#define OL_ERRHANDLER_MAGIC 0x6f6c6568U /* "oleh" */

/* A user handler is made for one kind of object, and may be set only on
 * objects of that kind. */
typedef enum { FOR_COMM, FOR_WIN, FOR_SESSION, FOR_FILE } handler_kind_t;

typedef struct {
    uint32_t magic;
    int refcount; /* the user's handle(s) and every object it is set on */
    handler_kind_t kind;
    MPI_Comm_errhandler_function *comm_fn;
    MPI_Win_errhandler_function *win_fn;
    MPI_Session_errhandler_function *session_fn;
    MPI_File_errhandler_function *file_fn;
} errhandler_t;

bool ol_errhandler_is_predefined(MPI_Errhandler handler)
{
    return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_ABORT ||
           handler == MPI_ERRORS_RETURN;
}

/* NULL for a predefined handler, MPI_ERRHANDLER_NULL and anything that is
 * no live user handler. */
static errhandler_t *user_handler(MPI_Errhandler handle)
{
    if ((uintptr_t)handle < 4096)
        return NULL;
    errhandler_t *h = (errhandler_t *)handle;
    return h->magic == OL_ERRHANDLER_MAGIC ? h : NULL;
}

void ol_errhandler_retain(MPI_Errhandler handler)
{
    errhandler_t *h = user_handler(handler);
    if (h)
        __atomic_add_fetch(&h->refcount, 1, __ATOMIC_RELAXED);
}

void ol_errhandler_release(MPI_Errhandler handler)
{
    errhandler_t *h = user_handler(handler);
    if (!h || __atomic_sub_fetch(&h->refcount, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    ol_handle_forget(h);
    h->magic = 0;
    free(h);
}

bool ol_errhandler_fits_comm(MPI_Errhandler handler)
{
    errhandler_t *h = user_handler(handler);
    return ol_errhandler_is_predefined(handler) || (h && h->kind == FOR_COMM);
}

bool ol_errhandler_fits_win(MPI_Errhandler handler)
{
    errhandler_t *h = user_handler(handler);
    return ol_errhandler_is_predefined(handler) || (h && h->kind == FOR_WIN);
}

bool ol_errhandler_fits_session(MPI_Errhandler handler)
{
    errhandler_t *h = user_handler(handler);
    return ol_errhandler_is_predefined(handler) || (h && h->kind == FOR_SESSION);
}

bool ol_errhandler_fits_file(MPI_Errhandler handler)
{
    errhandler_t *h = user_handler(handler);
    return ol_errhandler_is_predefined(handler) || (h && h->kind == FOR_FILE);
}

int ol_errhandler_call_file(MPI_Errhandler handler, MPI_File file, int code)
{
    errhandler_t *h = user_handler(handler);
    ol_errhandler_retain(handler);
    h->file_fn(&file, &code);
    ol_errhandler_release(handler);
    return code;
}

int ol_errhandler_call_comm(MPI_Errhandler handler, MPI_Comm comm, int code)
{
    /* The handler may free the handle it was called through: the call
     * holds its own reference meanwhile. */
    errhandler_t *h = user_handler(handler);
    ol_errhandler_retain(handler);
    h->comm_fn(&comm, &code);
    ol_errhandler_release(handler);
    return code;
}

int ol_errhandler_call_win(MPI_Errhandler handler, MPI_Win win, int code)
{
    errhandler_t *h = user_handler(handler);
    ol_errhandler_retain(handler);
    h->win_fn(&win, &code);
    ol_errhandler_release(handler);
    return code;
}

int ol_errhandler_call_session(MPI_Errhandler handler, MPI_Session session, int code)
{
    errhandler_t *h = user_handler(handler);
    ol_errhandler_retain(handler);
    h->session_fn(&session, &code);
    ol_errhandler_release(handler);
    return code;
}

/* A new handler of kind, with the function of that kind set in *fns. */
static int create_handler(handler_kind_t kind, const errhandler_t *fns, MPI_Errhandler *errhandler)
{
    errhandler_t *h = malloc(sizeof(*h));
    if (!h) {
        ol_api_set_detail("out of memory for an error handler");
        return MPI_ERR_NO_MEM;
    }
    *h = *fns;
    h->magic = OL_ERRHANDLER_MAGIC;
    h->refcount = 1;
    h->kind = kind;
    *errhandler = (MPI_Errhandler)h;
    return MPI_SUCCESS;
}

int ol_api_comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    if (!comm_errhandler_fn) {
        ol_api_set_detail("comm_errhandler_fn is NULL");
        return MPI_ERR_ARG;
    }
    return create_handler(FOR_COMM, &(errhandler_t){.comm_fn = comm_errhandler_fn}, errhandler);
}

int ol_api_file_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    if (!file_errhandler_fn) {
        ol_api_set_detail("file_errhandler_fn is NULL");
        return MPI_ERR_ARG;
    }
    return create_handler(FOR_FILE, &(errhandler_t){.file_fn = file_errhandler_fn}, errhandler);
}

int ol_api_win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                                 MPI_Errhandler *errhandler)
{
    if (!win_errhandler_fn) {
        ol_api_set_detail("win_errhandler_fn is NULL");
        return MPI_ERR_ARG;
    }
    return create_handler(FOR_WIN, &(errhandler_t){.win_fn = win_errhandler_fn}, errhandler);
}

int ol_api_session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                     MPI_Errhandler *errhandler)
{
    if (!session_errhandler_fn) {
        ol_api_set_detail("session_errhandler_fn is NULL");
        return MPI_ERR_ARG;
    }
    return create_handler(FOR_SESSION, &(errhandler_t){.session_fn = session_errhandler_fn},
                          errhandler);
}

/* A predefined handler may be freed too: MPI_Comm_get_errhandler returns
 * handles that the program frees whatever they are. */
int ol_api_errhandler_free(MPI_Errhandler *errhandler)
{
    if (!ol_errhandler_is_predefined(*errhandler) && !user_handler(*errhandler)) {
        ol_api_set_detail("errhandler is %s", *errhandler == MPI_ERRHANDLER_NULL
                                                  ? "MPI_ERRHANDLER_NULL"
                                                  : "not a valid error handler");
        return MPI_ERR_ERRHANDLER;
    }
    ol_errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int ol_api_comm_set_errhandler(ol_comm_t *comm, MPI_Errhandler errhandler)
{
    if (!ol_errhandler_fits_comm(errhandler)) {
        ol_api_set_detail("errhandler is not a valid error handler for a communicator");
        return MPI_ERR_ERRHANDLER;
    }
    ol_errhandler_retain(errhandler);
    ol_errhandler_release(comm->errhandler);
    comm->errhandler = errhandler;
    return MPI_SUCCESS;
}

/* A new reference: the program frees it with MPI_Errhandler_free. */
int ol_api_comm_get_errhandler(ol_comm_t *comm, MPI_Errhandler *errhandler)
{
    ol_errhandler_retain(comm->errhandler);
    *errhandler = comm->errhandler;
    return MPI_SUCCESS;
}
