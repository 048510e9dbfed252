/* The Fortran entry points whose arguments differ from C's (MPI_INIT has
 * no argc/argv, MPI_INFO_GET_STRING's length excludes the terminator) or
 * that take Fortran procedures, which the C library must call with Fortran
 * conventions: every argument by reference, handles as INTEGERs, LOGICALs
 * as the compiler's literals. gen_fortran.py lists them in HANDWRITTEN and
 * writes their interfaces; their other names (OL_F_ALIASES) are here.
 *
 * Callbacks here: user reduction ops (MPI_OP_CREATE), error handlers of
 * communicators, windows, files and sessions, attribute copy and delete
 * procedures of communicator, datatype, window and MPI-1 keyvals, and the
 * predefined MPI_COMM_NULL_COPY_FN ... procedures. Generalized requests and
 * data representations are in glue_extra.c. */
#include "ol_fortran.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- start-up ---------------------------------------------------------------- */

OL_F_EXPORT void pmpi_init_(MPI_Fint *ierror)
{
    ol_f_register_types();
    ol_f_set_ierror(ierror, PMPI_Init(NULL, NULL));
}

OL_F_EXPORT void pmpi_init_thread_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    ol_f_register_types();
    ol_f_set_ierror(ierror, PMPI_Init_thread(NULL, NULL, *required, provided));
}
OL_F_ALIASES(init, pmpi_init_)
OL_F08_ALIASES(init, pmpi_init_)
OL_F_ALIASES(init_thread, pmpi_init_thread_)
OL_F08_ALIASES(init_thread, pmpi_init_thread_)

/* ---- MPI_INFO_GET_STRING ------------------------------------------------------ */

/* In Fortran buflen is the value's length, without C's terminator; the
 * value is blank-padded. */
