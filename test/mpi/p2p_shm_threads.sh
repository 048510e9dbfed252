#!/bin/sh
# p2p_shm_threads: 4 threads per rank, each on its own tag, exchanging
# small and large messages with the same peers at once under
# MPI_THREAD_MULTIPLE (blocking MPI_Mprobe: p2p_shm_threads_mprobe.sh); on 2
# and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_threads: $np ranks OK"
done
