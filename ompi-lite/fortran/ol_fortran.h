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
#include <stdint.h>

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

/* The error code out through ierror, which mpi_f08 makes OPTIONAL: an
 * absent one arrives as NULL. */
static inline void ol_f_set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror)
        *ierror = rc;
}

/* The names of an mpi_f08 specific procedure whose arguments are those of
 * the mpi module's (handles are BIND(C) types holding the INTEGER,
 * TYPE(MPI_Status) is the INTEGER status): MPI_X_f08 is mpi_x_f08_ to
 * gfortran, weak like mpi_x_, with pmpi_x_f08_ for profiling tools. */
#define OL_F08_ALIASES(stem, defined)                                                            \
    OL_F_EXPORT extern __typeof__(defined) mpi_##stem##_f08_ __attribute__((weak, alias(#defined)));\
    OL_F_EXPORT extern __typeof__(defined) pmpi_##stem##_f08_ __attribute__((alias(#defined)));
/* The specific procedures with TYPE(*), DIMENSION(..) buffers (MPI_X_f08ts,
 * BIND(C) since they take descriptors) are defined as pmpi_x_f08ts_. */
#define OL_F08TS_ALIASES(stem, defined)                                                          \
    OL_F_EXPORT extern __typeof__(defined) mpi_##stem##_f08ts_ __attribute__((weak, alias(#defined)));

/* The names of an mpi_f08 procedure with glue of its own, defined as
 * pmpi_x_f08_ (an argument that differs from the mpi module's). */
#define OL_F08_OWN_ALIASES(stem, defined)                                                        \
    OL_F_EXPORT extern __typeof__(defined) mpi_##stem##_f08_ __attribute__((weak, alias(#defined)));

/* Arrays of up to this many handles or logicals convert on the stack. */
#define OL_F_STACK_HANDLES 32

/* ---- handles ------------------------------------------------------------- */

/* An INTEGER handle in. The ABI reserves 1 ... 4095 for predefined handles,
 * and a predefined handle's INTEGER is its ABI value (MPI_X_toint), so
 * those convert by a cast, with no call into the C library on the path of
 * every call that names MPI_COMM_WORLD or MPI_DOUBLE_PRECISION
 * (test/bench/osu_latency_f08); the C call checks the handle as it checks
 * a C program's. Other values go through MPI_X_fromint. */
