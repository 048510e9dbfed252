#!/bin/sh
# fortran_abi: the Fortran type registration of the standard ABI, made
# before MPI_Init on 1 and 3 ranks, and after it (with bad calls first) on 2
# ranks and in a singleton. See fortran_abi.c for what is checked.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3; do
    run_mpi "$np"
    expect_success
    expect_out "^fortran_abi: $np ranks OK"
done

run_mpi 2 late
expect_success
expect_out "^fortran_abi: 2 ranks OK"

capture "$prog" late
expect_success
expect_out "^fortran_abi: 1 ranks OK"
