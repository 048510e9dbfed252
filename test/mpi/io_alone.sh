#!/bin/sh
# io_alone: collective I/O on one host of large interleaved pieces, which
# each rank moves alone: the file byte for byte and the data read back on 1
# to 4 ranks, also where one rank's pieces lie between small gaps that the
# others write at once (none of their bytes may be lost).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 60"

for np in 1 2 3 4; do
    run_mpi "$np" "$work"
    expect_success
    expect_out "^io_alone: $np ranks OK"
done
