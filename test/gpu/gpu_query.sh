#!/bin/sh
# gpu_query: MPIX_Query_cuda_support() is 1 with a GPU (CUDA support built),
# 0 without (still exit 77: nothing more to check).
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 4; do
    run_gpu "$np"
done
