#!/bin/sh
# mixed: a C main and a Fortran subroutine share communicators through
# MPI_Comm_c2f/f2c; statuses convert between the C and Fortran layouts.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^mixed: $np ranks OK"
done
