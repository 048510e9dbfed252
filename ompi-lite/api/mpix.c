/* MPIX_ functions (mpi-ext.h): extensions outside the standard, so not in
 * functions.def; written by hand with the same PMPI/MPI pairing as the
 * generated bindings (MPIX_ is a weak alias of PMPIX_). */
#include "mpi-ext.h"
#include "ol_accel.h"

OL_EXPORT int PMPIX_Query_cuda_support(void)
{
    return ol_accel_built() && ol_accel_visible_devices() > 0;
}

OL_EXPORT extern __typeof__(PMPIX_Query_cuda_support) MPIX_Query_cuda_support
    __attribute__((weak, alias("PMPIX_Query_cuda_support")));
