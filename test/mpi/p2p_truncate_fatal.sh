#!/bin/sh
# p2p_truncate_fatal: a receive too short for its message under
# MPI_ERRORS_ARE_FATAL ends the job with a message naming both sizes, over
# the shared-memory rings and over UCX; MPI_Waitall's message names the
# failed request and its error, not only MPI_ERR_IN_STATUS.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for shm in 1 0; do
    OMPI_LITE_P2P_SHM=$shm run_mpi 2 recv
    expect_failure
    expect_err_line "error in MPI_Recv on rank 1" \
        "a message of 400 bytes arrived for a receive of 10 elements of MPI_INT \\(40 bytes\\)"
    OMPI_LITE_P2P_SHM=$shm run_mpi 2 waitall
    expect_failure
    expect_err_line "error in MPI_Waitall on rank 1" \
        "request 0 failed with MPI_ERR_TRUNCATE.*a message of 400 bytes arrived for a receive of 10"
done
