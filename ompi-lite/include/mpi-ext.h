/* ompi-lite's extensions to MPI, outside the standard ABI of mpi.h, as
 * Open MPI offers them: include after mpi.h. */
#ifndef OMPI_LITE_MPI_EXT_H
#define OMPI_LITE_MPI_EXT_H

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when device (CUDA) buffers may be passed to MPI calls: this library was
 * built with CUDA support and the CUDA driver opens and shows at least one
 * GPU; else 0. May be called before MPI_Init. (The answer is decided at run
 * time; mpi-ext.h does not define MPIX_CUDA_AWARE_SUPPORT.) */
int MPIX_Query_cuda_support(void);
int PMPIX_Query_cuda_support(void);

#ifdef __cplusplus
}
#endif

#endif
