/* op_half: the reduction loops of the 16-bit floating-point types
 * (op/half.c) against the tests' bit-exact reference (test/mpi/half_ref.h),
 * for MPI_SUM, MPI_PROD, MPI_MAX and MPI_MIN on binary16 and bfloat16:
 * every one of the 65536 values as `in` against each edge value as
 * `inout` (zeros, subnormals, ties, overflow, infinities, NaNs), on the
 * scalar loops and, where the CPU has F16C, on the vector loops too (the
 * same bits are required), with lengths that leave a scalar tail. */
#include "half_ref.h"
#include "ol_op.h"

#include <stdio.h>
#include <stdlib.h>

enum { ALL = 65536 };

static int failures;

static void check_loop(const char *path, ref_format_t f, MPI_Datatype type, MPI_Op op)
{
    ol_op_loop_t loop = ol_op_loop(ol_op_from_handle(op), ol_dt_from_handle(type));
    if (!loop) {
        printf("FAIL: no loop for op %p on %s\n", (void *)op, ol_dt_from_handle(type)->name);
        failures++;
        return;
    }
    static uint16_t in[ALL], io[ALL];
    for (int e = 0; e < REF_EDGES; e++) {
        uint16_t b = ref_edges(f)[e];
        for (int i = 0; i < ALL; i++) {
            in[i] = (uint16_t)i;
            io[i] = b;
        }
        /* ALL - 5: the vector loops end with a tail of scalar steps */
        loop(in, io, ALL - 5);
        for (int i = 0; i < ALL - 5; i++) {
            uint16_t want = ref_combine(f, op, (uint16_t)i, b);
            if (io[i] != want) {
                if (failures++ < 10)
                    printf("FAIL: %s %s op %p: 0x%04x op 0x%04x = 0x%04x, expected 0x%04x\n",
                           path, ol_dt_from_handle(type)->name, (void *)op, i, b, io[i], want);
                break;
            }
        }
        for (int i = ALL - 5; i < ALL; i++)
            if (io[i] != b && failures++ < 10)
                printf("FAIL: %s: element %d past the count was written\n", path, i);
    }
}

static void check_all(const char *path)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    for (int k = 0; k < 4; k++) {
        check_loop(path, REF_F16, MPIX_C_FLOAT16, ops[k]);
        check_loop(path, REF_F16, MPI_REAL2, ops[k]);
        check_loop(path, REF_BF16, MPIX_C_BF16, ops[k]);
    }
}

int main(void)
{
    ol_op_half_use_vector(false);
    check_all("scalar");
    if (ol_op_half_use_vector(true))
        check_all("F16C");
    else
        printf("this CPU has no F16C: only the scalar loops checked\n");
    if (failures) {
        printf("op_half: %d failures\n", failures);
        return 1;
    }
    printf("op_half: OK\n");
    return 0;
}
