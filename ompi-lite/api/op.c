/* Reduction operators of the API: user ops (MPI_Op_create) and
 * MPI_Reduce_local. The ops themselves live in op/. */
#include "gen_impl.h"

#include <stdlib.h>

static int create(MPI_User_function *fn, MPI_User_function_c *fn_c, int commute, MPI_Op *op)
{
    if (!fn && !fn_c) {
        ol_api_set_detail("user_fn is NULL");
        return MPI_ERR_ARG;
    }
    ol_op_t *o = malloc(sizeof(*o));
    if (!o)
        return MPI_ERR_NO_MEM;
    *o = (ol_op_t){.magic = OL_OP_MAGIC, .refcount = 1, .commutative = commute != 0,
                   .user_fn = fn, .user_fn_c = fn_c, .name = "a user-defined op"};
    *op = ol_op_to_handle(o);
    return MPI_SUCCESS;
}

int ol_api_op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return create(user_fn, NULL, commute, op);
}

int ol_api_op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return create(NULL, user_fn, commute, op);
}

/* The handle goes at once; the op lives on while a nonblocking or
 * persistent reduction that uses it does. */
int ol_api_op_free(MPI_Op *op)
{
    ol_op_t *o = ol_op_from_handle(*op);
    if (!o) {
        ol_api_set_detail("op is %s", *op == MPI_OP_NULL ? "MPI_OP_NULL" : "not a valid operation");
        return MPI_ERR_OP;
    }
    if (o->predefined) {
        ol_api_set_detail("%s is predefined and cannot be freed", o->name);
        return MPI_ERR_OP;
    }
    ol_op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int ol_api_op_commutative(ol_op_t *op, int *commute)
{
    *commute = op->commutative;
    return MPI_SUCCESS;
}

int ol_api_reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count,
                          ol_datatype_t *datatype, ol_op_t *op)
{
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE) {
        ol_api_set_detail("MPI_Reduce_local takes no MPI_IN_PLACE");
        return MPI_ERR_BUFFER;
    }
    if (count > 0 && inbuf == inoutbuf) {
        ol_api_set_detail("inbuf and inoutbuf are the same buffer");
        return MPI_ERR_BUFFER;
    }
    int rc = ol_op_check_reduction(op, datatype);
    if (rc != MPI_SUCCESS)
        return rc;
    return ol_op_apply(op, inbuf, inoutbuf, count, datatype);
}
