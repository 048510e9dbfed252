#!/bin/sh
# comm_errh: user error handlers and added error classes, codes and strings
# on 1, 2 and 3 ranks; then MPI_Comm_call_errhandler under
# MPI_ERRORS_ARE_FATAL and MPI_ERRORS_ABORT (which ompi-lite applies to the
# whole job) ends the job with a message that names the call and the
# program's error string, and leaves no process.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_errh: $np ranks OK"
done

for how in fatal abort; do
    tag=ol-test-comm_errh-$$-$how
    run_mpi 2 "$how" "$tag"
    expect_failure
    expect_err_line "MPI_Comm_call_errhandler" "comm_errh deliberate error"
    expect_no_survivors "$tag"
done
