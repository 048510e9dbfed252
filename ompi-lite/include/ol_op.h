/* Reduction operators: the object behind an MPI_Op handle, and applying
 * one to host memory (inout[i] = in[i] op inout[i]).
 *
 * Predefined ops are a table indexed by ABI handle value (0x20 ... 0x3f);
 * for each op and predefined datatype there is one loop written so that the
 * compiler vectorises it. User ops (MPI_Op_create) are ol_op_t objects whose
 * address is the handle. */
#ifndef OL_OP_H
#define OL_OP_H

#include "ol_datatype.h"

#define OL_OP_MAGIC 0x6f6c6f70U /* "olop" */

typedef void (*ol_op_loop_t)(const void *in, void *inout, size_t count);

typedef struct ol_op {
    uint32_t magic;
    int refcount;                       /* user ops: the handle and pending reductions */
    bool predefined;
    bool commutative;
    int index;                          /* predefined: handle value - 0x20 */
    MPI_User_function *user_fn;         /* MPI_Op_create */
    MPI_User_function_c *user_fn_c;     /* MPI_Op_create_c */
    const char *name;
} ol_op_t;

ol_op_t *ol_op_from_handle(MPI_Op handle);

/* A reduction in flight keeps a user op alive after MPI_Op_free. */
void ol_op_retain(ol_op_t *op);
void ol_op_release(ol_op_t *op);
MPI_Op ol_op_to_handle(const ol_op_t *op);

/* The loop of a predefined op for a predefined datatype, NULL when the
 * standard does not define the op on that type. */
ol_op_loop_t ol_op_loop(const ol_op_t *op, const ol_datatype_t *dt);

/* The binary16 loops (MPIX_C_FLOAT16, MPI_REAL2) convert with F16C where
 * the CPU has it, else with scalar code that gives the same bits. For
 * tests: vector false forces the scalar loops, true the F16C ones (false
 * returned, nothing changed, where the CPU lacks F16C). */
bool ol_op_half_use_vector(bool vector);

/* The literals of Fortran's .TRUE. and .FALSE. for a LOGICAL of size
 * bytes, which MPI_LAND, MPI_LOR and MPI_LXOR read (anything but .FALSE. is
 * true) and write: 1 and 0 until a Fortran layer sets those of its compiler
 * (MPI_Abi_set_fortran_booleans), for the sizes that exist (1, 2, 4, 8). */
bool ol_op_fortran_logical_size_exists(size_t size);
void ol_op_set_fortran_booleans(size_t size, const void *true_value, const void *false_value);
/* False (and nothing copied) until they were set. */
bool ol_op_get_fortran_booleans(size_t size, void *true_value, void *false_value);
/* Whether dt is a Fortran LOGICAL whose literals were set. */
bool ol_op_fortran_booleans_set(const ol_datatype_t *dt);

/* Whether a device kernel computes op on dt as the host's loop would: the
 * op is defined on dt, a kernel exists (ol_accel_can_reduce), and dt is no
 * Fortran LOGICAL whose literals a Fortran layer set (the kernels' logical
 * ops write 1 and 0). */
bool ol_op_device_kernel(const ol_op_t *op, const ol_datatype_t *dt);

/* MPI_SUCCESS when op may reduce dt in a reduction (not an accumulate): a
 * predefined op on a type it is defined for (derived types: on the one
 * predefined type all their data is made of), not MPI_REPLACE or
 * MPI_NO_OP, or any user op; else MPI_ERR_OP with the sentence recorded
 * (ol_error_detail). */
ol_status_t ol_op_check_reduction(const ol_op_t *op, const ol_datatype_t *dt);

/* inout = in op inout, count elements of dt. User ops get the datatype
 * handle; predefined ops on a derived type run on its basic elements, in
 * packed order (MPI_REPLACE: inout = in; MPI_NO_OP: nothing). */
ol_status_t ol_op_apply(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                        ol_datatype_t *dt);

/* ol_op_apply when an operand is in device memory (op/apply_device.c). */
ol_status_t ol_op_apply_device(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                               ol_datatype_t *dt);

#endif
