#!/bin/sh
# abort: rank 1 of 3 calls MPI_Abort(MPI_COMM_WORLD, 7) while the others wait
# for it. mpirun must exit with status 7, name rank 1 on stderr, and leave no
# process behind.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

tag=ol-test-abort-$$
run_mpi 3 "$tag"
expect_status 7
expect_no_output 'cannot return'
# Open MPI 4.1's mpirun loses its abort message now and then (show_help.c:
# "Data unpack would read past end of buffer"), so only ompi-lite's is checked.
is_open_mpi || expect_err 'rank 1([^0-9]|$)'
is_open_mpi || expect_err '^ompi-lite: MPI_Abort\(MPI_COMM_WORLD, 7\) called by rank 1 '
expect_no_survivors "$tag"
