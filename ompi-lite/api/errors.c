/* Error classes, their strings, the classes and codes a program adds, and
 * the error path of every binding: the detail sentence a check records and
 * the handler that reports it. */
#include "gen_impl.h"
#include "ol_errhandler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const class_strings[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count argument",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimension argument",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument of some other kind",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated on receive",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: known error not in this list",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: error in a data conversion function",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already registered",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use by another process",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: info key too long",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: info value too long",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_IO] = "MPI_ERR_IO: input/output error",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: service name not published",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: file does not exist",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting accesses to a window",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong synchronization of RMA calls",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service name",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size argument",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: error spawning processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: a peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large for its output",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_ERR_ABI] = "MPI_ERR_ABI: ABI mismatch",
};

static const char *const tool_strings[] = {
    [MPI_T_ERR_CANNOT_INIT - 1000] = "MPI_T_ERR_CANNOT_INIT: the tool interface cannot start",
    [MPI_T_ERR_NOT_ACCESSIBLE - 1000] = "MPI_T_ERR_NOT_ACCESSIBLE: not accessible now",
    [MPI_T_ERR_NOT_INITIALIZED - 1000] = "MPI_T_ERR_NOT_INITIALIZED: tool interface not started",
    [MPI_T_ERR_NOT_SUPPORTED - 1000] = "MPI_T_ERR_NOT_SUPPORTED: not supported",
    [MPI_T_ERR_MEMORY - 1000] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_INVALID - 1000] = "MPI_T_ERR_INVALID: invalid use of the tool interface",
    [MPI_T_ERR_INVALID_INDEX - 1000] = "MPI_T_ERR_INVALID_INDEX: invalid index",
    [MPI_T_ERR_INVALID_ITEM - 1000] = "MPI_T_ERR_INVALID_ITEM: invalid item",
    [MPI_T_ERR_INVALID_SESSION - 1000] = "MPI_T_ERR_INVALID_SESSION: invalid session",
    [MPI_T_ERR_INVALID_HANDLE - 1000] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    [MPI_T_ERR_INVALID_NAME - 1000] = "MPI_T_ERR_INVALID_NAME: invalid name",
    [MPI_T_ERR_OUT_OF_HANDLES - 1000] = "MPI_T_ERR_OUT_OF_HANDLES: no more handles",
    [MPI_T_ERR_OUT_OF_SESSIONS - 1000] = "MPI_T_ERR_OUT_OF_SESSIONS: no more sessions",
    [MPI_T_ERR_CVAR_SET_NOT_NOW - 1000] = "MPI_T_ERR_CVAR_SET_NOT_NOW: cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER - 1000] = "MPI_T_ERR_CVAR_SET_NEVER: can never be set",
    [MPI_T_ERR_PVAR_NO_WRITE - 1000] = "MPI_T_ERR_PVAR_NO_WRITE: cannot be written",
    [MPI_T_ERR_PVAR_NO_STARTSTOP - 1000] = "MPI_T_ERR_PVAR_NO_STARTSTOP: cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_ATOMIC - 1000] = "MPI_T_ERR_PVAR_NO_ATOMIC: cannot be read and reset atomically",
};

/* NULL for a code that is no predefined error class. */
static const char *class_string(int code)
{
    if (code >= 0 && (size_t)code < OL_ARRAY_SIZE(class_strings))
        return class_strings[code];
    if (code > 1000 && (size_t)(code - 1000) < OL_ARRAY_SIZE(tool_strings))
        return tool_strings[code - 1000];
    return NULL;
}

/* ---- classes and codes the program adds ---------------------------------- */

/* They take the values after MPI_ERR_LASTCODE in order and are never
 * reused, so a removed value cannot come back meaning something else;
 * MPI_LASTUSEDCODE is the last value given. */
#define FIRST_ADDED (MPI_ERR_LASTCODE + 1)

typedef struct {
    bool used;
    bool is_class;
    int error_class; /* its own value for a class */
    char *string;    /* MPI_Add_error_string's; NULL: none */
} added_t;

static pthread_mutex_t added_lock = PTHREAD_MUTEX_INITIALIZER;
static added_t *added;
static int nadded, added_capacity;
static int last_used_code = MPI_ERR_LASTCODE;

const int *ol_error_last_used_code(void)
{
    return &last_used_code;
}

