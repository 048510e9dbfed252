#!/bin/sh
# p2p_shm_left: messages that wait for their receives while the receiver
# makes progress for something else (a blocking send's end, a cancel, a
# test) arrive intact and in order, the send's end and the cancel's answer
# get through behind them, and the unexpected queue counts them; 2 and 3
# ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A send's end or a cancel's answer left behind the messages hangs its
# round: mpirun ends it with its report of what every rank waits for.
MPIRUN="$MPIRUN --timeout 40"
# Round 3 fills most of a ring of this size (the default for these jobs).
export OMPI_LITE_P2P_SHM_RING_BYTES=262144

for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_left: $np ranks OK"
done
