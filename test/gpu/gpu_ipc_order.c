/* gpu_ipc_order: data a peer reads straight out of this rank's device
 * buffer (CUDA IPC) includes the work this rank queued on the legacy
 * default stream before the MPI call. The program queues the new data
 * (cuMemsetD8Async, cuMemcpyHtoDAsync from pinned memory), behind some
 * device-to-device copies that keep the GPU busy, on stream 0 and calls
 * MPI at once, without synchronising:
 *
 *   send       pairs (0, 1), (2, 3): the even rank sends 1 MiB + 3 bytes, the
 *              odd one receives; then the other way round
 *   syncmemops after such a send, the send buffer has
 *              CU_POINTER_ATTRIBUTE_SYNC_MEMOPS set (synchronous copies into
 *              it finish before they return)
 *   allreduce  MPI_Allreduce in place, MPI_BOR on bytes, every rank's fresh
 *              bit queued just before the call, 20 times with new bits; the
 *              script makes it take the CUDA IPC allreduce
 *
 * The receiver must see the new data. Uses the driver directly (dlopen)
 * for the asynchronous calls. `gpu_ipc_order NAME...` runs some cases. */
#include "gpu_test.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int cu_result;
typedef unsigned long long cu_ptr;
typedef void *cu_stream;

#define LEGACY_STREAM ((cu_stream)0x1) /* CU_STREAM_LEGACY */
enum { SYNC_MEMOPS = 6 };              /* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS */

static struct {
    cu_result (*memset_async)(cu_ptr, unsigned char, size_t, cu_stream);
    cu_result (*htod_async)(cu_ptr, const void *, size_t, cu_stream);
    cu_result (*copy_async)(cu_ptr, cu_ptr, size_t, cu_stream);
    cu_result (*host_alloc)(void **, size_t, unsigned);
    cu_result (*host_free)(void *);
    cu_result (*attributes)(unsigned, int *, void **, cu_ptr);
} cu;

