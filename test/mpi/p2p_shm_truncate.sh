#!/bin/sh
# p2p_shm_truncate: messages of 101 B to 200 KiB into a 100-byte receive
# (late MPI_Recv, pre-posted MPI_Irecv, MPI_Mprobe + MPI_Mrecv) give
# MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN, and the next message of the pair
# arrives intact; on 2, 3 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_truncate: $np ranks OK"
done
