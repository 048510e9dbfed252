#!/bin/sh
# p2p_shm_oversub: 3000 blocking exchanges, 400 token laps and 2000 requests
# served while polling with MPI_Test round a ring of 3 and of 8 ranks on a
# 2-core machine: finishes in time only when waiting ranks sleep and are
# woken by their message, and polls that find nothing give the core away.
# Times go to the log.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_oversub: $np ranks OK"
done
