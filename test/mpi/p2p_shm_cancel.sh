#!/bin/sh
# p2p_shm_cancel: cancelled receives that never match, that already matched,
# and that race with their message (delivered or cancelled, never both);
# on 2, 3 and 8 ranks. The split of the races goes to the log.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_cancel: races: [0-9]+ cancelled, [0-9]+ delivered"
    expect_out "^p2p_shm_cancel: $np ranks OK"
done
