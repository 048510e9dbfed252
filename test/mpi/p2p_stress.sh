#!/bin/sh
# p2p_stress: random traffic (sizes 0 to 64 KiB, random tags, half received
# with both wildcards) among all ranks, from a fixed seed; on 4 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 4 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_stress: seed [0-9]+"
    expect_out "^p2p_stress: $np ranks OK"
done