OL_F_EXPORT void pmpi_info_get_string_(const MPI_Fint *info, const char *key, MPI_Fint *buflen,
                                       char *value, MPI_Fint *flag, MPI_Fint *ierror,
                                       size_t key_len, size_t value_len)
{
    char *key_c = ol_f_string_in(key, key_len, 1);
    int c_buflen = *buflen > 0 ? *buflen + 1 : 0, c_flag = 0;
    char *value_c = calloc((size_t)c_buflen + 1, 1);
    if (!key_c || !value_c) {
        free(key_c);
        free(value_c);
        ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    int rc = PMPI_Info_get_string(PMPI_Info_fromint(*info), key_c, &c_buflen, value_c, &c_flag);
    if (rc == MPI_SUCCESS) {
        *flag = ol_f_logical_out(c_flag);
        /* buflen 0 asks for the length only: the value stays as it was */
        if (c_flag && *buflen > 0)
            ol_f_string_out(value, value_len, value_c);
        if (c_flag)
            *buflen = c_buflen > 0 ? c_buflen - 1 : 0;
    }
    free(key_c);
    free(value_c);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(info_get_string, pmpi_info_get_string_)
OL_F08_ALIASES(info_get_string, pmpi_info_get_string_)

/* ---- MPI_INFO_CREATE_ENV, MPI_SESSION_GET_NTH_PSET ---------------------------------- */

/* Fortran has no argc/argv to give: the info is that of MPI_INFO_ENV. */
OL_F_EXPORT void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    MPI_Info info_c = MPI_INFO_NULL;
    int rc = PMPI_Info_create_env(0, NULL, &info_c);
    if (rc == MPI_SUCCESS)
        *info = PMPI_Info_toint(info_c);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(info_create_env, pmpi_info_create_env_)
OL_F08_ALIASES(info_create_env, pmpi_info_create_env_)

/* As MPI_INFO_GET_STRING's buflen, pset_len counts no terminator in
 * Fortran; the name is blank-padded. pset_len 0 asks for the length only. */
OL_F_EXPORT void pmpi_session_get_nth_pset_(const MPI_Fint *session, const MPI_Fint *info,
                                            const MPI_Fint *n, MPI_Fint *pset_len, char *pset_name,
                                            MPI_Fint *ierror, size_t pset_name_len)
{
    int c_len = *pset_len > 0 ? *pset_len + 1 : 0;
    char *name_c = calloc((size_t)c_len + 1, 1);
    if (!name_c) {
        ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    int rc = PMPI_Session_get_nth_pset(PMPI_Session_fromint(*session), PMPI_Info_fromint(*info),
                                       *n, &c_len, c_len > 0 ? name_c : NULL);
    if (rc == MPI_SUCCESS) {
        if (*pset_len > 0)
            ol_f_string_out(pset_name, pset_name_len, name_c);
        *pset_len = c_len > 0 ? c_len - 1 : 0;
    }
    free(name_c);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(session_get_nth_pset, pmpi_session_get_nth_pset_)
OL_F08_ALIASES(session_get_nth_pset, pmpi_session_get_nth_pset_)

/* ---- user ops ------------------------------------------------------------------- */

/* SUBROUTINE USER_FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE), and mpi_f08's
 * MPI_User_function_c, whose LEN is INTEGER(KIND=MPI_COUNT_KIND). */
typedef void fortran_user_function(void *invec, void *inoutvec, MPI_Fint *len, MPI_Fint *datatype);
typedef void fortran_user_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                     MPI_Fint *datatype);

/* A C MPI_User_function is told neither its op nor any state, so each
 * Fortran op gets one of OP_SLOTS C trampolines, which knows its slot; a
 * slot serves MPI_OP_CREATE (fn) or MPI_Op_create_c (fn_c), each with a
 * trampoline of its C type. */
#define OP_SLOTS 64
static struct {
    fortran_user_function *fn;
    fortran_user_function_c *fn_c;
    MPI_Fint op; /* the op's INTEGER while the slot is taken */
} op_slots[OP_SLOTS];
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;

static void call_user_function(int slot, void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Fint len_f = *len, type_f = PMPI_Type_toint(*type);
    op_slots[slot].fn(in, inout, &len_f, &type_f);
}

/* The count is the library's own MPI_Count: passed by reference as it is. */
static void call_user_function_c(int slot, void *in, void *inout, MPI_Count *len,
                                 MPI_Datatype *type)
{
    MPI_Fint type_f = PMPI_Type_toint(*type);
    op_slots[slot].fn_c(in, inout, len, &type_f);
}

/* op_trampoline_<row><column> and op_trampoline_c_<row><column> serve slot
 * 8 * row + column. */
#define TRAMPOLINE(row, column)                                                                  \
    static void op_trampoline_##row##column(void *in, void *inout, int *len, MPI_Datatype *type) \
    {                                                                                            \
        call_user_function(8 * row + column, in, inout, len, type);                              \
    }                                                                                            \
    static void op_trampoline_c_##row##column(void *in, void *inout, MPI_Count *len,             \
                                              MPI_Datatype *type)                                \
    {                                                                                            \
        call_user_function_c(8 * row + column, in, inout, len, type);                            \
    }
#define ROW(row)                                                                                 \
    TRAMPOLINE(row, 0) TRAMPOLINE(row, 1) TRAMPOLINE(row, 2) TRAMPOLINE(row, 3)                  \
    TRAMPOLINE(row, 4) TRAMPOLINE(row, 5) TRAMPOLINE(row, 6) TRAMPOLINE(row, 7)
#define EIGHT_ROWS(x) x(0) x(1) x(2) x(3) x(4) x(5) x(6) x(7)
EIGHT_ROWS(ROW)
#define NAMES(row)                                                                               \
    op_trampoline_##row##0, op_trampoline_##row##1, op_trampoline_##row##2,                      \
        op_trampoline_##row##3, op_trampoline_##row##4, op_trampoline_##row##5,                  \
        op_trampoline_##row##6, op_trampoline_##row##7,
#define NAMES_C(row)                                                                             \
    op_trampoline_c_##row##0, op_trampoline_c_##row##1, op_trampoline_c_##row##2,                \
        op_trampoline_c_##row##3, op_trampoline_c_##row##4, op_trampoline_c_##row##5,            \
        op_trampoline_c_##row##6, op_trampoline_c_##row##7,
static MPI_User_function *const op_trampolines[OP_SLOTS] = {EIGHT_ROWS(NAMES)};
static MPI_User_function_c *const op_trampolines_c[OP_SLOTS] = {EIGHT_ROWS(NAMES_C)};

/* The op of fn (MPI_OP_CREATE) or of fn_c (MPI_Op_create_c), in a free slot. */
static int create_op(fortran_user_function *fn, fortran_user_function_c *fn_c,
                     const MPI_Fint *commute, MPI_Fint *op)
{
    pthread_mutex_lock(&op_lock);
    int slot = 0;
    while (slot < OP_SLOTS && (op_slots[slot].fn || op_slots[slot].fn_c))
        slot++;
    int rc = MPI_ERR_INTERN;
    if (slot < OP_SLOTS) {
        MPI_Op c_op = MPI_OP_NULL;
        rc = fn ? PMPI_Op_create(op_trampolines[slot], ol_f_logical_in(*commute), &c_op)
                : PMPI_Op_create_c(op_trampolines_c[slot], ol_f_logical_in(*commute), &c_op);
        if (rc == MPI_SUCCESS) {
            op_slots[slot].fn = fn;
            op_slots[slot].fn_c = fn_c;
            op_slots[slot].op = *op = PMPI_Op_toint(c_op);
        }
    }
    pthread_mutex_unlock(&op_lock);
    return rc;
}

OL_F_EXPORT void pmpi_op_create_(fortran_user_function *user_fn, const MPI_Fint *commute,
                                 MPI_Fint *op, MPI_Fint *ierror)
{
    ol_f_set_ierror(ierror, create_op(user_fn, NULL, commute, op));
}

/* mpi_f08 only: the mpi module has no large-count forms. */
OL_F_EXPORT void pmpi_op_create_c_f08_(fortran_user_function_c *user_fn, const MPI_Fint *commute,
                                       MPI_Fint *op, MPI_Fint *ierror)
{
    ol_f_set_ierror(ierror, create_op(NULL, user_fn, commute, op));
}

/* The slot goes back with the op's handle. (An op freed while a
 * nonblocking reduction still uses it keeps working only until another
 * Fortran op takes its slot.) */
OL_F_EXPORT void pmpi_op_free_(MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Fint freed = *op;
    MPI_Op c_op = PMPI_Op_fromint(*op);
    int rc = PMPI_Op_free(&c_op);
    if (rc == MPI_SUCCESS) {
        *op = PMPI_Op_toint(c_op);
        pthread_mutex_lock(&op_lock);
        for (int slot = 0; slot < OP_SLOTS; slot++)
            if ((op_slots[slot].fn || op_slots[slot].fn_c) && op_slots[slot].op == freed)
                op_slots[slot].fn = NULL, op_slots[slot].fn_c = NULL;
        pthread_mutex_unlock(&op_lock);
    }
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(op_create, pmpi_op_create_)
OL_F08_ALIASES(op_create, pmpi_op_create_)
OL_F08_OWN_ALIASES(op_create_c, pmpi_op_create_c_f08_)
OL_F_ALIASES(op_free, pmpi_op_free_)
OL_F08_ALIASES(op_free, pmpi_op_free_)

/* ---- error handlers ------------------------------------------------------------ */

/* SUBROUTINE X_ERRHANDLER_FUNCTION(OBJECT, ERROR_CODE), X being COMM, WIN,
 * FILE or SESSION: the object's handle as its INTEGER. */
typedef void fortran_errhandler(MPI_Fint *object, MPI_Fint *error_code);

/* A C handler is told its object, whose error handler is the one called:
 * the table maps each Fortran-made handler to its procedure. Entries are
 * kept for the life of the process (a freed handler's entry is never
 * found again, as the object no longer names it). */
static struct errhandler_entry {
    MPI_Errhandler handler;
    fortran_errhandler *fn;
    struct errhandler_entry *next;
} *errhandlers;
static pthread_mutex_t errhandler_lock = PTHREAD_MUTEX_INITIALIZER;

/* The Fortran procedure behind `handler` (which this takes over and
 * frees), or NULL where the handler was not made in Fortran. */
static fortran_errhandler *errhandler_procedure(int rc, MPI_Errhandler handler)
{
    fortran_errhandler *fn = NULL;
    if (rc != MPI_SUCCESS)
        return NULL;
    pthread_mutex_lock(&errhandler_lock);
    for (struct errhandler_entry *e = errhandlers; e && !fn; e = e->next)
        if (e->handler == handler)
            fn = e->fn;
    pthread_mutex_unlock(&errhandler_lock);
    PMPI_Errhandler_free(&handler);
    return fn;
}

static void call_errhandler(fortran_errhandler *fn, MPI_Fint object, const int *error_code)
{
    MPI_Fint code = *error_code;
    if (fn)
        fn(&object, &code);
}

static void comm_errhandler_trampoline(MPI_Comm *comm, int *error_code, ...)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Comm_get_errhandler(*comm, &h);
    call_errhandler(errhandler_procedure(rc, h), PMPI_Comm_toint(*comm), error_code);
}

static void win_errhandler_trampoline(MPI_Win *win, int *error_code, ...)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Win_get_errhandler(*win, &h);
    call_errhandler(errhandler_procedure(rc, h), PMPI_Win_toint(*win), error_code);
}

static void file_errhandler_trampoline(MPI_File *file, int *error_code, ...)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    int rc = PMPI_File_get_errhandler(*file, &h);
    call_errhandler(errhandler_procedure(rc, h), PMPI_File_toint(*file), error_code);
}

