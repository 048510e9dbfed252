#!/bin/sh
# io_access: every MPI-IO data access routine (explicit offset, individual
# and shared pointer x blocking, nonblocking, split collective x
# independent, collective), the _c forms, seeks, shared-pointer records and
# reads at the end of the file, each file compared byte for byte with a
# serial writer's. On 1, 2, 3 and 4 ranks; the files go to the scratch
# directory.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 60 s, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 60"
mkdir "$work/io" || hard_error "cannot make $work/io"

for np in 1 2 3 4; do
    run_mpi "$np" "$work/io"
    expect_success
    expect_out "^io_access: $np ranks OK"
done

# A part by name: the shared file pointer alone.
run_mpi 3 "$work/io" shared ishared ordered ordered_begin records
expect_success
expect_out "^io_access: 3 ranks OK"
