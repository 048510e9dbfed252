#!/bin/sh
# part: partitioned communication (see part.c) on 1 to 4 ranks: partitions
# sent as they become ready, different partition counts, MPI_Pready_range
# and _list, MPI_Parrived, threads marking partitions, restarts, errors;
# then an MPI_Pready out of range under MPI_ERRORS_ARE_FATAL.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^part: $np ranks OK"
done

run_mpi 2 fatal
expect_failure
expect_err 'MPI_Pready.*partition is 4, out of range: the request has 4 partitions \(0 \.\. 3\)'
