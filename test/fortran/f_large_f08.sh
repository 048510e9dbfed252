#!/bin/sh
# f_large_f08: test/fortran/f_large_f08.f90 (`use mpi_f08`) on 1 to 4 ranks:
# MPI_Op_create_c's user function in MPI_Allreduce_c (the sums arrive) and
# in MPI_Reduce_local_c over 2**31 + 7 elements (its len arrives whole),
# and MPI_Register_datarep_c's conversions (the file's bytes show them).
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^f_large_f08: $np ranks OK"
done
