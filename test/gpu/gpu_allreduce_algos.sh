#!/bin/sh
# gpu_reduce's MPI_Allreduce cases with each device algorithm forced in
# turn (OMPI_LITE_ALLREDUCE_DEVICE_ALGORITHM); where an algorithm cannot run
# the library falls back, so every setting must give right results.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"
prog=$bindir/gpu_reduce
test_name=gpu_reduce

for algorithm in ring tree ipc staged; do
    for np in 2 3 4; do
        echo "OMPI_LITE_ALLREDUCE_DEVICE_ALGORITHM=$algorithm"
        OMPI_LITE_ALLREDUCE_DEVICE_ALGORITHM=$algorithm
        export OMPI_LITE_ALLREDUCE_DEVICE_ALGORITHM
        run_gpu "$np" allreduce
    done
done
