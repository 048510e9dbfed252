#!/bin/sh
# io_datarep: the native, internal and external32 representations (the
# bytes of external32 in the file), a representation registered with
# conversion functions and one without, MPI_ERR_UNSUPPORTED_DATAREP and
# MPI_ERR_DUP_DATAREP. On 1, 2, 3 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 60"
mkdir "$work/io" || hard_error "cannot make $work/io"

for np in 1 2 3 4; do
    run_mpi "$np" "$work/io"
    expect_success
    expect_out "^io_datarep: $np ranks OK"
done
