#!/bin/sh
# comm_threads: concurrent communicator creation from several threads.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A run takes under a second: a hang fails within 60 s, with mpirun's report
# of where every rank waits, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 60"

for np in 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_threads: $np ranks x 3 threads x 60 communicators OK"
done
