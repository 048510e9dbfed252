#!/bin/sh
# p2p_shm_order: non-overtaking between pairs of ranks of 2000 messages of
# 0 to 256 KiB sent by every send mode, with one tag and with five tags to
# MPI_ANY_TAG receives; on 2, 3 (one rank receives from two) and 8 ranks,
# over the shared-memory rings (the log must say they run), on 3 ranks with
# messages above 4 KiB by address, and on 3 ranks over UCX's matching
# (OMPI_LITE_P2P_SHM=0).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    OMPI_LITE_DEBUG=info run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_order: $np ranks OK"
    expect_err "pt2pt: matching over shared-memory rings"
done

# Messages above 4 KiB by address, as on hosts whose kernel reads cheaply
# (a blocking send among them too, while its rank has a receive posted).
OMPI_LITE_P2P_SHM_CMA_BYTES=4097 run_mpi 3
expect_success
expect_out "^p2p_shm_order: 3 ranks OK"

OMPI_LITE_P2P_SHM=0 OMPI_LITE_DEBUG=info run_mpi 3
expect_success
expect_out "^p2p_shm_order: 3 ranks OK"
expect_no_output "matching over shared-memory rings"
