#!/bin/sh
# p2p_modes: send modes (standard, synchronous, buffered, ready), blocking and
# nonblocking, of 0 B to 1 MiB; Issend waits for the receive, Bsend does not;
# buffer attach/detach (process, communicator, MPI_BUFFER_AUTOMATIC), the
# four flushes, and MPI_ERR_BUFFER; on 2, 3, 5 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_modes: $np ranks OK"
done
