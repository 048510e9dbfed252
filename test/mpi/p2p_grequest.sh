#!/bin/sh
# p2p_grequest: generalized requests completed by another thread, their
# query, free and cancel functions, the status getters; on 2 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_grequest: $np ranks OK"
done
