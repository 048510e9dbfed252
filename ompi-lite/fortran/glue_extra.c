/* Hand-written entry points besides glue_special.c's: generalized requests
 * and data representations, whose C callbacks call Fortran procedures
 * with Fortran conventions (every argument by reference, handles as
 * INTEGERs, LOGICALs as the compiler's literals), and MPI_SIZEOF.
 * gen_fortran.py lists them in HANDWRITTEN and writes their interfaces. */
#include "ol_fortran.h"

#include <stdlib.h>

/* ---- generalized requests -------------------------------------------------------- */

/* SUBROUTINE GREQUEST_QUERY_FUNCTION(EXTRA_STATE, STATUS, IERROR),
 * GREQUEST_FREE_FUNCTION(EXTRA_STATE, IERROR) and
 * GREQUEST_CANCEL_FUNCTION(EXTRA_STATE, COMPLETE, IERROR). */
typedef void fortran_query(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierror);
typedef void fortran_free(MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void fortran_cancel(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierror);

/* A request's procedures and the program's extra_state: the C
 * extra_state, freed after the free procedure ran (the last call). The
 * procedures get the program's own variable, as other implementations
 * give it, and programs count on: what they write there, the program
 * sees (MPICH's greqf test). */
typedef struct {
    fortran_query *query;
    fortran_free *free;
    fortran_cancel *cancel;
    MPI_Aint *extra_state;
} grequest_t;

/* A Fortran status is an MPI_Status (ol_f_status), so it is passed as is. */
static int query_trampoline(void *extra_state, MPI_Status *status)
{
    grequest_t *g = extra_state;
    MPI_Fint ierror = MPI_SUCCESS;
    g->query(g->extra_state, (MPI_Fint *)status, &ierror);
    return ierror;
}

static int free_trampoline(void *extra_state)
{
    grequest_t *g = extra_state;
    MPI_Fint ierror = MPI_SUCCESS;
    g->free(g->extra_state, &ierror);
    free(g);
    return ierror;
}

static int cancel_trampoline(void *extra_state, int complete)
{
    grequest_t *g = extra_state;
    MPI_Fint ierror = MPI_SUCCESS, complete_f = ol_f_logical_out(complete);
    g->cancel(g->extra_state, &complete_f, &ierror);
    return ierror;
}

OL_F_EXPORT void pmpi_grequest_start_(fortran_query *query_fn, fortran_free *free_fn,
                                      fortran_cancel *cancel_fn, MPI_Aint *extra_state,
                                      MPI_Fint *request, MPI_Fint *ierror)
{
    grequest_t *g = malloc(sizeof(*g));
    if (!g) {
        ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);
        return;
    }
    *g = (grequest_t){query_fn, free_fn, cancel_fn, extra_state};
    MPI_Request c_request = MPI_REQUEST_NULL;
    int rc = PMPI_Grequest_start(query_trampoline, free_trampoline, cancel_trampoline, g,
                                 &c_request);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_toint(c_request);
    else
        free(g);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(grequest_start, pmpi_grequest_start_)
OL_F08_ALIASES(grequest_start, pmpi_grequest_start_)

/* ---- data representations ---------------------------------------------------------- */

/* SUBROUTINE DATAREP_CONVERSION_FUNCTION(USERBUF, DATATYPE, COUNT, FILEBUF,
 *     POSITION, EXTRA_STATE, IERROR), mpi_f08's
 * MPI_Datarep_conversion_function_c (COUNT is INTEGER(KIND=MPI_COUNT_KIND))
 * and DATAREP_EXTENT_FUNCTION(DATATYPE, EXTENT, EXTRA_STATE, IERROR). */
typedef void fortran_conversion(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                                MPI_Offset *position, MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void fortran_conversion_c(void *userbuf, MPI_Fint *datatype, MPI_Count *count,
                                  void *filebuf, MPI_Offset *position, MPI_Aint *extra_state,
                                  MPI_Fint *ierror);
typedef void fortran_extent(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra_state,
                            MPI_Fint *ierror);

/* A representation's procedures (read and write, or read_c and write_c
 * for MPI_Register_datarep_c); kept for the life of the process, as a
 * representation cannot be unregistered. */
typedef struct {
    fortran_conversion *read, *write;
    fortran_conversion_c *read_c, *write_c;
    fortran_extent *extent;
    MPI_Aint extra_state;
} datarep_t;

/* MPI_CONVERSION_FN_NULL and MPI_CONVERSION_FN_NULL_C: procedures, which
 * the glue turns into C's. */
OL_F_EXPORT void pmpi_conversion_fn_null_(void *userbuf, MPI_Fint *datatype, MPI_Fint *count,
                                          void *filebuf, MPI_Offset *position,
                                          MPI_Aint *extra_state, MPI_Fint *ierror)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}
OL_F_ALIASES(conversion_fn_null, pmpi_conversion_fn_null_)

OL_F_EXPORT void pmpi_conversion_fn_null_c_(void *userbuf, MPI_Fint *datatype, MPI_Count *count,
                                            void *filebuf, MPI_Offset *position,
                                            MPI_Aint *extra_state, MPI_Fint *ierror)
{
    (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}
OL_F_ALIASES(conversion_fn_null_c, pmpi_conversion_fn_null_c_)

static int convert(fortran_conversion *fn, void *userbuf, MPI_Datatype datatype, int count,
                   void *filebuf, MPI_Offset position, datarep_t *d)
{
    MPI_Fint type_f = PMPI_Type_toint(datatype), count_f = count, ierror = MPI_SUCCESS;
    fn(userbuf, &type_f, &count_f, filebuf, &position, &d->extra_state, &ierror);
    return ierror;
}

static int convert_c(fortran_conversion_c *fn, void *userbuf, MPI_Datatype datatype,
                     MPI_Count count, void *filebuf, MPI_Offset position, datarep_t *d)
{
    MPI_Fint type_f = PMPI_Type_toint(datatype), ierror = MPI_SUCCESS;
    fn(userbuf, &type_f, &count, filebuf, &position, &d->extra_state, &ierror);
    return ierror;
}

static int read_trampoline(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                           MPI_Offset position, void *extra_state)
{
    datarep_t *d = extra_state;
    return convert(d->read, userbuf, datatype, count, filebuf, position, d);
}

static int write_trampoline(void *userbuf, MPI_Datatype datatype, int count, void *filebuf,
                            MPI_Offset position, void *extra_state)
{
    datarep_t *d = extra_state;
    return convert(d->write, userbuf, datatype, count, filebuf, position, d);
}

static int read_trampoline_c(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                             void *filebuf, MPI_Offset position, void *extra_state)
{
    datarep_t *d = extra_state;
    return convert_c(d->read_c, userbuf, datatype, count, filebuf, position, d);
}

static int write_trampoline_c(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                              void *filebuf, MPI_Offset position, void *extra_state)
{
    datarep_t *d = extra_state;
    return convert_c(d->write_c, userbuf, datatype, count, filebuf, position, d);
}

static int extent_trampoline(MPI_Datatype datatype, MPI_Aint *extent, void *extra_state)
{
    datarep_t *d = extra_state;
    MPI_Fint type_f = PMPI_Type_toint(datatype), ierror = MPI_SUCCESS;
    d->extent(&type_f, extent, &d->extra_state, &ierror);
    return ierror;
}

static int is_null_conversion(fortran_conversion *fn)
{
    return fn == pmpi_conversion_fn_null_ || fn == mpi_conversion_fn_null_;
}

static int is_null_conversion_c(fortran_conversion_c *fn)
{
    return fn == pmpi_conversion_fn_null_c_ || fn == mpi_conversion_fn_null_c_;
}

/* Registers the representation of *proto's procedures under the Fortran
 * name datarep: with MPI_Register_datarep_c when they are the _c ones. */
static int register_datarep(const char *datarep, size_t datarep_len, const datarep_t *proto)
{
    char *name = ol_f_string_in(datarep, datarep_len, 0);
    datarep_t *d = malloc(sizeof(*d));
    if (!name || !d) {
        free(name);
        free(d);
        return MPI_ERR_NO_MEM;
    }
    *d = *proto;
    int rc;
    if (d->read_c)
        rc = PMPI_Register_datarep_c(
            name, is_null_conversion_c(d->read_c) ? MPI_CONVERSION_FN_NULL_C : read_trampoline_c,
            is_null_conversion_c(d->write_c) ? MPI_CONVERSION_FN_NULL_C : write_trampoline_c,
            extent_trampoline, d);
    else
        rc = PMPI_Register_datarep(
            name, is_null_conversion(d->read) ? MPI_CONVERSION_FN_NULL : read_trampoline,
            is_null_conversion(d->write) ? MPI_CONVERSION_FN_NULL : write_trampoline,
            extent_trampoline, d);
    if (rc != MPI_SUCCESS)
        free(d);
    free(name);
    return rc;
}

OL_F_EXPORT void pmpi_register_datarep_(const char *datarep, fortran_conversion *read_fn,
                                        fortran_conversion *write_fn, fortran_extent *extent_fn,
                                        const MPI_Aint *extra_state, MPI_Fint *ierror,
                                        size_t datarep_len)
{
    datarep_t proto = {.read = read_fn, .write = write_fn, .extent = extent_fn,
                       .extra_state = *extra_state};
    ol_f_set_ierror(ierror, register_datarep(datarep, datarep_len, &proto));
}
OL_F_ALIASES(register_datarep, pmpi_register_datarep_)
OL_F08_ALIASES(register_datarep, pmpi_register_datarep_)

/* mpi_f08 only: the mpi module has no large-count forms. */
OL_F_EXPORT void pmpi_register_datarep_c_f08_(const char *datarep, fortran_conversion_c *read_fn,
                                              fortran_conversion_c *write_fn,
                                              fortran_extent *extent_fn,
                                              const MPI_Aint *extra_state, MPI_Fint *ierror,
                                              size_t datarep_len)
{
    datarep_t proto = {.read_c = read_fn, .write_c = write_fn, .extent = extent_fn,
                       .extra_state = *extra_state};
    ol_f_set_ierror(ierror, register_datarep(datarep, datarep_len, &proto));
}
OL_F08_OWN_ALIASES(register_datarep_c, pmpi_register_datarep_c_f08_)

/* ---- MPI_SIZEOF ------------------------------------------------------------------------ */

/* The specific procedures of the generic MPI_SIZEOF of both modules, one
 * per type and kind (gen_fortran.py: SIZEOF_KINDS): the size is known from
 * which one the compiler chose; the argument itself is not read. A
 * CHARACTER's is its length, passed hidden. */
#define SIZEOF(name, bytes)                                                                      \
    OL_F_EXPORT void pmpi_sizeof_##name##_(const void *x, MPI_Fint *size, MPI_Fint *ierror)      \
    {                                                                                            \
        (void)x;                                                                                 \
        *size = bytes;                                                                           \
        ol_f_set_ierror(ierror, MPI_SUCCESS);                                                    \
    }                                                                                            \
    OL_F_EXPORT extern __typeof__(pmpi_sizeof_##name##_) mpi_sizeof_##name##_                    \
        __attribute__((weak, alias("pmpi_sizeof_" #name "_")));                                  \
    OL_F08_ALIASES(sizeof_##name, pmpi_sizeof_##name##_)
SIZEOF(integer1, 1)
SIZEOF(integer2, 2)
SIZEOF(integer4, 4)
SIZEOF(integer8, 8)
SIZEOF(real4, 4)
SIZEOF(real8, 8)
SIZEOF(complex4, 8)
SIZEOF(complex8, 16)
SIZEOF(logical1, 1)
SIZEOF(logical2, 2)
SIZEOF(logical4, 4)
SIZEOF(logical8, 8)

OL_F_EXPORT void pmpi_sizeof_character_(const char *x, MPI_Fint *size, MPI_Fint *ierror,
                                        size_t x_len)
{
    (void)x;
    *size = (MPI_Fint)x_len;
    ol_f_set_ierror(ierror, MPI_SUCCESS);
}
OL_F_EXPORT extern __typeof__(pmpi_sizeof_character_) mpi_sizeof_character_
    __attribute__((weak, alias("pmpi_sizeof_character_")));
OL_F08_ALIASES(sizeof_character, pmpi_sizeof_character_)