static void open_driver(void)
{
    const char *path = getenv("OMPI_LITE_CUDA_LIBRARY");
    void *lib = dlopen(path && *path ? path : "libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        gt_die("cannot open the CUDA driver: %s", dlerror());
    struct { void *slot; const char *name; } fns[] = {
        {&cu.memset_async, "cuMemsetD8Async"}, {&cu.htod_async, "cuMemcpyHtoDAsync_v2"},
        {&cu.copy_async, "cuMemcpyAsync"}, {&cu.host_alloc, "cuMemHostAlloc"},
        {&cu.host_free, "cuMemFreeHost"}, {&cu.attributes, "cuPointerGetAttributes"},
    };
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        if (!(*(void **)fns[i].slot = dlsym(lib, fns[i].name)))
            gt_die("the CUDA driver lacks %s", fns[i].name);
}

enum { BYTES = (1 << 20) + 3, BUSY_BYTES = 8 << 20, BUSY_COPIES = 4, ROUNDS = 20 };

static void *busy_a, *busy_b;

/* Device copies ahead of the new data on stream 0, so that on a GPU the
 * data is really still being written when the MPI call starts. */
static void keep_gpu_busy(void)
{
    for (int i = 0; i < BUSY_COPIES; i++)
        if (cu.copy_async((cu_ptr)(uintptr_t)(i % 2 ? busy_a : busy_b),
                          (cu_ptr)(uintptr_t)(i % 2 ? busy_b : busy_a), BUSY_BYTES,
                          LEGACY_STREAM))
            gt_die("cuMemcpyAsync on stream 0 failed");
}

/* ---- send ------------------------------------------------------------- */

enum writer { BY_MEMSET, BY_PINNED_COPY };

/* Queues the new content of buf on stream 0 and returns at once: every
 * byte `value`, or pattern `seed` copied from pinned host memory (which
 * must stay alive until the stream got there: the caller frees it after
 * the MPI call, which orders it). */
static void queue_new_data(enum writer how, void *buf, unsigned char value, unsigned seed,
                           void *pinned)
{
    keep_gpu_busy();
    cu_result rc;
    if (how == BY_MEMSET) {
        rc = cu.memset_async((cu_ptr)(uintptr_t)buf, value, BYTES, LEGACY_STREAM);
    } else {
        gt_fill(pinned, BYTES, seed);
        rc = cu.htod_async((cu_ptr)(uintptr_t)buf, pinned, BYTES, LEGACY_STREAM);
    }
    if (rc)
        gt_die("queueing the new data on stream 0 failed (%d)", rc);
}

static int sync_memops_of(const void *buf)
{
    int attribute = SYNC_MEMOPS, value = -1;
    void *data = &value;
    if (cu.attributes(1, &attribute, &data, (cu_ptr)(uintptr_t)buf))
        gt_fail("cuPointerGetAttributes(SYNC_MEMOPS) failed");
    return value;
}

/* One message from `from` to `to` (ranks of a pair), new data queued by
 * `how` just before MPI_Send. */
static void send_once(enum writer how, int from, int to, int check_sync_memops)
{
    const char *what = how == BY_MEMSET ? "send after cuMemsetD8Async"
                                        : "send after cuMemcpyHtoDAsync";
    unsigned char old_value = 0x11, new_value = (unsigned char)(0x40 + from);
    unsigned seed = 700u + (unsigned)from;
    void *buf = gt_alloc(GT_DEVICE, BYTES), *pinned = NULL;
    if (how == BY_PINNED_COPY && cu.host_alloc(&pinned, BYTES, 0))
        gt_die("cuMemHostAlloc failed");
    if (gt_rank == from) {
        gt_set(GT_DEVICE, buf, old_value, BYTES); /* finished: the old data */
        queue_new_data(how, buf, new_value, seed, pinned);
        gt_check_rc(what, MPI_Send(buf, BYTES, MPI_BYTE, to, 5, MPI_COMM_WORLD));
        if (check_sync_memops && sync_memops_of(buf) != 1)
            gt_fail("syncmemops: CU_POINTER_ATTRIBUTE_SYNC_MEMOPS of a buffer sent through "
                    "CUDA IPC is %d, expected 1", sync_memops_of(buf));
    } else if (gt_rank == to) {
        gt_set(GT_DEVICE, buf, 0, BYTES);
        gt_check_rc(what, MPI_Recv(buf, BYTES, MPI_BYTE, from, 5, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
        char label[128];
        snprintf(label, sizeof(label), "%s: data from rank %d", what, from);
        if (how == BY_MEMSET)
            gt_check_value(label, GT_DEVICE, buf, BYTES, new_value);
        else
            gt_check_buffer(label, GT_DEVICE, buf, BYTES, seed);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (pinned)
        cu.host_free(pinned);
    gt_free(GT_DEVICE, buf);
}

/* Pairs (0, 1), (2, 3) ...; a last odd rank out watches. */
static void pairs(enum writer how, int check_sync_memops)
{
    int partner = gt_rank ^ 1;
    int even = gt_rank & ~1;
    if (partner >= gt_size) {
        send_once(how, -1, -1, 0); /* takes part in the barrier only */
        send_once(how, -1, -1, 0);
        return;
    }
    send_once(how, even, even + 1, check_sync_memops);
    send_once(how, even + 1, even, check_sync_memops);
}

static void case_send(void)
{
    pairs(BY_MEMSET, 0);
    pairs(BY_PINNED_COPY, 0);
}

static void case_syncmemops(void)
{
    pairs(BY_MEMSET, 1);
}

/* ---- allreduce -------------------------------------------------------- */

/* Round r: rank k contributes bit (k + r) % 8 in every byte, queued on
 * stream 0 just before the call; the old content (0) is finished. */
static void case_allreduce(void)
{
    void *buf = gt_alloc(GT_DEVICE, BYTES);
    for (int round = 0; round < ROUNDS; round++) {
        unsigned char want = 0;
        for (int k = 0; k < gt_size; k++)
            want |= (unsigned char)(1u << ((k + round) % 8));
        gt_set(GT_DEVICE, buf, 0, BYTES);
        queue_new_data(BY_MEMSET, buf, (unsigned char)(1u << ((gt_rank + round) % 8)), 0, NULL);
        gt_check_rc("allreduce",
                    MPI_Allreduce(MPI_IN_PLACE, buf, BYTES, MPI_UINT8_T, MPI_BOR, MPI_COMM_WORLD));
        char label[64];
        snprintf(label, sizeof(label), "allreduce round %d", round);
        if (gt_check_value(label, GT_DEVICE, buf, BYTES, want))
            break; /* one round says it */
    }
    gt_free(GT_DEVICE, buf);
}

/* ---- main ------------------------------------------------------------- */

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"send", case_send},
    {"syncmemops", case_syncmemops},
    {"allreduce", case_allreduce},
};

static int wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return 1;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    gt_init("gpu_ipc_order", &argc, &argv);
    open_driver();
    busy_a = gt_alloc(GT_DEVICE, BUSY_BYTES);
    busy_b = gt_alloc(GT_DEVICE, BUSY_BYTES);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (wanted(argc, argv, cases[i].name))
            cases[i].run();
    gt_free(GT_DEVICE, busy_a);
    gt_free(GT_DEVICE, busy_b);
    return gt_finish();
}
