/* The Fortran entry points whose arguments differ from C's (MPI_INIT has
 * no argc/argv, MPI_INFO_GET_STRING's length excludes the terminator) or
 * that take Fortran procedures, which the C library must call with Fortran
 * conventions: every argument by reference, handles as INTEGERs, LOGICALs
 * as the compiler's literals. gen_fortran.py lists them in HANDWRITTEN and
 * writes their interfaces; their other names (OL_F_ALIASES) are here.
 *
 * Callbacks done: user reduction ops (MPI_OP_CREATE), communicator error
 * handlers (MPI_COMM_CREATE_ERRHANDLER), communicator attribute copy and
 * delete functions (MPI_COMM_CREATE_KEYVAL), and the predefined
 * MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN (and the
 * MPI-1 and datatype ones as procedures). */
#include "ol_fortran.h"

#include <pthread.h>
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

/* ---- user ops ------------------------------------------------------------------- */

/* SUBROUTINE USER_FUNCTION(INVEC, INOUTVEC, LEN, DATATYPE) */
typedef void fortran_user_function(void *invec, void *inoutvec, MPI_Fint *len, MPI_Fint *datatype);

/* A C MPI_User_function is told neither its op nor any state, so each
 * Fortran op gets one of OP_SLOTS C trampolines, which knows its slot. */
#define OP_SLOTS 64
static struct {
    fortran_user_function *fn;
    MPI_Fint op; /* the op's INTEGER while the slot is taken, else 0 */
} op_slots[OP_SLOTS];
static pthread_mutex_t op_lock = PTHREAD_MUTEX_INITIALIZER;

static void call_user_function(int slot, void *in, void *inout, int *len, MPI_Datatype *type)
{
    MPI_Fint len_f = *len, type_f = PMPI_Type_toint(*type);
    op_slots[slot].fn(in, inout, &len_f, &type_f);
}

/* op_trampoline_<row><column> serves slot 8 * row + column. */
#define TRAMPOLINE(row, column)                                                                  \
    static void op_trampoline_##row##column(void *in, void *inout, int *len, MPI_Datatype *type) \
    {                                                                                            \
        call_user_function(8 * row + column, in, inout, len, type);                              \
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
static MPI_User_function *const op_trampolines[OP_SLOTS] = {EIGHT_ROWS(NAMES)};

OL_F_EXPORT void pmpi_op_create_(fortran_user_function *user_fn, const MPI_Fint *commute,
                                 MPI_Fint *op, MPI_Fint *ierror)
{
    pthread_mutex_lock(&op_lock);
    int slot = 0;
    while (slot < OP_SLOTS && op_slots[slot].fn)
        slot++;
    int rc = MPI_ERR_INTERN;
    if (slot < OP_SLOTS) {
        MPI_Op c_op = MPI_OP_NULL;
        rc = PMPI_Op_create(op_trampolines[slot], ol_f_logical_in(*commute), &c_op);
        if (rc == MPI_SUCCESS) {
            op_slots[slot].fn = user_fn;
            op_slots[slot].op = *op = PMPI_Op_toint(c_op);
        }
    }
    pthread_mutex_unlock(&op_lock);
    ol_f_set_ierror(ierror, rc);
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
            if (op_slots[slot].fn && op_slots[slot].op == freed)
                op_slots[slot].fn = NULL;
        pthread_mutex_unlock(&op_lock);
    }
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(op_create, pmpi_op_create_)
OL_F08_ALIASES(op_create, pmpi_op_create_)
OL_F_ALIASES(op_free, pmpi_op_free_)
OL_F08_ALIASES(op_free, pmpi_op_free_)

/* ---- error handlers ------------------------------------------------------------ */

/* SUBROUTINE COMM_ERRHANDLER_FUNCTION(COMM, ERROR_CODE) */
typedef void fortran_comm_errhandler(MPI_Fint *comm, MPI_Fint *error_code);

/* The C handler is told its communicator, whose error handler is the one
 * called: the table maps each Fortran-made handler to its procedure. */
static struct errhandler_entry {
    MPI_Errhandler handler;
    fortran_comm_errhandler *fn;
    struct errhandler_entry *next;
} *errhandlers;
static pthread_mutex_t errhandler_lock = PTHREAD_MUTEX_INITIALIZER;

static fortran_comm_errhandler *errhandler_procedure(MPI_Errhandler handler)
{
    fortran_comm_errhandler *fn = NULL;
    pthread_mutex_lock(&errhandler_lock);
    for (struct errhandler_entry *e = errhandlers; e && !fn; e = e->next)
        if (e->handler == handler)
            fn = e->fn;
    pthread_mutex_unlock(&errhandler_lock);
    return fn;
}

static void comm_errhandler_trampoline(MPI_Comm *comm, int *error_code, ...)
{
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(*comm, &handler) != MPI_SUCCESS)
        return;
    fortran_comm_errhandler *fn = errhandler_procedure(handler);
    PMPI_Errhandler_free(&handler);
    if (fn) {
        MPI_Fint comm_f = PMPI_Comm_toint(*comm), code_f = *error_code;
        fn(&comm_f, &code_f);
    }
}

