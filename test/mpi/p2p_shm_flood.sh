#!/bin/sh
# p2p_shm_flood: far more messages in flight than a same-host ring holds:
# 10000 MPI_Isends and 20000 blocking 1 KiB MPI_Sends to a rank that is not
# receiving yet, all to all of 1000 64 B blocking sends per pair before any
# receive, and sends followed at once by MPI_Finalize; on 2, 3 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 40 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 40"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_flood: $np ranks OK"
done
