#!/bin/sh
# errors_return: with MPI_ERRORS_RETURN, bad arguments give error codes of the
# right class and the job carries on, on 1, 2 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^errors_return: $np ranks OK"
done
