/* gpu_misaligned: reductions on device buffers that start at an address
 * not aligned to their element type (1 byte into an allocation), which the
 * host path accepts: MPI_Allreduce (also in place) and MPI_Reduce of int,
 * double and double complex give the right result, and the context stays
 * usable (a misaligned device load would fault and poison it). */
#include "gpu_test.h"

#include <complex.h>
#include <stdio.h>
#include <string.h>

enum { COUNT = 1001, OFFSET = 1 };

/* Element i of rank r: small integers, so every sum is exact. */
static double value(int r, int i) { return (double)((i * 7 + r * 3) % 100); }

static void put(void *dev, MPI_Datatype type, int r)
{
    unsigned char host[COUNT * sizeof(double complex)];
    for (int i = 0; i < COUNT; i++) {
        if (type == MPI_INT)
            ((int *)host)[i] = (int)value(r, i);
        else if (type == MPI_DOUBLE)
            ((double *)host)[i] = value(r, i);
        else
            ((double complex *)host)[i] = value(r, i) + value(r + 1, i) * I;
    }
    int size;
    MPI_Type_size(type, &size);
    gt_put(GT_DEVICE, dev, host, (size_t)size * COUNT);
}

static void check(const char *what, const void *dev, MPI_Datatype type)
{
    int size;
    MPI_Type_size(type, &size);
    unsigned char want[COUNT * sizeof(double complex)], got[sizeof(want)];
    for (int i = 0; i < COUNT; i++) {
        double re = 0, im = 0;
        for (int r = 0; r < gt_size; r++) {
            re += value(r, i);
            im += value(r + 1, i);
        }
        if (type == MPI_INT)
            ((int *)want)[i] = (int)re;
        else if (type == MPI_DOUBLE)
            ((double *)want)[i] = re;
        else
            ((double complex *)want)[i] = re + im * I;
    }
    gt_get(GT_DEVICE, got, dev, (size_t)size * COUNT);
    gt_check_bytes(what, got, want, (size_t)size * COUNT);
}

static void run(const char *name, MPI_Datatype type)
{
    size_t bytes = COUNT * sizeof(double complex) + 16;
    char *a = gt_alloc(GT_DEVICE, bytes), *b = gt_alloc(GT_DEVICE, bytes);
    char what[96];
    put(a + OFFSET, type, gt_rank);
    snprintf(what, sizeof(what), "MPI_Allreduce %s at offset %d", name, OFFSET);
    gt_check_rc(what, MPI_Allreduce(a + OFFSET, b + OFFSET, COUNT, type, MPI_SUM, MPI_COMM_WORLD));
    check(what, b + OFFSET, type);
    put(b + OFFSET, type, gt_rank);
    snprintf(what, sizeof(what), "MPI_Allreduce in place %s at offset %d", name, OFFSET);
    gt_check_rc(what, MPI_Allreduce(MPI_IN_PLACE, b + OFFSET, COUNT, type, MPI_SUM, MPI_COMM_WORLD));
    check(what, b + OFFSET, type);
    snprintf(what, sizeof(what), "MPI_Reduce %s at offset %d", name, OFFSET);
    gt_check_rc(what, MPI_Reduce(a + OFFSET, b + OFFSET, COUNT, type, MPI_SUM, 0, MPI_COMM_WORLD));
    if (gt_rank == 0)
        check(what, b + OFFSET, type);
    /* Aligned afterwards: the context still works. */
    snprintf(what, sizeof(what), "MPI_Allreduce %s aligned, after the misaligned ones", name);
    put(a, type, gt_rank);
    gt_check_rc(what, MPI_Allreduce(a, b, COUNT, type, MPI_SUM, MPI_COMM_WORLD));
    check(what, b, type);
    gt_free(GT_DEVICE, a);
    gt_free(GT_DEVICE, b);
}

int main(int argc, char **argv)
{
    gt_init("gpu_misaligned", &argc, &argv);
    run("int", MPI_INT);
    run("double", MPI_DOUBLE);
    run("double complex", MPI_C_DOUBLE_COMPLEX);
    return gt_finish();
}
