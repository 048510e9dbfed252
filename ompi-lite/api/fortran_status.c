/* Status conversion between C and Fortran (MPI-5.0 19.3.5), and the storage
 * of the Fortran status sentinels. Outside the standard ABI (mpi.h declares
 * them after it), but in the C library whether or not a Fortran layer is
 * built: C programs that serve Fortran callers use them.
 *
 * The three layouts are the same eight ints: MPI_Status of the ABI, a
 * Fortran INTEGER status(MPI_STATUS_SIZE) (MPI_Fint is int and the ABI's
 * MPI_F_SOURCE/TAG/ERROR are 0, 1, 2, the C field order) and
 * MPI_F08_status. So every conversion is a copy; what they add is the
 * refusal of the ignore sentinels, which hold no status.
 *
 * The sentinels are the COMMON blocks of mpif.h and the mpi module
 * (COMMON /mpi_fortran_status_ignore/ ... is the symbol
 * mpi_fortran_status_ignore_ under gfortran's naming), defined here so that
 * MPI_F_STATUS_IGNORE means the same address in C as in Fortran. */
#include "ol_api.h"

#include <string.h>

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a Fortran status is an MPI_Status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "the Fortran status indices are the C field order");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "TYPE(MPI_Status) is an MPI_Status");

OL_EXPORT MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
OL_EXPORT MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
OL_EXPORT MPI_F08_status mpi_f08_status_ignore_;
OL_EXPORT MPI_F08_status mpi_f08_statuses_ignore_;

static bool is_ignore(const void *status)
{
    return status == NULL || status == (const void *)MPI_F_STATUS_IGNORE ||
           status == (const void *)MPI_F_STATUSES_IGNORE ||
           status == (const void *)MPI_F08_STATUS_IGNORE ||
           status == (const void *)MPI_F08_STATUSES_IGNORE;
}

/* The standard makes passing an ignore sentinel erroneous; the copy is
 * refused with MPI_ERR_ARG through MPI_COMM_SELF's handler, as for any
 * error that concerns no object. */
static int copy_status(const char *fn_name, const void *from, void *to)
{
    const char *which = is_ignore(from) ? "the status to convert" : "the status written";
    const void *bad = is_ignore(from) ? from : to;
    if (is_ignore(bad)) {
        ol_api_set_detail("%s is %s", which,
                          bad ? "an ignore sentinel, which holds no status" : "NULL");
        return ol_api_raise(fn_name, NULL, MPI_ERR_ARG);
    }
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

#define STATUS_CONVERSION(NAME, FROM_TYPE, FROM, TO_TYPE, TO)                                    \
    OL_EXPORT int P##NAME(const FROM_TYPE *FROM, TO_TYPE *TO)                                    \
    {                                                                                            \
        return copy_status(#NAME, FROM, TO);                                                     \
    }                                                                                            \
    OL_EXPORT extern __typeof__(P##NAME) NAME __attribute__((weak, alias("P" #NAME)));

STATUS_CONVERSION(MPI_Status_c2f, MPI_Status, c_status, MPI_Fint, f_status)
STATUS_CONVERSION(MPI_Status_f2c, MPI_Fint, f_status, MPI_Status, c_status)
STATUS_CONVERSION(MPI_Status_c2f08, MPI_Status, c_status, MPI_F08_status, f08_status)
STATUS_CONVERSION(MPI_Status_f082c, MPI_F08_status, f08_status, MPI_Status, c_status)
STATUS_CONVERSION(MPI_Status_f2f08, MPI_Fint, f_status, MPI_F08_status, f08_status)
STATUS_CONVERSION(MPI_Status_f082f, MPI_F08_status, f08_status, MPI_Fint, f_status)
