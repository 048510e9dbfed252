#!/bin/sh
# p2p_status_error: calls that return one status leave its MPI_ERROR as it
# was, also when they fail; MPI_Waitall and the others of several
# completions write it only when they return MPI_ERR_IN_STATUS (MPI 3.2.5).
# On 2 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

run_mpi 2
expect_success
expect_out "^p2p_status_error: 2 ranks OK"
