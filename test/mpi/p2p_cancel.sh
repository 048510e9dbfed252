#!/bin/sh
# p2p_cancel: cancel of pending, completed and persistent receives, and of a
# send (which may fail, but must be consistent); on 2, 3 and 6 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 6; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_cancel: $np ranks OK"
done