/* The entry of a live added class or code, or NULL; added_lock held. */
static added_t *added_entry(int code)
{
    if (code < FIRST_ADDED || code - FIRST_ADDED >= nadded)
        return NULL;
    added_t *a = &added[code - FIRST_ADDED];
    return a->used ? a : NULL;
}

/* The class of code, or -1 when it is no class or code. */
static int class_of(int code)
{
    if (class_string(code))
        return code;
    pthread_mutex_lock(&added_lock);
    const added_t *a = added_entry(code);
    int error_class = a ? a->error_class : -1;
    pthread_mutex_unlock(&added_lock);
    return error_class;
}

/* Writes code's string (empty for an added code without one) into text;
 * false when code is no class or code. */
static bool describe(int code, char *text, size_t size)
{
    const char *predefined = class_string(code);
    if (predefined) {
        snprintf(text, size, "%s", predefined);
        return true;
    }
    pthread_mutex_lock(&added_lock);
    const added_t *a = added_entry(code);
    if (a)
        snprintf(text, size, "%s", a->string ? a->string : "");
    pthread_mutex_unlock(&added_lock);
    return a != NULL;
}

static int add(bool is_class, int error_class, int *code)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&added_lock);
    if (nadded == added_capacity) {
        int capacity = added_capacity ? 2 * added_capacity : 16;
        added_t *grown = realloc(added, sizeof(*grown) * (size_t)capacity);
        if (grown) {
            added = grown;
            added_capacity = capacity;
        } else {
            ol_api_set_detail("out of memory for a new error class or code");
            rc = MPI_ERR_NO_MEM;
        }
    }
    if (rc == MPI_SUCCESS) {
        int value = FIRST_ADDED + nadded;
        added[nadded++] = (added_t){.used = true, .is_class = is_class,
                                    .error_class = is_class ? value : error_class};
        __atomic_store_n(&last_used_code, value, __ATOMIC_RELAXED);
        *code = value;
    }
    pthread_mutex_unlock(&added_lock);
    return rc;
}

int ol_api_add_error_class(int *errorclass)
{
    return add(true, 0, errorclass);
}

int ol_api_add_error_code(int errorclass, int *errorcode)
{
    if (class_of(errorclass) != errorclass) {
        ol_api_set_detail("errorclass %d is not an error class", errorclass);
        return MPI_ERR_ARG;
    }
    return add(false, errorclass, errorcode);
}

enum added_kind { ADDED_ANY, ADDED_CLASS, ADDED_CODE };

/* The entry of an added class or code of that kind, with added_lock held;
 * NULL, unlocked, with the detail saying why, when there is none. */
static added_t *lock_added(int code, enum added_kind kind)
{
    static const char *const names[] = {"error class or code", "error class", "error code"};
    pthread_mutex_lock(&added_lock);
    added_t *a = added_entry(code);
    if (a && (kind == ADDED_ANY || a->is_class == (kind == ADDED_CLASS)))
        return a;
    pthread_mutex_unlock(&added_lock);
    ol_api_set_detail("%d is not an %s added by the program", code, names[kind]);
    return NULL;
}

int ol_api_add_error_string(int errorcode, const char *string)
{
    if (!string || strlen(string) >= MPI_MAX_ERROR_STRING) {
        ol_api_set_detail("string is %s", string ? "longer than MPI_MAX_ERROR_STRING - 1" : "NULL");
        return MPI_ERR_ARG;
    }
    char *copy = strdup(string);
    if (!copy) {
        ol_api_set_detail("out of memory for an error string");
        return MPI_ERR_NO_MEM;
    }
    added_t *a = lock_added(errorcode, ADDED_ANY);
    if (!a) {
        free(copy);
        return MPI_ERR_ARG;
    }
    free(a->string);
    a->string = copy;
    pthread_mutex_unlock(&added_lock);
    return MPI_SUCCESS;
}

static void remove_entry(added_t *a)
{
    free(a->string);
    *a = (added_t){.used = false};
}

int ol_api_remove_error_class(int errorclass)
{
    added_t *a = lock_added(errorclass, ADDED_CLASS);
    if (!a)
        return MPI_ERR_ARG;
    for (int i = 0; i < nadded; i++)
        if (added[i].used && !added[i].is_class && added[i].error_class == errorclass) {
            pthread_mutex_unlock(&added_lock);
            ol_api_set_detail("error class %d still has error code %d", errorclass,
                              FIRST_ADDED + i);
            return MPI_ERR_ARG;
        }
    remove_entry(a);
    pthread_mutex_unlock(&added_lock);
    return MPI_SUCCESS;
}

