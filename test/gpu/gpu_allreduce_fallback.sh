#!/bin/sh
# gpu_reduce's MPI_Allreduce cases where the CUDA IPC allreduce applies
# (OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0) but the driver refuses IPC on
# some rank: all ranks must agree to leave it and still get every result
# right. Device memory from the stream-ordered pool (cuMemAllocAsync) and
# managed memory, which the real driver will not share; against the fake
# driver also one rank of three whose driver refuses to map the peers'
# handles (cuIpcOpenMemHandle: 217, CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, as
# between GPUs without peer access) or to export its own (cuIpcGetMemHandle:
# 1, CUDA_ERROR_INVALID_VALUE, as for cuMemCreate memory).
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"
prog=$bindir/gpu_reduce
test_name=gpu_reduce

OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0
OMPI_LITE_DEBUG=info
export OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES OMPI_LITE_DEBUG

# left_ipc: the IPC allreduce was tried and every rank left it.
left_ipc() {
    expect_err "allreduce .*device_ipc"
    expect_err "all ranks use another algorithm"
}

for kind in pool managed; do
    echo "DEVMEM_KIND=$kind"
    DEVMEM_KIND=$kind run_gpu 2 allreduce
    left_ipc
done

if [ -n "${fake_dir:-}" ]; then
    for fn in cuIpcOpenMemHandle:217 cuIpcGetMemHandle:1; do
        echo "FAKE_CUDA_FAIL=$fn on rank 1 of 3"
        FAKE_CUDA_FAIL=$fn FAKE_CUDA_FAIL_RANKS=1 run_gpu 3 allreduce
        left_ipc
    done
fi
