#!/bin/sh
# coll_mismatch: a broadcast whose counts differ between the root and the
# others returns MPI_ERR_TRUNCATE where a process sees the wrong length, on
# 2, 3 and 5 ranks, and leaves no process waiting; so does a small allreduce.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5; do
    run_mpi "$np"
    expect_success
    expect_out "^coll_mismatch: $np ranks OK"
done
