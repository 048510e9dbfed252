#!/bin/sh
# exit3: rank 1 of 3 exits with status 3 without MPI_Finalize while the others
# wait for it. mpirun must end the job, exit non-zero, say on stderr that
# rank 1 exited with 3, and leave no process behind.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

tag=ol-test-exit3-$$
run_mpi 3 "$tag"
expect_failure
expect_no_output 'cannot complete returned'
if is_open_mpi; then
    expect_err 'Process name: *\[\[[0-9]+,[0-9]+\],1\]'
    expect_err 'Exit code: *3$'
else
    expect_err_line 'rank 1([^0-9]|$)' '(^|[^0-9])3([^0-9]|$)'
fi
expect_no_survivors "$tag"