OL_F_EXPORT void pmpi_comm_create_errhandler_(fortran_comm_errhandler *fn, MPI_Fint *errhandler,
                                              MPI_Fint *ierror)
{
    struct errhandler_entry *e = malloc(sizeof(*e));
    if (!e) {
        ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    int rc = PMPI_Comm_create_errhandler(comm_errhandler_trampoline, &e->handler);
    if (rc != MPI_SUCCESS) {
        free(e);
        ol_f_set_ierror(ierror, rc);
        return;
    }
    e->fn = fn;
    pthread_mutex_lock(&errhandler_lock);
    e->next = errhandlers;
    errhandlers = e;
    pthread_mutex_unlock(&errhandler_lock);
    *errhandler = PMPI_Errhandler_toint(e->handler);
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}
OL_F_ALIASES(comm_create_errhandler, pmpi_comm_create_errhandler_)
OL_F08_ALIASES(comm_create_errhandler, pmpi_comm_create_errhandler_)

/* ---- communicator attributes ------------------------------------------------- */

/* SUBROUTINE COMM_COPY_ATTR_FUNCTION(OLDCOMM, COMM_KEYVAL, EXTRA_STATE,
 *     ATTRIBUTE_VAL_IN, ATTRIBUTE_VAL_OUT, FLAG, IERROR) */
typedef void fortran_copy_attr(MPI_Fint *oldcomm, MPI_Fint *keyval, MPI_Aint *extra_state,
                               MPI_Aint *value_in, MPI_Aint *value_out, MPI_Fint *flag,
                               MPI_Fint *ierror);
/* SUBROUTINE COMM_DELETE_ATTR_FUNCTION(COMM, COMM_KEYVAL, ATTRIBUTE_VAL,
 *     EXTRA_STATE, IERROR) */
typedef void fortran_delete_attr(MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value,
                                 MPI_Aint *extra_state, MPI_Fint *ierror);

/* The C extra_state of a keyval made in Fortran: its procedures and the
 * program's own extra_state. Kept for the life of the process. */
typedef struct {
    fortran_copy_attr *copy;
    fortran_delete_attr *delete;
    MPI_Aint extra_state;
} keyval_procedures_t;

static int copy_attr_trampoline(MPI_Comm oldcomm, int keyval, void *extra_state,
                                void *value_in, void *value_out, int *flag)
{
    keyval_procedures_t *procedures = extra_state;
    MPI_Fint comm_f = PMPI_Comm_toint(oldcomm), keyval_f = keyval, flag_f = ol_f_false,
             ierror = MPI_SUCCESS;
    MPI_Aint in = (MPI_Aint)value_in, out = 0;
    procedures->copy(&comm_f, &keyval_f, &procedures->extra_state, &in, &out, &flag_f, &ierror);
    *flag = ol_f_logical_in(flag_f);
    if (*flag)
        *(void **)value_out = (void *)out;
    return ierror;
}

static int delete_attr_trampoline(MPI_Comm comm, int keyval, void *value, void *extra_state)
{
    keyval_procedures_t *procedures = extra_state;
    MPI_Fint comm_f = PMPI_Comm_toint(comm), keyval_f = keyval, ierror = MPI_SUCCESS;
    MPI_Aint value_f = (MPI_Aint)value;
    procedures->delete(&comm_f, &keyval_f, &value_f, &procedures->extra_state, &ierror);
    return ierror;
}

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

/* The MPI-1 forms (INTEGER values) and the datatype forms, for programs
 * that name them; they do what their communicator twins do. */
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

OL_F_ALIASES(comm_null_copy_fn, pmpi_comm_null_copy_fn_)
OL_F_ALIASES(comm_dup_fn, pmpi_comm_dup_fn_)
OL_F_ALIASES(comm_null_delete_fn, pmpi_comm_null_delete_fn_)
OL_F_ALIASES(type_null_copy_fn, pmpi_comm_null_copy_fn_)
OL_F_ALIASES(type_dup_fn, pmpi_comm_dup_fn_)
OL_F_ALIASES(type_null_delete_fn, pmpi_comm_null_delete_fn_)
OL_F_ALIASES(null_copy_fn, pmpi_null_copy_fn_)
OL_F_ALIASES(dup_fn, pmpi_dup_fn_)
OL_F_ALIASES(null_delete_fn, pmpi_null_delete_fn_)

/* A predefined Fortran procedure becomes the C library's own. */
static MPI_Comm_copy_attr_function *c_copy_function(fortran_copy_attr *fn)
{
    if (fn == (fortran_copy_attr *)pmpi_comm_null_copy_fn_ ||
        fn == (fortran_copy_attr *)mpi_comm_null_copy_fn_)
        return MPI_COMM_NULL_COPY_FN;
    if (fn == (fortran_copy_attr *)pmpi_comm_dup_fn_ || fn == (fortran_copy_attr *)mpi_comm_dup_fn_)
        return MPI_COMM_DUP_FN;
    return copy_attr_trampoline;
}

static MPI_Comm_delete_attr_function *c_delete_function(fortran_delete_attr *fn)
{
    if (fn == (fortran_delete_attr *)pmpi_comm_null_delete_fn_ ||
        fn == (fortran_delete_attr *)mpi_comm_null_delete_fn_)
        return MPI_COMM_NULL_DELETE_FN;
    return delete_attr_trampoline;
}

OL_F_EXPORT void pmpi_comm_create_keyval_(fortran_copy_attr *copy_fn,
                                          fortran_delete_attr *delete_fn, MPI_Fint *keyval,
                                          const MPI_Aint *extra_state, MPI_Fint *ierror)
{
    keyval_procedures_t *procedures = malloc(sizeof(*procedures));
    if (!procedures) {
        ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    *procedures = (keyval_procedures_t){copy_fn, delete_fn, *extra_state};
    int c_keyval = MPI_KEYVAL_INVALID;
    int rc = PMPI_Comm_create_keyval(c_copy_function(copy_fn), c_delete_function(delete_fn),
                                     &c_keyval, procedures);
    if (rc == MPI_SUCCESS)
        *keyval = c_keyval;
    else
        free(procedures);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(comm_create_keyval, pmpi_comm_create_keyval_)
OL_F08_ALIASES(comm_create_keyval, pmpi_comm_create_keyval_)
