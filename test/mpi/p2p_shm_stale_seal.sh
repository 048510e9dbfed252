#!/bin/sh
# p2p_shm_stale_seal: bytes that a later lap of a same-host ring could take
# for a record's seal are never taken for one: a lap of messages whose
# lines begin with the next lap's seals, then 1-line messages in ping-pong
# over them, data checked; on 2 and 3 ranks, with 256 KiB rings.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A receiver that believed a stale word would hang or fail within 60 s.
MPIRUN="$MPIRUN --timeout 60"
export OMPI_LITE_P2P_SHM_RING_BYTES=262144

for np in 2 3; do
    run_mpi "$np" 262144
    expect_success
    expect_out "^p2p_shm_stale_seal: $np ranks OK"
done
