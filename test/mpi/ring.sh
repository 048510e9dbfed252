#!/bin/sh
# ring: a token goes round 1, 2, 3, 4 and 8 ranks many times. 8 ranks on a
# 2-core machine only finish promptly when blocked ranks sleep rather than
# spin; the time per hop goes to the log, it is not asserted.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

ring() { # NP LAPS
    run_mpi "$1" "$2"
    expect_success
    expect_out "^ring: $1 ranks, $2 laps OK"
}

for np in 1 2 3 4; do
    ring "$np" 1000
done
ring 8 200
