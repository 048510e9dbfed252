#!/bin/sh
# topo_errors: bad arguments to the topology functions return the right
# error classes under MPI_ERRORS_RETURN; under MPI_ERRORS_ARE_FATAL a
# topology query on a communicator without one ends the job, naming the call.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3; do
    run_mpi "$np"
    expect_success
    expect_out "^topo_errors: $np ranks OK"
done

tag=ol-test-topo_errors-$$
run_mpi 2 fatal "$tag"
expect_failure
expect_err_line 'MPI_Cart_get' 'Cartesian'
expect_no_output 'returned under MPI_ERRORS_ARE_FATAL'
expect_no_survivors "$tag"
