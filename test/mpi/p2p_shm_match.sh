#!/bin/sh
# p2p_shm_match: unexpected and posted messages matched by tag, wildcard
# receives from every rank (per-source order), posted-order matching of
# wildcard and specific receives, messages to self, communicators kept
# apart, receives of messages still waiting in the ring; on 2, 3 and 8
# ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_match: $np ranks OK"
done