int ol_api_remove_error_code(int errorcode)
{
    added_t *a = lock_added(errorcode, ADDED_CODE);
    if (!a)
        return MPI_ERR_ARG;
    remove_entry(a);
    pthread_mutex_unlock(&added_lock);
    return MPI_SUCCESS;
}

int ol_api_remove_error_string(int errorcode)
{
    added_t *a = lock_added(errorcode, ADDED_ANY);
    if (!a)
        return MPI_ERR_ARG;
    bool had = a->string != NULL;
    free(a->string);
    a->string = NULL;
    pthread_mutex_unlock(&added_lock);
    if (!had) {
        ol_api_set_detail("errorcode %d has no string to remove", errorcode);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

/* ---- queries ----------------------------------------------------------------- */

int ol_api_error_string(int errorcode, char *string, int *resultlen)
{
    if (!string) {
        ol_api_set_detail("string is NULL");
        return MPI_ERR_ARG;
    }
    if (!describe(errorcode, string, MPI_MAX_ERROR_STRING)) {
        ol_api_set_detail("errorcode %d is not an error class or code", errorcode);
        return MPI_ERR_ARG;
    }
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

int ol_api_error_class(int errorcode, int *errorclass)
{
    int error_class = class_of(errorcode);
    if (error_class < 0) {
        ol_api_set_detail("errorcode %d is not an error class or code", errorcode);
        return MPI_ERR_ARG;
    }
    *errorclass = error_class;
    return MPI_SUCCESS;
}

/* ---- the error path ---------------------------------------------------------- */

__attribute__((noreturn)) static void report_and_abort(const char *function, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    if (!describe(err, text, sizeof(text)) || !text[0])
        snprintf(text, sizeof(text), "error code %d", err);
    char where[400] = "";
    if (ol_rt.state == OL_RT_RUNNING)
        snprintf(where, sizeof(where), " on rank %d (host %s, pid %d)", ol_rt.rank,
                 ol_rt.hostname, (int)getpid());
    const char *detail = ol_error_detail_take();
    char message[1400];
    snprintf(message, sizeof(message), "ompi-lite: error in %s%s: %s [%s]", function, where,
             detail[0] ? detail : "no detail", text);
    ol_rt_abort(err, message);
}

static __thread ol_comm_t *error_comm;

void ol_api_set_error_comm(ol_comm_t *comm)
{
    error_comm = comm;
}

/* What a handler makes of err, whatever kind of object it is set on:
 * MPI_ERRORS_RETURN returns err, a user handler is called (call_user, with
 * the object's handle) and its code returned, the others end the job. */
static int apply(const char *function, MPI_Errhandler handler, int err,
                 int (*call_user)(MPI_Errhandler handler, void *object, int err), void *object)
{
    error_comm = NULL;
    if (handler == MPI_ERRORS_RETURN) {
        ol_error_detail_take();
        return err;
    }
    if (!ol_errhandler_is_predefined(handler)) {
        ol_error_detail_take();
        return call_user(handler, object, err);
    }
    report_and_abort(function, err);
}

static int call_comm_handler(MPI_Errhandler handler, void *comm, int err)
{
    return ol_errhandler_call_comm(handler, ol_comm_to_handle(comm), err);
}

static int call_win_handler(MPI_Errhandler handler, void *win, int err)
{
    return ol_errhandler_call_win(handler, ol_win_to_handle(win), err);
}

/* session NULL: the call that failed is MPI_Session_init, which has none yet. */
static int call_session_handler(MPI_Errhandler handler, void *session, int err)
{
    return ol_errhandler_call_session(
        handler, session ? ol_session_to_handle(session) : MPI_SESSION_NULL, err);
}

/* What comm's handler makes of err. MPI_ERRORS_ABORT should end only the
 * processes of comm; ompi-lite ends the whole job, as for
 * MPI_ERRORS_ARE_FATAL. */
static int apply_handler(const char *function, ol_comm_t *comm, int err)
{
    return apply(function, comm->errhandler, err, call_comm_handler, comm);
}

/* The file whose request failed in MPI_Wait and kin: its handler takes the
 * error (MPI-4.1 14.7). */
static __thread ol_file_t *error_file;

void ol_api_set_error_file(ol_file_t *file)
{
    error_file = file;
}

int ol_api_raise(const char *function, ol_comm_t *comm, int err)
{
    ol_file_t *file = error_file;
    error_file = NULL;
    if (!comm && file) {
        error_comm = NULL;
        return ol_api_raise_file(function, file, err);
    }
    if (!comm)
        comm = error_comm;
    error_comm = NULL;
    if (ol_rt.state != OL_RT_RUNNING)
        report_and_abort(function, err); /* no handler exists outside MPI */
    return apply_handler(function, comm ? comm : &ol_comm_self, err);
}

int ol_api_raise_win(const char *function, ol_win_t *win, int err)
{
    if (!win)
        return ol_api_raise(function, NULL, err);
    if (ol_rt.state != OL_RT_RUNNING)
        report_and_abort(function, err);
    return apply(function, win->errhandler, err, call_win_handler, win);
}

static int call_file_handler(MPI_Errhandler handler, void *file, int err)
{
    return ol_errhandler_call_file(handler, file ? ol_file_to_handle(file) : MPI_FILE_NULL, err);
}

/* The handler of MPI_FILE_NULL: what files opened from now on start with,
 * and what takes the errors of MPI_File_open and MPI_File_delete. The
 * standard's default is MPI_ERRORS_RETURN (MPI-4.1 9.3). */
static MPI_Errhandler file_null_handler = MPI_ERRORS_RETURN;

MPI_Errhandler ol_api_file_default_errhandler(void)
{
    return file_null_handler;
}

void ol_api_set_file_default_errhandler(MPI_Errhandler handler)
{
    ol_errhandler_retain(handler);
    ol_errhandler_release(file_null_handler);
    file_null_handler = handler;
}

int ol_api_raise_file(const char *function, ol_file_t *file, int err)
{
    if (ol_rt.state != OL_RT_RUNNING)
        report_and_abort(function, err);
    return apply(function, file ? file->errhandler : file_null_handler, err, call_file_handler,
                 file);
}

int ol_api_file_call_errhandler(ol_file_t *file, int errorcode)
{
    ol_api_set_detail("the program called MPI_File_call_errhandler with error code %d",
                      errorcode);
    ol_api_raise_file("MPI_File_call_errhandler", file, errorcode);
    return MPI_SUCCESS;
}

/* Outside a running runtime (MPI_Session_init that could not start it)
 * there is no rank to name. */
int ol_api_raise_session(const char *function, ol_session_t *session, int err)
{
    if (!session)
        return ol_api_raise(function, NULL, err);
    return apply(function, ol_session_errhandler(session), err, call_session_handler, session);
}

int ol_api_raise_session_init(const char *function, MPI_Errhandler errhandler, int err)
{
    if (!ol_errhandler_fits_session(errhandler)) {
        if (ol_rt.state != OL_RT_RUNNING)
            report_and_abort(function, err);
        return ol_api_raise(function, NULL, err);
    }
    return apply(function, errhandler, err, call_session_handler, NULL);
}

int ol_api_session_call_errhandler(ol_session_t *session, int errorcode)
{
    ol_api_set_detail("the program called MPI_Session_call_errhandler with error code %d",
                      errorcode);
    ol_api_raise_session("MPI_Session_call_errhandler", session, errorcode);
    return MPI_SUCCESS;
}

int ol_api_win_call_errhandler(ol_win_t *win, int errorcode)
{
    ol_api_set_detail("the program called MPI_Win_call_errhandler with error code %d",
                      errorcode);
    ol_api_raise_win("MPI_Win_call_errhandler", win, errorcode);
    return MPI_SUCCESS;
}

/* Returns MPI_SUCCESS once the handler has returned, as the standard says,
 * whatever code the handler leaves. */
int ol_api_comm_call_errhandler(ol_comm_t *comm, int errorcode)
{
    ol_api_set_detail("the program called MPI_Comm_call_errhandler with error code %d",
                      errorcode);
    apply_handler("MPI_Comm_call_errhandler", comm, errorcode);
    return MPI_SUCCESS;
}

ol_status_t ol_check_running_slow(void)
{
    ol_api_set_detail(ol_rt.state == OL_RT_NOT_STARTED
                          ? "called before MPI_Init or MPI_Session_init"
                          : "called after MPI_Finalize, with no session live");
    return MPI_ERR_OTHER;
}
