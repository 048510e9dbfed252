#!/bin/sh
# p2p_shm_probe: MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv and
# MPI_Imrecv of messages of 0 B to 200 KiB: counts before the receive, a
# matched message taken by no other receive; on 2, 3 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_probe: $np ranks OK"
done
