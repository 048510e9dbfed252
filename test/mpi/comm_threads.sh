#!/bin/sh
# comm_threads: concurrent communicator creation from several threads.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_threads: $np ranks x 3 threads x 60 communicators OK"
done
