#!/bin/sh
# gpu_ipc_order: a peer reading this rank's device buffer through CUDA IPC
# sees the work the program queued on stream 0 just before the MPI call:
# point-to-point sends (and SYNC_MEMOPS set on the buffer), then the CUDA
# IPC allreduce in place (OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0; the
# algorithm log must name device_ipc). Skipped (77) without a GPU.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4; do
    run_gpu "$np" send syncmemops
done

OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0
OMPI_LITE_DEBUG=info
export OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES OMPI_LITE_DEBUG
for np in 2 3 4; do
    echo "OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0"
    run_gpu "$np" allreduce
    expect_err "allreduce .*device_ipc"
done
