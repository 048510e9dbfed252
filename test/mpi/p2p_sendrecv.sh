#!/bin/sh
# p2p_sendrecv: Sendrecv, Sendrecv_replace, Isendrecv, Isendrecv_replace of 1
# and 100000 ints round a ring, along a chain with MPI_PROC_NULL ends and with
# the rank itself; on 2, 3, 5 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_sendrecv: $np ranks OK"
done
