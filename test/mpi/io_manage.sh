#!/bin/sh
# io_manage: access modes and their errors, the error classes of failed
# opens, writes and deletes (/dev/full for MPI_ERR_NO_SPACE),
# DELETE_ON_CLOSE, UNIQUE_OPEN, APPEND, sizes, groups, hints, atomicity and
# file error handlers. On 1, 2, 3 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 60"
mkdir "$work/io" || hard_error "cannot make $work/io"
[ -w /dev/full ] || hard_error "/dev/full is missing or not writable"

for np in 1 2 3 4; do
    run_mpi "$np" "$work/io"
    expect_success
    expect_out "^io_manage: $np ranks OK"
done
