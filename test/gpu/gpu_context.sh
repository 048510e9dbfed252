#!/bin/sh
# gpu_context: after MPI_Init and after MPI calls on device buffers the
# program's own current CUDA context (another device's primary context, a
# cuCtxCreate context) is still current, and the results are right.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

# Two devices for the fake, so that the program's device differs from the
# library's (a real driver shows what the machine has).
FAKE_CUDA_DEVICES=${FAKE_CUDA_DEVICES:-2}
export FAKE_CUDA_DEVICES
for np in 2 3; do
    run_gpu "$np"
done
