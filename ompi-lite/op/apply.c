/* Applying an operator: the predefined loop, or the user's function. */
#include "ol_op.h"

bool ol_op_fits(const ol_op_t *op, const ol_datatype_t *dt)
{
    return !op->predefined || ol_op_loop(op, dt) != NULL;
}

ol_status_t ol_op_apply(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                        ol_datatype_t *dt)
{
    if (!op->predefined) {
        MPI_Datatype handle = ol_dt_to_handle(dt);
        if (op->user_fn_c) {
            op->user_fn_c((void *)in, inout, &count, &handle);
            return OL_OK;
        }
        /* int-count user functions take at most INT_MAX elements a call */
        for (MPI_Count done = 0; done < count;) {
            int n = count - done > INT32_MAX ? INT32_MAX : (int)(count - done);
            op->user_fn((char *)in + done * dt->extent, (char *)inout + done * dt->extent, &n,
                        &handle);
            done += n;
        }
        return OL_OK;
    }
    ol_op_loop_t loop = ol_op_loop(op, dt);
    if (!loop) {
        ol_error_detail("%s is not defined for datatype %s", op->name, dt->name);
        return MPI_ERR_OP;
    }
    loop(in, inout, (size_t)count);
    return OL_OK;
}
