#!/bin/sh
# gpu_reduce's MPI_Allreduce cases on device buffers through the CUDA IPC
# allreduce wherever it applies (the algorithm log must name device_ipc),
# then with device messages staged through host memory instead of CUDA IPC.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"
prog=$bindir/gpu_reduce
test_name=gpu_reduce

OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0
OMPI_LITE_DEBUG=info
export OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES OMPI_LITE_DEBUG
for np in 2 3 4; do
    echo "OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0"
    run_gpu "$np" allreduce
    expect_err "allreduce .*device_ipc"
done

OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=-1
OMPI_LITE_DEVICE_IPC=0
export OMPI_LITE_DEVICE_IPC
unset OMPI_LITE_DEBUG
for np in 2; do
    echo "OMPI_LITE_DEVICE_IPC=0"
    run_gpu "$np" allreduce
done
