#!/bin/sh
# gpu_ipc_cache: the cache of peers' buffers mapped through CUDA IPC is
# bounded (OMPI_LITE_ACCEL_IPC_CACHE=4, 12 buffers sent each way), device
# scratch a peer mapped is closed by the peer before its owner frees it
# (also with OMPI_LITE_ACCEL_POOL_KEEP_MB=0, where the pool gives it back
# to the driver at once), and nothing is freed while a peer still has it
# open. Against the fake driver the misuse is fatal (FAKE_CUDA_IPC_STRICT=1)
# and so are more open mappings than the bound (FAKE_CUDA_IPC_MAX_OPEN).
# Skipped (77) without a GPU.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

FAKE_CUDA_IPC_STRICT=1
export FAKE_CUDA_IPC_STRICT
for np in 2 3; do
    echo "OMPI_LITE_ACCEL_IPC_CACHE=4 FAKE_CUDA_IPC_MAX_OPEN=4"
    OMPI_LITE_ACCEL_IPC_CACHE=4 FAKE_CUDA_IPC_MAX_OPEN=4 run_gpu "$np" many
    # Each rank maps one peer's user buffer for good and at most one peer's
    # scratch at a time.
    echo "OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0 FAKE_CUDA_IPC_MAX_OPEN=2"
    OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0 FAKE_CUDA_IPC_MAX_OPEN=2 run_gpu "$np" scratch
    # The same with a pool that keeps nothing: each scratch block goes back
    # to the driver (cuMemFree) as soon as the allreduce frees it, so a free
    # before every peer closed its mapping aborts.
    echo "OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0 OMPI_LITE_ACCEL_POOL_KEEP_MB=0 FAKE_CUDA_IPC_MAX_OPEN=2"
    OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0 OMPI_LITE_ACCEL_POOL_KEEP_MB=0 FAKE_CUDA_IPC_MAX_OPEN=2 \
        run_gpu "$np" scratch
done
