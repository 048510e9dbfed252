#!/bin/sh
# coll_bottom: MPI_BOTTOM with absolute datatypes and displacements in the
# data-movement collectives, and overlapping send and receive data refused
# at once on the process that gave it, whose correct call then completes the
# others'; on 1, 2, 3 and 5 ranks. Then the message of that error under MPI_ERRORS_ARE_FATAL.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 5; do
    run_mpi "$np"
    expect_success
    expect_out "^coll_bottom: $np ranks OK"
done

run_mpi 2 fatal
expect_failure
expect_err_line "MPI_Allgather" "sendbuf and recvbuf share memory"
