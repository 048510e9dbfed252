#!/bin/sh
# env: the environment calls on 1 and 3 ranks under mpirun, and in a
# singleton (the program started without mpirun).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3; do
    run_mpi "$np" "$np"
    expect_success
    expect_out "^env: $np ranks OK"
done

capture "$prog" 1
expect_success
expect_out "^env: 1 ranks OK"
