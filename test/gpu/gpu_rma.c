/* gpu_rma: one-sided communication with device memory. A window over a
 * cudaMalloc'ed buffer (MPI_Win_create): puts from host and from device
 * origin buffers between fences, gets into device buffers, MPI_Accumulate
 * with MPI_SUM and MPI_Fetch_and_op under locks on a counter at rank 0; and
 * device origin and result buffers on a window of host memory
 * (MPI_Win_allocate). Every byte that arrived is checked through driver
 * copies: the CPU never touches device memory. */
#include "gpu_test.h"

#include <stdio.h>
#include <string.h>

enum { COUNT = 4096 }; /* 16 KiB: a get of it has its data sent apart (rma/README.md) */

static void fill_ints(int *v, int n, int base)
{
    for (int i = 0; i < n; i++)
        v[i] = base + i;
}

static void check_ints(const char *what, const int *got, int n, int base)
{
    for (int i = 0; i < n; i++)
        if (got[i] != base + i) {
            gt_fail("%s: element %d is %d, expected %d", what, i, got[i], base + i);
            return;
        }
}

/* Ring of puts into device window memory, from a host and a device origin. */
static void puts_into_device_window(MPI_Win win, int *dev_window, enum gt_mem origin_mem)
{
    int right = (gt_rank + 1) % gt_size, left = (gt_rank + gt_size - 1) % gt_size;
    int host[COUNT], got[COUNT];
    fill_ints(host, COUNT, gt_rank * 10000);
    int *origin = gt_alloc(origin_mem, sizeof(host));
    gt_put(origin_mem, origin, host, sizeof(host));
    gt_set(GT_DEVICE, dev_window, 0, sizeof(host));
    gt_check_rc("MPI_Win_fence", MPI_Win_fence(0, win));
    gt_check_rc("MPI_Put", MPI_Put(origin, COUNT, MPI_INT, right, 0, COUNT, MPI_INT, win));
    gt_check_rc("MPI_Win_fence", MPI_Win_fence(0, win));
    gt_get(GT_DEVICE, got, dev_window, sizeof(got));
    char what[64];
    snprintf(what, sizeof what, "put from %s memory", gt_mem_name(origin_mem));
    check_ints(what, got, COUNT, left * 10000);

    /* and back: a get into a device buffer */
    int *result = gt_alloc(GT_DEVICE, sizeof(host));
    gt_check_rc("MPI_Get", MPI_Get(result, COUNT, MPI_INT, right, 0, COUNT, MPI_INT, win));
    gt_check_rc("MPI_Win_fence", MPI_Win_fence(0, win));
    gt_get(GT_DEVICE, got, result, sizeof(got));
    check_ints("get from device window memory", got, COUNT, gt_rank * 10000);
    gt_free(GT_DEVICE, result);
    gt_free(origin_mem, origin);
}

/* Every rank adds to rank 0's device counter: accumulates and fetch-and-ops. */
static void counter_in_device_window(MPI_Win win, int *dev_window)
{
    long zero = 0;
    if (gt_rank == 0)
        gt_put(GT_DEVICE, dev_window, &zero, sizeof(zero));
    MPI_Barrier(MPI_COMM_WORLD);
    long one = 1, old = -1;
    for (int k = 0; k < 10; k++) {
        gt_check_rc("MPI_Win_lock", MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        gt_check_rc("MPI_Accumulate", MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG,
                                                     MPI_SUM, win));
        gt_check_rc("MPI_Fetch_and_op", MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM,
                                                         win));
        gt_check_rc("MPI_Win_unlock", MPI_Win_unlock(0, win));
        if (old < 1 || old >= 2L * 10 * gt_size)
            gt_fail("fetch_and_op fetched %ld", old);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (gt_rank == 0) {
        long total;
        gt_get(GT_DEVICE, &total, dev_window, sizeof(total));
        if (total != 2L * 10 * gt_size)
            gt_fail("the device counter is %ld, expected %ld", total, 2L * 10 * gt_size);
    }
}

/* Device origin and result buffers on a window of host memory. */
static void device_buffers_on_host_window(void)
{
    int *base;
    MPI_Win win;
    gt_check_rc("MPI_Win_allocate", MPI_Win_allocate(COUNT * sizeof(int), sizeof(int),
                                                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    int right = (gt_rank + 1) % gt_size, left = (gt_rank + gt_size - 1) % gt_size;
    int host[COUNT], got[COUNT];
    fill_ints(host, COUNT, 7 + gt_rank * 10000);
    int *origin = gt_alloc(GT_DEVICE, sizeof(host)), *result = gt_alloc(GT_DEVICE, sizeof(host));
    gt_put(GT_DEVICE, origin, host, sizeof(host));
    gt_check_rc("MPI_Win_lock_all", MPI_Win_lock_all(0, win));
    gt_check_rc("MPI_Put", MPI_Put(origin, COUNT, MPI_INT, right, 0, COUNT, MPI_INT, win));
    gt_check_rc("MPI_Win_flush", MPI_Win_flush(right, win));
    gt_check_rc("MPI_Win_unlock_all", MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    check_ints("put from a device buffer into a host window", base, COUNT, 7 + left * 10000);
    MPI_Barrier(MPI_COMM_WORLD);
    gt_check_rc("MPI_Win_lock_all", MPI_Win_lock_all(0, win));
    gt_check_rc("MPI_Get", MPI_Get(result, COUNT, MPI_INT, right, 0, COUNT, MPI_INT, win));
    gt_check_rc("MPI_Win_unlock_all", MPI_Win_unlock_all(win));
    gt_get(GT_DEVICE, got, result, sizeof(got));
    check_ints("get into a device buffer from a host window", got, COUNT, 7 + gt_rank * 10000);
    gt_free(GT_DEVICE, origin);
    gt_free(GT_DEVICE, result);
    gt_check_rc("MPI_Win_free", MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    gt_init("gpu_rma", &argc, &argv);
    int *dev_window = gt_alloc(GT_DEVICE, COUNT * sizeof(int));
    MPI_Win win;
    gt_check_rc("MPI_Win_create", MPI_Win_create(dev_window, COUNT * sizeof(int), sizeof(int),
                                                 MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    puts_into_device_window(win, dev_window, GT_HOST);
    puts_into_device_window(win, dev_window, GT_DEVICE);
    gt_check_rc("MPI_Win_fence", MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    counter_in_device_window(win, dev_window);
    gt_check_rc("MPI_Win_free", MPI_Win_free(&win));
    gt_free(GT_DEVICE, dev_window);
    device_buffers_on_host_window();
    return gt_finish();
}
