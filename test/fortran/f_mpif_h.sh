#!/bin/sh
# f_mpif_h: test/fortran/f_mpi.F90 built with `include 'mpif.h'` on
# 1 to 4 ranks: point-to-point, collectives with Fortran types, a vector
# type over a matrix row, communicators, a Fortran user op, error classes
# and strings, Fortran error handler and attribute callbacks.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^f_mpi: $np ranks OK"
done
