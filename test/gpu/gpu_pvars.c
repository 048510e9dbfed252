/* gpu_pvars: the device paths' performance variables (MPI_T, issue 39).
 * Usage: gpu_pvars ipc|staged, the path gpu_pvars.sh forces
 * (OMPI_LITE_DEVICE_IPC=0 for staged). Rank 0 sends rank 1 device buffers of
 * 1, 4096 and 1 MiB + 3 bytes, device to device (data checked); the handles of
 * pt2pt_device_<path>_{messages,bytes}_{sent,received} grow by exactly 3
 * messages and their bytes on the side that sent or received them, the
 * other device path's stay at 0, and so do the rings' and UCX's: a device
 * message's announcement and control messages are no messages of theirs. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpu_test.h"

static const size_t sizes[] = {1, 4096, (1 << 20) + 3};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define FIELDS 4

static const char *const paths[] = {"device_ipc", "device_staged", "shm_ring", "ucx_shm",
                                    "ucx_net"};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))
static const char *const fields[FIELDS] = {"messages_sent", "bytes_sent", "messages_received",
                                           "bytes_received"};

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[NPATHS][FIELDS];

static void open_all(void)
{
    int provided, count, index;
    gt_check_rc("MPI_T_init_thread", MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    gt_check_rc("MPI_T_pvar_session_create", MPI_T_pvar_session_create(&session));
    for (size_t p = 0; p < NPATHS; p++)
        for (int f = 0; f < FIELDS; f++) {
            char name[64];
            snprintf(name, sizeof(name), "pt2pt_%s_%s", paths[p], fields[f]);
            if (gt_check_rc(name, MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER,
                                                        &index)) != MPI_SUCCESS)
                gt_die("no performance variable %s", name);
            gt_check_rc("MPI_T_pvar_handle_alloc",
                        MPI_T_pvar_handle_alloc(session, index, NULL, &handles[p][f], &count));
            gt_check_rc("MPI_T_pvar_start", MPI_T_pvar_start(session, handles[p][f]));
        }
}

static unsigned long long value(size_t p, int f)
{
    unsigned long long v = 0;
    gt_check_rc("MPI_T_pvar_read", MPI_T_pvar_read(session, handles[p][f], &v));
    return v;
}

int main(int argc, char **argv)
{
    gt_init("gpu_pvars", &argc, &argv);
    const char *path = argc > 1 ? argv[1] : "ipc";
    size_t taken = strcmp(path, "staged") == 0 ? 1 : 0;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    void *buf = gt_alloc(GT_DEVICE, sizes[NSIZES - 1]);
    open_all();
    MPI_Barrier(MPI_COMM_WORLD); /* before the handles count: nothing of it is counted */
    unsigned long long bytes = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        bytes += sizes[i];
        if (me == 0) {
            gt_put_pattern(GT_DEVICE, buf, sizes[i], (unsigned)i + 1);
            gt_check_rc("MPI_Send", MPI_Send(buf, (int)sizes[i], MPI_BYTE, 1, 0, MPI_COMM_WORLD));
        } else if (me == 1) {
            gt_set(GT_DEVICE, buf, 0, sizes[i]);
            gt_check_rc("MPI_Recv", MPI_Recv(buf, (int)sizes[i], MPI_BYTE, 0, 0, MPI_COMM_WORLD,
                                             MPI_STATUS_IGNORE));
            gt_check_buffer("received", GT_DEVICE, buf, sizes[i], (unsigned)i + 1);
        }
    }
    for (size_t p = 0; p < NPATHS; p++)
        for (int f = 0; f < FIELDS; f++) {
            bool sent_side = f < 2;
            bool counts = p == taken && ((me == 0 && sent_side) || (me == 1 && !sent_side));
            unsigned long long want = !counts ? 0 : f % 2 == 0 ? NSIZES : bytes;
            if (value(p, f) != want)
                gt_fail("pt2pt_%s_%s counted %llu, expected %llu", paths[p], fields[f],
                        value(p, f), want);
        }
    gt_check_rc("MPI_T_pvar_session_free", MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    gt_free(GT_DEVICE, buf);
    return gt_finish();
}
