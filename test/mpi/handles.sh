#!/bin/sh
# handles: MPI_X_toint/MPI_X_fromint round trips, on 1 and 2 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2; do
    run_mpi "$np"
    expect_success
    expect_out "^handles: $np ranks OK"
done
