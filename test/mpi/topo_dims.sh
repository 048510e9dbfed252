#!/bin/sh
# topo_dims: MPI_Dims_create against the standard's examples and balanced
# splits, and its errors.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2; do
    run_mpi "$np"
    expect_success
    expect_out "^topo_dims: $np ranks OK"
done
