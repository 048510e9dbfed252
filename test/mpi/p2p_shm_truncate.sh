#!/bin/sh
# p2p_shm_truncate: messages of 101 B to 200 KiB into a 100-byte receive
# (late MPI_Recv, pre-posted MPI_Irecv, MPI_Mprobe + MPI_Mrecv) give
# MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN with a status that counts the whole
# message, and the next message of the pair arrives intact; on 2, 3 and 8
# ranks, and on 3 ranks with UCX's matching, whose count must agree.
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

OMPI_LITE_P2P_SHM=0 run_mpi 3
expect_success
expect_out "^p2p_shm_truncate: 3 ranks OK"
