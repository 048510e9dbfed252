#!/bin/sh
# p2p_probe: Probe/Iprobe with and without wildcards, Mprobe/Improbe +
# Mrecv/Imrecv against competing wildcard receives, MPI_PROC_NULL and
# MPI_MESSAGE_NO_PROC; on 2, 3, 4 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_probe: $np ranks OK"
done
