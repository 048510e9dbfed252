/* The C glue of the Fortran bindings (mpif.h and the mpi module): the
 * conversions every generated entry point uses (fortran_glue.c, written by
 * gen_fortran.py) and the hand-written ones (glue_special.c).
 *
 * The glue sees the C library through mpi.h only: it calls PMPI_X and the
 * ABI's handle conversions, as any program could. */
#ifndef OL_FORTRAN_H
#define OL_FORTRAN_H

#include <mpi.h>

#include <stdbool.h>
#include <stddef.h>

#define OL_F_EXPORT __attribute__((visibility("default")))

/* The names a Fortran compiler may give MPI_X, besides gfortran's mpi_x_
 * (pmpi_x_ is the definition): mpi_x__ (g77, gfortran -fsecond-underscore)
 * and mpi_x (-fno-underscoring, IBM XL), each with its PMPI twin. The mpi_
 * names are weak, so that a profiling tool may define them and call pmpi_. */
#define OL_F_ALIASES(stem, defined)                                                              \
    OL_F_EXPORT extern __typeof__(defined) mpi_##stem##_ __attribute__((weak, alias(#defined))); \
    OL_F_EXPORT extern __typeof__(defined) mpi_##stem##__ __attribute__((weak, alias(#defined)));\
    OL_F_EXPORT extern __typeof__(defined) mpi_##stem __attribute__((weak, alias(#defined)));    \
    OL_F_EXPORT extern __typeof__(defined) pmpi_##stem##__ __attribute__((alias(#defined)));     \
    OL_F_EXPORT extern __typeof__(defined) pmpi_##stem __attribute__((alias(#defined)));

/* Arrays of up to this many handles or logicals convert on the stack. */
#define OL_F_STACK_HANDLES 32

/* ---- sentinels: the COMMON blocks of mpif.h and the mpi module ---------- */

/* COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM and the others (glue_support.c);
 * the status ones are the C library's (mpi.h: MPI_F_STATUS_IGNORE). */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
extern MPI_Fint mpi_fortran_unweighted_[1], mpi_fortran_weights_empty_[1];

/* A choice buffer: MPI_BOTTOM, MPI_IN_PLACE and MPI_BUFFER_AUTOMATIC arrive
 * as the addresses of their COMMON blocks. */
static inline void *ol_f_buffer(void *buf)
{
    if (buf == &mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (buf == &mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (buf == &mpi_fortran_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
    return buf;
}

/* A Fortran status is an MPI_Status (fortran_status.c checks the layout). */
static inline MPI_Status *ol_f_status(MPI_Fint *status)
{
    return status == MPI_F_STATUS_IGNORE ? MPI_STATUS_IGNORE : (MPI_Status *)status;
}

static inline MPI_Status *ol_f_statuses(MPI_Fint *statuses)
{
    return statuses == MPI_F_STATUSES_IGNORE ? MPI_STATUSES_IGNORE : (MPI_Status *)statuses;
}

static inline MPI_Fint *ol_f_weights(const MPI_Fint *weights)
{
    if (weights == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (weights == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return (MPI_Fint *)weights;
}

/* ---- LOGICAL: the compiler's literals (fortran_types.f90) --------------- */

extern MPI_Fint ol_f_true, ol_f_false;

static inline int ol_f_logical_in(MPI_Fint value)
{
    return value != ol_f_false;
}

static inline MPI_Fint ol_f_logical_out(int value)
{
    return value ? ol_f_true : ol_f_false;
}

/* Tells the C library the compiler's sizes and literals; once, at the first
 * MPI_INIT or MPI_INIT_THREAD. */
void ol_f_register_types(void);

/* ---- arrays -------------------------------------------------------------- */

/* Requests in, converted; `stack` when n fits it; NULL without memory. */
MPI_Request *ol_f_requests_in(const MPI_Fint *requests, MPI_Fint n, MPI_Request *stack);
/* Back to INTEGERs (completed requests are MPI_REQUEST_NULL), freed. */
void ol_f_requests_out(MPI_Request *c_requests, MPI_Fint *requests, MPI_Fint n,
                       MPI_Request *stack);
/* Datatypes in (converted when `convert`, else MPI_DATATYPE_NULL) and out. */
MPI_Datatype *ol_f_types_in(const MPI_Fint *types, MPI_Fint n, MPI_Datatype *stack, int convert);
void ol_f_types_out(MPI_Datatype *c_types, MPI_Fint *types, MPI_Fint n, MPI_Datatype *stack,
                    int convert);
/* LOGICAL arrays as C ints, and back. */
int *ol_f_logicals_in(const MPI_Fint *logicals, MPI_Fint n, int *stack, int convert);
void ol_f_logicals_out(int *c_logicals, MPI_Fint *logicals, MPI_Fint n, int *stack, int convert);
/* Frees a converted array that is not the stack one. */
void ol_f_release(void *array, void *stack);

/* The number of dimensions of a Cartesian communicator (0 if it is not one). */
int ol_f_cartdim(MPI_Comm comm);

/* ---- strings --------------------------------------------------------------- */

/* A CHARACTER(LEN=len) argument as a C string without its trailing blanks
 * (and leading ones, when `strip_leading`); malloc'ed, NULL without memory. */
char *ol_f_string_in(const char *string, size_t len, int strip_leading);
/* A C string into a CHARACTER(LEN=len): truncated, or padded with blanks. */
void ol_f_string_out(char *string, size_t len, const char *c_string);

/* ---- attributes -------------------------------------------------------------- */

/* The Fortran value of an attribute: the address-sized value a Fortran
 * program stored, or for the predefined attributes of communicators and
 * windows, whose C value is the address of the value (but MPI_WIN_BASE,
 * the address itself), that value. */
typedef enum { OL_F_ON_COMM, OL_F_ON_TYPE, OL_F_ON_WIN } ol_f_attr_object_t;
MPI_Aint ol_f_attribute_value(MPI_Fint keyval, void *value, ol_f_attr_object_t on);

#endif
