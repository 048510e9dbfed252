#!/bin/sh
# gpu_pools: the device scratch pool keeps at most OMPI_LITE_ACCEL_POOL_KEEP_MB
# and rounds big requests up by at most 1/8, over allreduces whose device
# scratch is as big as the vector (recursive doubling forced, the CUDA IPC
# allreduce off); results checked (see gpu_pools.c).
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

OMPI_LITE_ACCEL_POOL_KEEP_MB=8
OMPI_LITE_ALLREDUCE_ALGORITHM=recursive_doubling
OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=-1
export OMPI_LITE_ACCEL_POOL_KEEP_MB OMPI_LITE_ALLREDUCE_ALGORITHM OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES

for np in 2 3; do
    run_gpu "$np" "$OMPI_LITE_ACCEL_POOL_KEEP_MB"
done
