#!/bin/sh
# gpu_half: MPIX_C_FLOAT16, MPIX_C_BF16 and MPI_REAL2 reduced on device
# buffers, bit for bit: the kernels through MPI_Reduce_local, allreduce on
# 2 to 4 ranks (also through the CUDA IPC allreduce), and reproducible
# mode on 4 ranks, where device buffers must give the tree's bits.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

run_gpu 2 local allreduce
for np in 3 4; do
    run_gpu "$np" allreduce
done
OMPI_LITE_REPRODUCIBLE=1
export OMPI_LITE_REPRODUCIBLE
run_gpu 4 repro
