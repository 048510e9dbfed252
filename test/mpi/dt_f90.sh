#!/bin/sh
# dt_f90: the types of MPI_Type_create_f90_integer/_real/_complex (their
# combiners and contents, one handle per arguments, never freed, used in
# messages and reductions as their Fortran kinds); on 1 and 2 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2; do
    run_mpi "$np"
    expect_success
    expect_out "^dt_f90: $np ranks OK"
done
