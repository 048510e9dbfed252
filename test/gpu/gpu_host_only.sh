#!/bin/sh
# gpu_host_only: a program that never loads the CUDA driver and allreduces
# 2 MiB host vectors; the library must not load the driver either (no
# libcuda mapped afterwards), nor ask the fake anything (its trace, on
# where the fake is the driver, stays empty). Needs no GPU.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

FAKE_CUDA_TRACE=1
export FAKE_CUDA_TRACE
for np in 2 3; do
    run_gpu "$np"
    ! grep -q 'fake_cuda\[' "$work/err" ||
        fail "on $np ranks the library called the driver: $(grep -m 1 'fake_cuda\[' "$work/err")"
done
