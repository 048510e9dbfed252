#!/bin/sh
# gpu_misaligned: reductions on device buffers not aligned to their element
# type give right results and leave the context usable; then the same
# through the CUDA IPC allreduce.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_gpu "$np"
done
OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=0
export OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES
run_gpu 3
