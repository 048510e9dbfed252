#!/bin/sh
# p2p_shm_threads_mprobe: p2p_shm_threads with every exchange but the
# bursts by MPI_Isend + blocking MPI_Mprobe + MPI_Mrecv, 8 threads per rank
# under MPI_THREAD_MULTIPLE; on 2 and 3 ranks. A matched probe must take
# the first message of its source and tag, never lose it and return the
# next (which a race between threads can cause).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3; do
    run_mpi "$np" mprobe
    expect_success
    expect_out "^p2p_shm_threads_mprobe: $np ranks OK"
done
