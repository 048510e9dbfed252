/* Internal interface between the two parts of the fake CUDA driver (a test
 * double, see README.md): the driver entry points (fake_cuda.c) and the
 * reduction kernels it runs on the host (fake_cuda_kernels.c). Nothing
 * here is exported: fake_cuda.map lists the only public symbols. */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <stdbool.h>
#include <stddef.h>

/* ol_reduce_many_* takes its inputs as a struct of this many pointers. */
#define FAKE_KERNEL_MAX_INPUTS 8

/* out[i] = ins[0][i] op ins[1][i] op ... op ins[n-1][i]; every pointer is
 * host-accessible (the fake's read-write aliases of device memory). */
typedef void fake_kernel_loop_fn(int op, void *out, void *const *ins, int n, size_t count);

/* A kernel the fake knows by name. */
typedef struct {
    bool many;              /* ol_reduce_many_<op>_<type>, else ol_reduce_<op>_<type> */
    int op;                 /* private index passed back to loop */
    size_t elem_size;       /* bytes per element */
    size_t elem_align;      /* alignment the device would require */
    fake_kernel_loop_fn *loop;
} fake_kernel_t;

/* Fills *kernel for a kernel name of the two families; false when the
 * name is not one (wrong prefix, unknown op or type, op not defined on the
 * type). */
bool fake_kernel_lookup(const char *name, fake_kernel_t *kernel);

#endif
