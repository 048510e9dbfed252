#!/bin/sh
# gpu_reduce's MPI_Allreduce cases on device buffers under the host
# algorithms, forced in turn, over device messages (device scratch,
# reductions by kernels), the CUDA IPC allreduce off. gpu_allreduce_ipc.sh
# covers the other ways.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"
prog=$bindir/gpu_reduce
test_name=gpu_reduce
OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES=-1
export OMPI_LITE_ALLREDUCE_DEVICE_IPC_BYTES

for run in ring:2 ring:3 tree:3; do
    OMPI_LITE_ALLREDUCE_ALGORITHM=${run%:*}
    export OMPI_LITE_ALLREDUCE_ALGORITHM
    echo "OMPI_LITE_ALLREDUCE_ALGORITHM=$OMPI_LITE_ALLREDUCE_ALGORITHM"
    run_gpu "${run#*:}" allreduce
done
