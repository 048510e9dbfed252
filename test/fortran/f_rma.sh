#!/bin/sh
# f_rma: one-sided communication from Fortran (`use mpi`) on 1 to 4 ranks:
# MPI_Win_allocate's address through C_F_POINTER, puts between fences and
# under locks, MPI_Fetch_and_op, MPI_Win_create over a Fortran array, the
# window attributes.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^f_rma: $np ranks OK"
done