#define OL_F_PREDEFINED_LIMIT 4096
#define OL_F_FROMINT(Ctype, Stem, value)                                                         \
    (__builtin_expect((value) > 0 && (value) < OL_F_PREDEFINED_LIMIT, 1)                         \
         ? (Ctype)(intptr_t)(value)                                                              \
         : PMPI_##Stem##_fromint(value))

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

/* An address out to a TYPE(C_PTR): MPI_BUFFER_AUTOMATIC becomes the
 * address of its COMMON block, which C_LOC(MPI_BUFFER_AUTOMATIC) gives. */
static inline void *ol_f_address_out(void *address)
{
    return address == MPI_BUFFER_AUTOMATIC ? (void *)&mpi_fortran_buffer_automatic_ : address;
}

/* A Fortran status, INTEGER(MPI_STATUS_SIZE) or mpi_f08's TYPE(MPI_Status),
 * is an MPI_Status (fortran_status.c checks the layouts); each interface
 * has its own ignore sentinels. */
static inline MPI_Status *ol_f_status(MPI_Fint *status)
{
    if (status == MPI_F_STATUS_IGNORE || status == (MPI_Fint *)MPI_F08_STATUS_IGNORE)
        return MPI_STATUS_IGNORE;
    return (MPI_Status *)status;
}

static inline MPI_Status *ol_f_statuses(MPI_Fint *statuses)
{
    if (statuses == MPI_F_STATUSES_IGNORE || statuses == (MPI_Fint *)MPI_F08_STATUSES_IGNORE)
        return MPI_STATUSES_IGNORE;
    return (MPI_Status *)statuses;
}

static inline MPI_Fint *ol_f_weights(const MPI_Fint *weights)
{
    if (weights == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (weights == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return (MPI_Fint *)weights;
}

/* Indices into an array of requests from C's 0-based to Fortran's 1-based:
 * the first n of them (none where n is MPI_UNDEFINED); MPI_UNDEFINED
 * stays as it is. */
static inline void ol_f_indices_out(MPI_Fint *indices, int n)
{
    for (int i = 0; i < n; i++)
        if (indices[i] != MPI_UNDEFINED)
            indices[i]++;
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
/* The length of an alltoallw datatype array: the size of the group, the
 * remote group of an intercommunicator (0 for an invalid communicator,
 * which the call then refuses). */
int ol_f_group_size(MPI_Comm comm);
/* The length of a neighbour alltoallw datatype array: the number of
 * neighbours sent to (`out`) or received from, by the topology's rules. */
int ol_f_degree(MPI_Comm comm, int out);

/* ---- strings --------------------------------------------------------------- */

/* A CHARACTER(LEN=len) argument as a C string without its trailing blanks
 * (and leading ones, when `strip_leading`); malloc'ed, NULL without memory. */
char *ol_f_string_in(const char *string, size_t len, int strip_leading);
/* A C string into a CHARACTER(LEN=len): truncated, or padded with blanks. */
void ol_f_string_out(char *string, size_t len, const char *c_string);

/* ---- mpi_f08 choice buffers (glue_f08.c) --------------------------------------- */

#include <ISO_Fortran_binding.h>

/* What the C call gets for a TYPE(*), DIMENSION(..) buffer. A contiguous
 * actual argument (scalars included) passes its own address; a
 * non-contiguous array section is either copied (blocking calls: `copy`,
 * written back after the call) or described by a datatype made from the
 * descriptor's strides (calls whose buffer outlives them: `section`, freed
 * after the call, since MPI keeps a datatype in use alive). */
typedef struct {
    void *base;
    MPI_Count count;
    MPI_Datatype type;
    MPI_Datatype section;
    void *copy;
    const CFI_cdesc_t *desc;
} ol_f08_buffer_t;
#define OL_F08_BUFFER_INIT {NULL, 0, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, NULL, NULL}

/* Whether the elements follow one another with no gap (scalars, whole
 * arrays, contiguous sections; empty ones too, since nothing is read).
 * Scalars and arrays of rank 1, every call's common case, are decided
 * inline; higher ranks by glue_f08.c. */
int ol_f08_contiguous_ranks(const CFI_cdesc_t *desc);
static inline int ol_f08_is_contiguous(const CFI_cdesc_t *desc)
{
    if (desc->rank == 0)
        return 1;
    if (desc->rank == 1)
        return desc->dim[0].extent <= 1 || desc->dim[0].sm == (CFI_index_t)desc->elem_len;
    return ol_f08_contiguous_ranks(desc);
}

/* The buffer of a contiguous argument: its own address. */
static inline void ol_f08_buffer_plain(const CFI_cdesc_t *desc, ol_f08_buffer_t *b,
                                       MPI_Count count, MPI_Datatype type)
{
    *b = (ol_f08_buffer_t){.base = ol_f_buffer(desc->base_addr),
                           .count = count,
                           .type = type,
                           .section = MPI_DATATYPE_NULL,
                           .copy = NULL,
                           .desc = desc};
}

/* For a blocking call: the address, through a contiguous copy of a
 * section. MPI_SUCCESS or MPI_ERR_NO_MEM. The copy is glue_f08.c's. */
int ol_f08_buffer_copy_section(const CFI_cdesc_t *desc, ol_f08_buffer_t *b);
static inline int ol_f08_buffer_copy(const CFI_cdesc_t *desc, ol_f08_buffer_t *b)
{
    ol_f08_buffer_plain(desc, b, 0, MPI_DATATYPE_NULL);
    if (__builtin_expect(ol_f08_is_contiguous(desc), 1))
        return MPI_SUCCESS;
    return ol_f08_buffer_copy_section(desc, b);
}
/* After it: the copy written back to the section (when `write_back`) and freed. */
void ol_f08_buffer_copy_back_section(ol_f08_buffer_t *b, int write_back);
static inline void ol_f08_buffer_copy_back(ol_f08_buffer_t *b, int write_back)
{
    if (b->copy)
        ol_f08_buffer_copy_back_section(b, write_back);
}
/* For a call whose buffer outlives it: count items of `type` read as from
 * the section laid end to end. A section needs a datatype without holes
 * (size == extent, lower bound 0) whose extent divides the element's
 * length, and count items that fit in the section; `count` < 0 means the
 * call has no count of its own for this buffer, so only contiguous data is
 * taken. MPI_SUCCESS, or MPI_ERR_BUFFER with the reason in `why`. The
 * datatype of a section is glue_f08.c's. */
int ol_f08_buffer_typed_section(const CFI_cdesc_t *desc, MPI_Count count, MPI_Datatype type,
                                ol_f08_buffer_t *b, const char **why);
static inline int ol_f08_buffer_typed(const CFI_cdesc_t *desc, MPI_Count count,
                                      MPI_Datatype type, ol_f08_buffer_t *b, const char **why)
{
    ol_f08_buffer_plain(desc, b, count, type);
    if (__builtin_expect(ol_f08_is_contiguous(desc) || count == 0, 1))
        return MPI_SUCCESS;
    return ol_f08_buffer_typed_section(desc, count, type, b, why);
}
/* After it: the section's datatype freed. */
void ol_f08_buffer_release_section(ol_f08_buffer_t *b);
static inline void ol_f08_buffer_release(ol_f08_buffer_t *b)
{
    if (b->section != MPI_DATATYPE_NULL)
        ol_f08_buffer_release_section(b);
}
/* A buffer refused: one line naming the call and the reason where the
 * communicator's handler is fatal, then its handler with MPI_ERR_BUFFER. */
void ol_f08_refuse(const char *fn_name, MPI_Comm comm, const char *why, MPI_Fint *ierror);

/* ---- attributes -------------------------------------------------------------- */

/* The Fortran value of an attribute: the address-sized value a Fortran
 * program stored, or for the predefined attributes of communicators and
 * windows, whose C value is the address of the value (but MPI_WIN_BASE,
 * the address itself), that value. */
typedef enum { OL_F_ON_COMM, OL_F_ON_TYPE, OL_F_ON_WIN } ol_f_attr_object_t;

/* An attribute value set from Fortran is stored as the address of a cell
 * holding it, so that C code reading it gets the address of the value, as
 * MPI-4.1 19.3.7 says; Fortran gets the value back (ol_f_cell_value). A
 * new cell holding `value`, NULL without memory. */
MPI_Aint *ol_f_cell_new(MPI_Aint value);
/* The Fortran value of a C attribute value: a cell's content, or for a
 * value C code set, the pointer itself as an integer. */
MPI_Aint ol_f_cell_value(const void *value);
MPI_Aint ol_f_attribute_value(MPI_Fint keyval, void *value, ol_f_attr_object_t on);

#endif
