#!/bin/sh
# p2p_nonblocking: 200 outstanding Isend/Irecv each way per rank completed by
# every Wait/Test variant, MPI_Request_free of a send in flight,
# MPI_Request_get_status*; on 2, 3, 4 and 7 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4 7; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_nonblocking: $np ranks OK"
done
