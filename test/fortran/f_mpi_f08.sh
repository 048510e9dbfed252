#!/bin/sh
# f_mpi_f08: test/fortran/f_mpi_f08.f90 (`use mpi_f08`) on 1 to 4 ranks:
# point-to-point, collectives with Fortran types, a vector type over a
# matrix row, array sections passed directly to blocking and nonblocking
# calls, communicators, strings, errors through the optional ierror and
# MPI_ERRORS_RETURN, a user op, an error handler and attribute callbacks.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^f_mpi_f08: $np ranks OK"
done
