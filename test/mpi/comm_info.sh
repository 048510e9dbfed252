#!/bin/sh
# comm_info: info objects, MPI_INFO_ENV and communicator hints, on 1, 2 and
# 5 ranks. The arguments are what MPI_INFO_ENV's "argv" must say.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 5; do
    run_mpi "$np" one two
    expect_success
    expect_out "^comm_info: $np ranks OK"
done
