/* Applying an operator: the predefined loop, or the user's function.
 *
 * A predefined op applies to a derived datatype whose data is all one
 * predefined type (a vector of doubles, a struct of three ints, a
 * contiguous run of MPI_DOUBLE_INT pairs): the elements are the basic
 * type's, in the datatype's packed order, so the loop runs over the packed
 * stream, a chunk at a time through the datatype engine's cursors; a
 * contiguous type needs no packing at all. */
#include "ol_accel.h"
#include "ol_op.h"

#include <stdlib.h>

#include <string.h>

/* Bytes of one chunk of packed data on the stack. */
enum { CHUNK_BYTES = 4096 };

static bool is_handle(const ol_op_t *op, MPI_Op handle)
{
    return op == ol_op_from_handle(handle);
}

/* The loop of a predefined op for dt's basic type, NULL when there is
 * none (MPI_REPLACE and MPI_NO_OP have none). */
static ol_op_loop_t loop_for(const ol_op_t *op, const ol_datatype_t *dt)
{
    const ol_datatype_t *basic = ol_dt_basic_type(dt);
    return basic ? ol_op_loop(op, basic) : NULL;
}

/* The loop is looked up first: every reduction checks its op, and the
 * common op has one (2-rank MPI_Reduce of 4 B, callgrind: 1345 -> 1272
 * instructions a call at the root, 1030 -> 958 at the other rank). */
ol_status_t ol_op_check_reduction(const ol_op_t *op, const ol_datatype_t *dt)
{
    if (!op->predefined || loop_for(op, dt))
        return OL_OK;
    if (is_handle(op, MPI_REPLACE) || is_handle(op, MPI_NO_OP))
        ol_error_detail("%s is only for the accumulate functions", op->name);
    else
        ol_error_detail("%s is not defined for datatype %s", op->name, dt->name);
    return MPI_ERR_OP;
}

static ol_status_t apply_user(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                              ol_datatype_t *dt)
{
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

/* The loop over n basic elements packed at in and inout. Pair types lie
 * padded in memory (MPI_DOUBLE_INT is 12 bytes packed, 16 as a C struct):
 * they are unpacked into C layout for the loop and packed back. */
static void loop_packed(ol_op_loop_t loop, const ol_datatype_t *basic, void *in, void *inout,
                        size_t n)
{
    if (basic->size == (size_t)basic->extent) {
        loop(in, inout, n);
        return;
    }
    max_align_t typed_in[CHUNK_BYTES / sizeof(max_align_t)];
    max_align_t typed_io[CHUNK_BYTES / sizeof(max_align_t)];
    ol_dt_unpack_all(basic, typed_in, (MPI_Count)n, in);
    ol_dt_unpack_all(basic, typed_io, (MPI_Count)n, inout);
    loop(typed_in, typed_io, n);
    ol_dt_pack_all(basic, typed_io, (MPI_Count)n, inout);
}

/* inout = in op inout over a derived type's packed stream, chunk by chunk;
 * loop NULL is MPI_REPLACE (inout = in). */
static ol_status_t apply_packed(ol_op_loop_t loop, const ol_datatype_t *basic, const void *in,
                                void *inout, MPI_Count count, ol_datatype_t *dt)
{
    ol_dt_cursor_t *from = ol_dt_cursor_create(dt, in, count);
    ol_dt_cursor_t *to = ol_dt_cursor_create(dt, inout, count);
    if (!from || !to) {
        if (from)
            ol_dt_cursor_free(from);
        if (to)
            ol_dt_cursor_free(to);
        return MPI_ERR_NO_MEM;
    }
    max_align_t packed_in[CHUNK_BYTES / sizeof(max_align_t)];
    max_align_t packed_io[CHUNK_BYTES / sizeof(max_align_t)];
    /* whole basic elements per chunk, in C layout as well as packed */
    size_t chunk = CHUNK_BYTES / (size_t)basic->extent * basic->size;
    size_t total = (size_t)count * dt->size;
    for (size_t offset = 0; offset < total; offset += chunk) {
        size_t bytes = ol_dt_cursor_pack(from, offset, packed_in, chunk);
        if (loop) {
            ol_dt_cursor_pack(to, offset, packed_io, bytes);
            loop_packed(loop, basic, packed_in, packed_io, bytes / basic->size);
        }
        ol_dt_cursor_unpack(to, offset, loop ? packed_io : packed_in, bytes);
    }
    ol_dt_cursor_free(from);
    ol_dt_cursor_free(to);
    return OL_OK;
}

ol_status_t ol_op_apply(const ol_op_t *op, const void *in, void *inout, MPI_Count count,
                        ol_datatype_t *dt)
{
    if (OL_UNLIKELY(count > 0 && dt->size > 0 &&
                    (ol_accel_is_device(ol_dt_data_at(in, dt)) ||
                     ol_accel_is_device(ol_dt_data_at(inout, dt)))))
        return ol_op_apply_device(op, in, inout, count, dt);
    if (!op->predefined)
        return apply_user(op, in, inout, count, dt);
    const ol_datatype_t *basic = ol_dt_basic_type(dt);
    ol_op_loop_t loop = basic ? ol_op_loop(op, basic) : NULL;
    bool replace = is_handle(op, MPI_REPLACE);
    if (!loop && !replace && !is_handle(op, MPI_NO_OP)) {
        ol_error_detail("%s is not defined for datatype %s", op->name, dt->name);
        return MPI_ERR_OP;
    }
    if (count == 0 || is_handle(op, MPI_NO_OP))
        return OL_OK;
    if (loop && dt == basic) { /* the loop's C type is the memory layout */
        loop(in, inout, (size_t)count);
        return OL_OK;
    }
    if (dt->contiguous && (replace || basic->size == (size_t)basic->extent)) {
        const char *from = ol_dt_data_at(in, dt);
        char *to = ol_dt_data_at(inout, dt);
        if (replace)
            memmove(to, from, (size_t)count * dt->size);
        else
            loop(from, to, (size_t)count * dt->size / basic->size);
        return OL_OK;
    }
    return apply_packed(loop, basic, in, inout, count, dt);
}

void ol_op_retain(ol_op_t *op)
{
    if (!op->predefined)
        __atomic_add_fetch(&op->refcount, 1, __ATOMIC_RELAXED);
}

void ol_op_release(ol_op_t *op)
{
    if (op->predefined || __atomic_sub_fetch(&op->refcount, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    op->magic = 0;
    free(op);
}
