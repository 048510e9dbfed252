#!/bin/sh
# p2p_shm_wake: bursts of messages to a sleeping rank 0, the last right
# before MPI_Finalize, on 2, 3 and 8 ranks: every message arrives in order,
# and every wake-up is taken before the job ends (expect_success fails on a
# UCX warning of a message left unexpected).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_wake: $np ranks OK"
done
