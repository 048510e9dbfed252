#!/bin/sh
# p2p_persistent: persistent sends and receives of every mode started many
# times, MPI_Startall, inactive requests; on 2, 3, 6 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 6 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_persistent: $np ranks OK"
done