static void session_errhandler_trampoline(MPI_Session *session, int *error_code, ...)
{
    MPI_Errhandler h = MPI_ERRHANDLER_NULL;
    int rc = PMPI_Session_get_errhandler(*session, &h);
    call_errhandler(errhandler_procedure(rc, h), PMPI_Session_toint(*session), error_code);
}

/* Makes the C handler with `create` and remembers its procedure. */
static void create_errhandler(int rc_create, MPI_Errhandler handler, fortran_errhandler *fn,
                              MPI_Fint *errhandler, MPI_Fint *ierror)
{
    struct errhandler_entry *e = rc_create == MPI_SUCCESS ? malloc(sizeof(*e)) : NULL;
    if (rc_create != MPI_SUCCESS || !e) {
        if (rc_create == MPI_SUCCESS)
            PMPI_Errhandler_free(&handler);
        ol_f_set_ierror(ierror, rc_create == MPI_SUCCESS ? MPI_ERR_NO_MEM : rc_create);
        return;
    }
    *e = (struct errhandler_entry){handler, fn, NULL};
    pthread_mutex_lock(&errhandler_lock);
    e->next = errhandlers;
    errhandlers = e;
    pthread_mutex_unlock(&errhandler_lock);
    *errhandler = PMPI_Errhandler_toint(handler);
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

/* The table is searched under its lock, so an entry made after the C
 * handler exists is found before any object can call it: the handler is
 * attached to nothing until this returns. */
#define CREATE_ERRHANDLER(kind, Kind)                                                            \
    OL_F_EXPORT void pmpi_##kind##_create_errhandler_(fortran_errhandler *fn,                    \
                                                      MPI_Fint *errhandler, MPI_Fint *ierror)    \
    {                                                                                            \
        MPI_Errhandler handler = MPI_ERRHANDLER_NULL;                                            \
        int rc = PMPI_##Kind##_create_errhandler(kind##_errhandler_trampoline, &handler);        \
        create_errhandler(rc, handler, fn, errhandler, ierror);                                  \
    }                                                                                            \
    OL_F_ALIASES(kind##_create_errhandler, pmpi_##kind##_create_errhandler_)                     \
    OL_F08_ALIASES(kind##_create_errhandler, pmpi_##kind##_create_errhandler_)
CREATE_ERRHANDLER(comm, Comm)
CREATE_ERRHANDLER(win, Win)
CREATE_ERRHANDLER(file, File)
CREATE_ERRHANDLER(session, Session)

/* ---- attributes: copy and delete procedures ------------------------------------ */

/* SUBROUTINE X_COPY_ATTR_FUNCTION(OLDOBJ, KEYVAL, EXTRA_STATE,
 *     ATTRIBUTE_VAL_IN, ATTRIBUTE_VAL_OUT, FLAG, IERROR) for X = COMM, TYPE,
 * WIN (address-sized values), and MPI-1's COPY_FUNCTION, the same with
 * INTEGER extra_state and values. */
typedef void fortran_copy_attr(MPI_Fint *oldobj, MPI_Fint *keyval, MPI_Aint *extra_state,
                               MPI_Aint *value_in, MPI_Aint *value_out, MPI_Fint *flag,
                               MPI_Fint *ierror);
typedef void fortran_copy_int(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                              MPI_Fint *value_in, MPI_Fint *value_out, MPI_Fint *flag,
                              MPI_Fint *ierror);
/* SUBROUTINE X_DELETE_ATTR_FUNCTION(OBJ, KEYVAL, ATTRIBUTE_VAL,
 *     EXTRA_STATE, IERROR), and MPI-1's DELETE_FUNCTION with INTEGERs. */
typedef void fortran_delete_attr(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value,
                                 MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void fortran_delete_int(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                                MPI_Fint *extra_state, MPI_Fint *ierror);

/* The C extra_state of a keyval made in Fortran: its procedures and the
 * program's own extra_state (an INTEGER for MPI_KEYVAL_CREATE's, whose
 * values are INTEGERs too: `integer`). Kept for the life of the process,
 * since a keyval freed while attributes use it lives on with them. */
typedef struct {
    void (*copy)(void);
    void (*delete)(void);
    MPI_Aint extra_state;
    MPI_Fint extra_state_int;
    bool integer;
} keyval_procedures_t;

/* Values come and go as cells (ol_f_cell_new); an MPI-1 INTEGER attribute
 * is stored sign-extended to an address and read back truncated (MPI-4.1
 * 19.3.7). */
static int copy_attr(keyval_procedures_t *p, MPI_Fint object, int keyval, void *value_in,
                     void *value_out, int *flag)
{
    MPI_Fint keyval_f = keyval, flag_f = ol_f_false, ierror = MPI_SUCCESS;
    MPI_Aint out = 0;
    if (p->integer) {
        MPI_Fint in_i = (MPI_Fint)ol_f_cell_value(value_in), out_i = 0;
        ((fortran_copy_int *)p->copy)(&object, &keyval_f, &p->extra_state_int, &in_i, &out_i,
                                      &flag_f, &ierror);
        out = out_i;
    } else {
        MPI_Aint in = ol_f_cell_value(value_in);
        ((fortran_copy_attr *)p->copy)(&object, &keyval_f, &p->extra_state, &in, &out, &flag_f,
                                       &ierror);
    }
    *flag = ol_f_logical_in(flag_f);
    if (*flag) {
        MPI_Aint *cell = ol_f_cell_new(out);
        if (!cell)
            return MPI_ERR_NO_MEM;
        *(void **)value_out = cell;
    }
    return ierror;
}

static int delete_attr(keyval_procedures_t *p, MPI_Fint object, int keyval, void *value)
{
    MPI_Fint keyval_f = keyval, ierror = MPI_SUCCESS;
    if (p->integer) {
        MPI_Fint value_i = (MPI_Fint)ol_f_cell_value(value);
        ((fortran_delete_int *)p->delete)(&object, &keyval_f, &value_i, &p->extra_state_int,
                                          &ierror);
    } else {
        MPI_Aint value_a = ol_f_cell_value(value);
        ((fortran_delete_attr *)p->delete)(&object, &keyval_f, &value_a, &p->extra_state,
                                           &ierror);
    }
    return ierror;
}

/* The C trampolines: the object's handle to its INTEGER. */
#define ATTR_TRAMPOLINES(kind, Ctype, stem)                                                      \
    static int kind##_copy_trampoline(Ctype old, int keyval, void *extra_state, void *in,        \
                                      void *out, int *flag)                                      \
    {                                                                                            \
        return copy_attr(extra_state, PMPI_##stem##_toint(old), keyval, in, out, flag);          \
    }                                                                                            \
    static int kind##_delete_trampoline(Ctype obj, int keyval, void *value, void *extra_state)   \
    {                                                                                            \
        return delete_attr(extra_state, PMPI_##stem##_toint(obj), keyval, value);                \
    }
ATTR_TRAMPOLINES(comm, MPI_Comm, Comm)
ATTR_TRAMPOLINES(type, MPI_Datatype, Type)
ATTR_TRAMPOLINES(win, MPI_Win, Win)

/* The predefined procedures. Each is its own Fortran-conventions
 * procedure, so a program may call it too; given to a keyval, it becomes
 * the C library's (predefined_copy). */
OL_F_EXPORT void pmpi_comm_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval,
                                         MPI_Aint *extra_state, MPI_Aint *value_in,
                                         MPI_Aint *value_out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)oldcomm, (void)keyval, (void)extra_state, (void)value_in, (void)value_out;
    *flag = ol_f_false;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

OL_F_EXPORT void pmpi_comm_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                                   MPI_Aint *value_in, MPI_Aint *value_out, MPI_Fint *flag,
                                   MPI_Fint *ierror)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    *value_out = *value_in;
    *flag = ol_f_true;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

OL_F_EXPORT void pmpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value,
                                           MPI_Aint *extra_state, MPI_Fint *ierror)
{
    (void)comm, (void)keyval, (void)value, (void)extra_state;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

/* The MPI-1 forms (INTEGER values), for MPI_KEYVAL_CREATE. */
OL_F_EXPORT void pmpi_null_copy_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                                    MPI_Fint *value_in, MPI_Fint *value_out, MPI_Fint *flag,
                                    MPI_Fint *ierror)
{
    (void)oldcomm, (void)keyval, (void)extra_state, (void)value_in, (void)value_out;
    *flag = ol_f_false;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

OL_F_EXPORT void pmpi_dup_fn_(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Fint *extra_state,
                              MPI_Fint *value_in, MPI_Fint *value_out, MPI_Fint *flag,
                              MPI_Fint *ierror)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    *value_out = *value_in;
    *flag = ol_f_true;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

OL_F_EXPORT void pmpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                                      MPI_Fint *extra_state, MPI_Fint *ierror)
{
    (void)comm, (void)keyval, (void)value, (void)extra_state;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}

/* The datatype and window procedures do what the communicator ones do:
 * their arguments are passed alike. */
OL_F_ALIASES(comm_null_copy_fn, pmpi_comm_null_copy_fn_)
OL_F_ALIASES(comm_dup_fn, pmpi_comm_dup_fn_)
OL_F_ALIASES(comm_null_delete_fn, pmpi_comm_null_delete_fn_)
OL_F_ALIASES(type_null_copy_fn, pmpi_comm_null_copy_fn_)
OL_F_ALIASES(type_dup_fn, pmpi_comm_dup_fn_)
OL_F_ALIASES(type_null_delete_fn, pmpi_comm_null_delete_fn_)
OL_F_ALIASES(win_null_copy_fn, pmpi_comm_null_copy_fn_)
OL_F_ALIASES(win_dup_fn, pmpi_comm_dup_fn_)
OL_F_ALIASES(win_null_delete_fn, pmpi_comm_null_delete_fn_)
OL_F_ALIASES(null_copy_fn, pmpi_null_copy_fn_)
OL_F_ALIASES(dup_fn, pmpi_dup_fn_)
OL_F_ALIASES(null_delete_fn, pmpi_null_delete_fn_)

/* Which predefined procedure `fn` is: the C library's null (0) and dup (1)
 * callbacks share their values across kinds (mpi.h), so they are told
 * apart once here. -1 for a program's own procedure. */
static intptr_t predefined_copy(void (*fn)(void))
{
    void (*const null_fns[])(void) = {
        (void (*)(void))pmpi_comm_null_copy_fn_, (void (*)(void))mpi_comm_null_copy_fn_,
        (void (*)(void))mpi_type_null_copy_fn_,  (void (*)(void))mpi_win_null_copy_fn_,
        (void (*)(void))pmpi_null_copy_fn_,      (void (*)(void))mpi_null_copy_fn_};
    void (*const dup_fns[])(void) = {
        (void (*)(void))pmpi_comm_dup_fn_, (void (*)(void))mpi_comm_dup_fn_,
        (void (*)(void))mpi_type_dup_fn_,  (void (*)(void))mpi_win_dup_fn_,
        (void (*)(void))pmpi_dup_fn_,      (void (*)(void))mpi_dup_fn_};
    for (size_t i = 0; i < sizeof null_fns / sizeof *null_fns; i++) {
        if (fn == null_fns[i])
            return (intptr_t)MPI_COMM_NULL_COPY_FN;
        if (fn == dup_fns[i])
            return (intptr_t)MPI_COMM_DUP_FN;
    }
    return -1;
}

static intptr_t predefined_delete(void (*fn)(void))
{
    if (fn == (void (*)(void))pmpi_comm_null_delete_fn_ ||
        fn == (void (*)(void))mpi_comm_null_delete_fn_ ||
        fn == (void (*)(void))mpi_type_null_delete_fn_ ||
        fn == (void (*)(void))mpi_win_null_delete_fn_ ||
        fn == (void (*)(void))pmpi_null_delete_fn_ || fn == (void (*)(void))mpi_null_delete_fn_)
        return (intptr_t)MPI_COMM_NULL_DELETE_FN;
    return -1;
}

/* The record a keyval's C extra_state points at; NULL without memory. */
static keyval_procedures_t *new_procedures(void (*copy)(void), void (*delete)(void),
                                           MPI_Aint extra_state, bool integer)
{
    keyval_procedures_t *p = malloc(sizeof(*p));
    if (p)
        *p = (keyval_procedures_t){copy, delete, extra_state, (MPI_Fint)extra_state, integer};
    return p;
}

/* X_CREATE_KEYVAL(COPY_FN, DELETE_FN, KEYVAL, EXTRA_STATE, IERROR) for
 * communicators, datatypes and windows; `Extra` is the type of the
 * Fortran extra_state (INTEGER for MPI-1's MPI_KEYVAL_CREATE). */
#define CREATE_KEYVAL(name, Create, kind, CopyType, DeleteType, Extra, integer)                  \
    OL_F_EXPORT void pmpi_##name##_(void (*copy_fn)(void), void (*delete_fn)(void),              \
                                    MPI_Fint *keyval, const Extra *extra_state,                  \
                                    MPI_Fint *ierror)                                            \
    {                                                                                            \
        keyval_procedures_t *p = new_procedures(copy_fn, delete_fn, *extra_state, integer);      \
        if (!p) {                                                                                \
            ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);                                             \
            return;                                                                              \
        }                                                                                        \
        intptr_t copy = predefined_copy(copy_fn), delete = predefined_delete(delete_fn);         \
        int c_keyval = MPI_KEYVAL_INVALID;                                                       \
        int rc = PMPI_##Create(copy < 0 ? kind##_copy_trampoline : (CopyType *)copy,             \
                               delete < 0 ? kind##_delete_trampoline : (DeleteType *)delete,     \
                               &c_keyval, p);                                                    \
        if (rc == MPI_SUCCESS)                                                                   \
            *keyval = c_keyval;                                                                  \
        else                                                                                     \
            free(p);                                                                             \
        ol_f_set_ierror(ierror, rc);                                                             \
    }                                                                                            \
    OL_F_ALIASES(name, pmpi_##name##_)                                                           \
    OL_F08_ALIASES(name, pmpi_##name##_)
CREATE_KEYVAL(comm_create_keyval, Comm_create_keyval, comm, MPI_Comm_copy_attr_function,
              MPI_Comm_delete_attr_function, MPI_Aint, false)
CREATE_KEYVAL(type_create_keyval, Type_create_keyval, type, MPI_Type_copy_attr_function,
              MPI_Type_delete_attr_function, MPI_Aint, false)
CREATE_KEYVAL(win_create_keyval, Win_create_keyval, win, MPI_Win_copy_attr_function,
              MPI_Win_delete_attr_function, MPI_Aint, false)
CREATE_KEYVAL(keyval_create, Keyval_create, comm, MPI_Copy_function, MPI_Delete_function,
              MPI_Fint, true)
