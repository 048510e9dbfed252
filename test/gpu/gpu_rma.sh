#!/bin/sh
# gpu_rma: one-sided communication with device memory: a window over
# cudaMalloc'ed memory (puts, gets, accumulates, fetch-and-ops), and device
# origin and result buffers on a window of host memory.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_gpu "$np"
done
OMPI_LITE_RMA_SHARED_MEMORY=0 OMPI_LITE_RMA_UCX=0 run_gpu 2
