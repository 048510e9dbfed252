/* Applying an operator when an operand is in device memory: a CUDA kernel
 * when the accel layer has one for the op and type, both operands are on
 * the device and the kernels load here (ol_accel_kernels_usable);
 * otherwise the operands are staged through host memory and the host path
 * applies the op (user ops, MINLOC/MAXLOC pairs, mixed host and device
 * operands, an old driver or GPU). */
#include "ol_accel.h"
#include "ol_op.h"

#include <stdlib.h>

/* A host copy of a device operand, laid out as the original: *base plays
 * the role of the user's pointer. */
static ol_status_t host_copy(const void *dev, MPI_Count count, const ol_datatype_t *dt,
                             char **copy, char **base)
{
    ol_status_t rc = ol_accel_copy_span_to_host(dev, count, dt, copy);
    if (rc == OL_OK)
        *base = ol_dt_buffer_for(*copy, dt);
    return rc;
}

static ol_status_t apply_staged(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                                ol_datatype_t *dt, bool in_dev, bool inout_dev)
{
    char *in_copy = NULL, *inout_copy = NULL, *in_host = (char *)in, *inout_host = inout;
    ol_status_t rc = OL_OK;
    if (in_dev)
        rc = host_copy(in, count, dt, &in_copy, &in_host);
    if (rc == OL_OK && inout_dev)
        rc = host_copy(inout, count, dt, &inout_copy, &inout_host);
    if (rc == OL_OK)
        rc = ol_op_apply(op, in_host, inout_host, count, dt);
    if (rc == OL_OK && inout_dev)
        rc = ol_accel_copy(ol_dt_data_at(inout, dt), inout_copy, ol_dt_span(dt, count));
    free(in_copy);
    free(inout_copy);
    return rc;
}

bool ol_op_device_kernel(const ol_op_t *op, const ol_datatype_t *dt)
{
    const ol_datatype_t *basic = ol_dt_basic_type(dt);
    return basic && op->predefined && ol_op_loop(op, basic) &&
           !ol_op_fortran_booleans_set(basic) && ol_accel_can_reduce(op, dt);
}

ol_status_t ol_op_apply_device(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                               ol_datatype_t *dt)
{
    bool in_dev = ol_accel_is_device(ol_dt_data_at(in, dt));
    bool inout_dev = ol_accel_is_device(ol_dt_data_at(inout, dt));
    if (!ol_accel_usable())
        return ol_accel_unsupported("a reduction operand", inout_dev ? inout : in);
    if (in_dev && inout_dev && dt->contiguous && ol_op_device_kernel(op, dt) &&
        ol_accel_kernels_usable(inout))
        return ol_accel_reduce(op, dt, in, inout, (size_t)count);
    return apply_staged(op, in, inout, count, dt, in_dev, inout_dev);
}
