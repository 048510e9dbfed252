#!/bin/sh
# coll_move_errors: bad arguments of the data-movement collectives return
# the standard's error classes under MPI_ERRORS_RETURN, on 1, 2 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^coll_move_errors: $np ranks OK"
done
