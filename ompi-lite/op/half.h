/* The loops of the 16-bit floating-point types (half.c), for the table of
 * predefined.c: inout[i] = in[i] op inout[i] on binary16 (f16) and
 * bfloat16 (bf16) values. */
#ifndef OL_OP_HALF_H
#define OL_OP_HALF_H

#include "ol_op.h"

void ol_op_f16_sum(const void *in, void *inout, size_t n);
void ol_op_f16_prod(const void *in, void *inout, size_t n);
void ol_op_f16_max(const void *in, void *inout, size_t n);
void ol_op_f16_min(const void *in, void *inout, size_t n);
void ol_op_bf16_sum(const void *in, void *inout, size_t n);
void ol_op_bf16_prod(const void *in, void *inout, size_t n);
void ol_op_bf16_max(const void *in, void *inout, size_t n);
void ol_op_bf16_min(const void *in, void *inout, size_t n);

#endif
