#!/bin/sh
# bad_rank: MPI_Send to an invalid rank under the default error handler
# (MPI_ERRORS_ARE_FATAL) ends the job, on 2 and 3 ranks: mpirun exits
# non-zero, a line of the error message names MPI_Send and speaks of the rank,
# and no process is left behind.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

tag=ol-test-bad_rank-$$
for np in 2 3; do
    run_mpi "$np" "$tag"
    expect_failure
    expect_no_output 'instead of ending the job|cannot complete returned'
    # Open MPI 4.1 loses the message now and then (show_help.c: "Data unpack
    # would read past end of buffer"), so only ompi-lite's is checked.
    is_open_mpi || expect_err_line 'MPI_Send' '[Rr]ank'
    expect_no_survivors "$tag"
done
