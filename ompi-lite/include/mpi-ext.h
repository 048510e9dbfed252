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

/* Half-precision floating point, as ML codes send it: IEEE binary16 (C's
 * _Float16, CUDA's __half; the same format as MPI_REAL2) and bfloat16
 * (__nv_bfloat16: a float's upper 16 bits). Point-to-point, constructors,
 * collectives, and MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX on host and device
 * buffers; each pairwise step is computed in float and rounded back to the
 * type (to nearest, ties to even), as NCCL does.
 *
 * Their handles lie outside the MPI-5.0 ABI's handle code, which uses the
 * low 10 bits of the 12 bits reserved for predefined handles (1 ... 4095):
 * bits 11:10 are 01 (the standard's are 00), bits 9:0 are coded as the
 * standard codes a 2-byte fixed-size C type (0x248 int16_t, 0x249
 * uint16_t), so that a tool that reads the low 10 bits sees a datatype of 2
 * bytes. See ompi-lite/abi/README.md. */
#define MPIX_C_FLOAT16 ((MPI_Datatype)0x0000064a)
#define MPIX_C_BF16 ((MPI_Datatype)0x0000064b)

#ifdef __cplusplus
}
#endif

#endif
