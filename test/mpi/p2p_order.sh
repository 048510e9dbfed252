#!/bin/sh
# p2p_order: non-overtaking of 1000 messages of 8 B to 256 KiB from one
# sender, and from several senders to an ANY_SOURCE receiver; on 2, 3, 5 and
# 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_order: $np ranks OK"
done
