#!/bin/sh
# wildcards: MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL and message order, on
# 1 (MPI_PROC_NULL only), 2 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 4; do
    run_mpi "$np"
    expect_success
    expect_out "^wildcards: $np ranks OK"
done
