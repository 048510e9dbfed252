#!/bin/sh
# p2p_shm_full_ring: windows of 48 messages of 64 KiB (with 1 KiB, synchronous
# and vector ones among them) between ranks that stream to each other,
# beyond what a same-host ring holds, received posted and late; on 2 ranks
# (both ways) and 3 (one way per pair), over the rings, and on 2 ranks where
# no message may be copied out of its sender (OMPI_LITE_P2P_SHM_CMA_BYTES=0).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3; do
    OMPI_LITE_DEBUG=info run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_full_ring: $np ranks OK"
    expect_err "pt2pt: matching over shared-memory rings"
done

OMPI_LITE_P2P_SHM_CMA_BYTES=0 run_mpi 2
expect_success
expect_out "^p2p_shm_full_ring: 2 ranks OK"
