#!/bin/sh
# f_mix_f08: `use mpi` and `use mpi_f08` in one program, their handles
# crossing through MPI_VAL both ways.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3; do
    run_mpi "$np"
    expect_success
    expect_out "^f_mix_f08: $np ranks OK"
done
