#!/bin/sh
# p2p_shm_moved: blocking MPI_Sends of 4-64 KiB complete before their
# receives (exchanges both ways, to self, and right before MPI_Finalize) and
# deliver the bytes they were sent with; 2, 3 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A send that waits for its receive hangs part 1: mpirun ends it with its
# report of what every rank waits for.
MPIRUN="$MPIRUN --timeout 40"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_moved: $np ranks OK"
done
