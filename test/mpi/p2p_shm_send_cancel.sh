#!/bin/sh
# p2p_shm_send_cancel: cancelled sends on one host are taken back by their
# receiver, on every path (inline, copied out of the sender, announced),
# in every mode, to itself, freed at once, and racing with the receive; on
# 2, 3 and 8 ranks. With UCX's matching (OMPI_LITE_P2P_SHM=0), which cannot
# take a send back, a failed cancel must deliver the message instead.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 60 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 60"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_send_cancel: races: [0-9]+ cancelled, [0-9]+ received"
    expect_out "^p2p_shm_send_cancel: $np ranks OK"
done

OMPI_LITE_P2P_SHM=0 run_mpi 2 may-fail
expect_success
expect_out "^p2p_shm_send_cancel: 2 ranks OK"
