#!/bin/sh
# rma_progress: a put under an exclusive lock reaches a target that
# computes without MPI calls: on one host by the direct path, and through
# messages (RMA_SHARED_MEMORY=0, the path between hosts) with the progress
# thread (RMA_PROGRESS_US); rma_netns.sh does the same across hosts.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_progress: $np ranks OK"
done

if ! is_open_mpi; then
    export OMPI_LITE_RMA_SHARED_MEMORY=0 OMPI_LITE_RMA_PROGRESS_US=200
    run_mpi 2
    expect_success
    expect_out "^rma_progress: 2 ranks OK"
    unset OMPI_LITE_RMA_SHARED_MEMORY OMPI_LITE_RMA_PROGRESS_US
fi
