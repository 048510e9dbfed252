/* gpu_ipc_cache: the cache of peers' device buffers mapped through CUDA
 * IPC stays bounded, and nothing a peer still has mapped is freed:
 *
 *   many     pairs (0, 1): each rank sends MANY distinct device buffers to
 *            the other (data checked); after a barrier it frees all but the
 *            last ones that the receiver may still keep mapped
 *            (OMPI_LITE_ACCEL_IPC_CACHE, which the script sets to KEPT), the
 *            rest after MPI_Finalize
 *   scratch  MPI_Allreduce through CUDA IPC with rank 1's buffers in host
 *            memory, so that rank 1 shares device scratch, on vectors of
 *            six sizes (six scratch blocks): the peers close their mapping
 *            of scratch after each call, and rank 1 frees it at finalize,
 *            or at the end of each call where the script has the pool
 *            keep nothing (OMPI_LITE_ACCEL_POOL_KEEP_MB=0)
 *
 * Against the fake driver the script makes the misuse fatal: freeing memory
 * another process still has open (FAKE_CUDA_IPC_STRICT=1), more mappings
 * open at once than FAKE_CUDA_IPC_MAX_OPEN. `gpu_ipc_cache NAME` runs one
 * case. */
#include "gpu_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MANY = 12, KEPT = 4, BYTES = 65536 + 3 };

static void *sent[MANY];

static void send_many(int from, int to)
{
    for (int i = 0; i < MANY; i++) {
        char what[64];
        snprintf(what, sizeof(what), "many: buffer %d from rank %d", i, from);
        unsigned seed = 900u + 31u * (unsigned)i + (unsigned)from;
        if (gt_rank == from) {
            sent[i] = gt_alloc(GT_DEVICE, BYTES);
            gt_put_pattern(GT_DEVICE, sent[i], BYTES, seed);
            gt_check_rc(what, MPI_Send(sent[i], BYTES, MPI_BYTE, to, i, MPI_COMM_WORLD));
        } else {
            void *buf = gt_alloc(GT_DEVICE, BYTES);
            gt_check_rc(what, MPI_Recv(buf, BYTES, MPI_BYTE, from, i, MPI_COMM_WORLD,
                                       MPI_STATUS_IGNORE));
            gt_check_buffer(what, GT_DEVICE, buf, BYTES, seed);
            gt_free(GT_DEVICE, buf);
        }
    }
}

/* Rank 0 sends, then rank 1; each frees what the other cannot still hold. */
static void case_many(void)
{
    if (gt_rank < 2) {
        send_many(0, 1);
        send_many(1, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; gt_rank < 2 && i < MANY - KEPT; i++) {
        gt_free(GT_DEVICE, sent[i]);
        sent[i] = NULL;
    }
}

static void free_kept(void)
{
    for (int i = 0; i < MANY; i++)
        if (sent[i])
            gt_free(GT_DEVICE, sent[i]);
}

/* Every rank contributes rank + 1 in every int: the sum is p (p + 1) / 2.
 * The device ranks use one buffer throughout (freed after MPI_Finalize:
 * the peers keep it mapped). */
enum { SIZES = 6, LARGEST = 4096 << (SIZES - 1) };
static void *vector;

static void case_scratch(void)
{
    enum gt_mem mem = gt_rank == 1 ? GT_HOST : GT_DEVICE;
    vector = gt_alloc(mem, LARGEST * sizeof(int));
    int *want = malloc(LARGEST * sizeof(int)), *got = malloc(LARGEST * sizeof(int));
    if (!want || !got)
        gt_die("out of host memory");
    for (int k = 0; k < SIZES; k++) {
        int count = 4096 << k;
        size_t bytes = (size_t)count * sizeof(int);
        for (int i = 0; i < count; i++) {
            got[i] = gt_rank + 1;
            want[i] = gt_size * (gt_size + 1) / 2;
        }
        gt_put(mem, vector, got, bytes);
        char what[64];
        snprintf(what, sizeof(what), "scratch: allreduce of %d ints", count);
        gt_check_rc(what, MPI_Allreduce(MPI_IN_PLACE, vector, count, MPI_INT, MPI_SUM,
                                        MPI_COMM_WORLD));
        gt_get(mem, got, vector, bytes);
        gt_check_bytes(what, got, want, bytes);
    }
    free(want);
    free(got);
}

int main(int argc, char **argv)
{
    gt_init("gpu_ipc_cache", &argc, &argv);
    if (argc < 2 || strcmp(argv[1], "many") == 0)
        case_many();
    if (argc < 2 || strcmp(argv[1], "scratch") == 0)
        case_scratch();
    int status = gt_finish();
    free_kept(); /* every peer closed its mappings in MPI_Finalize */
    if (vector)
        gt_free(gt_rank == 1 ? GT_HOST : GT_DEVICE, vector);
    return status;
}
