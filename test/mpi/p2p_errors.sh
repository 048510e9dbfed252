#!/bin/sh
# p2p_errors: argument errors of point-to-point calls under MPI_ERRORS_RETURN
# (MPI_ERR_REQUEST, _BUFFER, _COUNT, _TAG, _TYPE, _RANK), the job going on;
# on 2, 3 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_errors: $np ranks OK"
done
