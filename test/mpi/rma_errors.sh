#!/bin/sh
# rma_errors: erroneous one-sided calls under MPI_ERRORS_RETURN return the
# right error class (MPI_ERR_RANK, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_SYNC,
# MPI_ERR_RMA_FLAVOR, MPI_ERR_RMA_ATTACH, MPI_ERR_COUNT, MPI_ERR_WIN, MPI_ERR_TYPE
# for a compare-and-swap of a type it does not take) with a
# non-empty error string, leave the target memory untouched and the window
# usable. On 1, 2 and 3 ranks. Against ompi-lite, the message of a
# displacement past the window names the call, the sizes and the target.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_errors: $np ranks OK \(10 cases\)"
done

# Under the default handler, the message names the call, the sizes and
# the target (ompi-lite's wording).
if ! is_open_mpi; then
    run_mpi 2 fatal-range
    expect_failure
    expect_err "error in MPI_Put.*rank [01]'s window, which has 64"
fi

# The same through messages, the path between hosts: every operation is
# handled by the target's progress (RMA_SHARED_MEMORY=0; one host takes
# the direct path otherwise, rma/README.md).
export OMPI_LITE_RMA_SHARED_MEMORY=0
for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_errors: $np ranks OK \(10 cases\)"
done
unset OMPI_LITE_RMA_SHARED_MEMORY
