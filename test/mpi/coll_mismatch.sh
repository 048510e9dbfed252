#!/bin/sh
# coll_mismatch: a broadcast whose counts differ between the root and the
# others returns MPI_ERR_TRUNCATE where a process sees the wrong length, on
# 2, 3 and 5 ranks, and leaves no process waiting; so does a small
# allreduce, and an allgather and alltoall (blocking, nonblocking,
# persistent) where rank 0 sends more, under each of their algorithms.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5; do
    run_mpi "$np"
    expect_success
    expect_out "^coll_mismatch: $np ranks OK"
done

for algorithm in ring bruck recursive_doubling; do
    OMPI_LITE_ALLGATHER_ALGORITHM=$algorithm run_mpi 3
    expect_success
    expect_out "^coll_mismatch: 3 ranks OK"
done
for algorithm in pairwise bruck linear; do
    OMPI_LITE_ALLTOALL_ALGORITHM=$algorithm run_mpi 3
    expect_success
    expect_out "^coll_mismatch: 3 ranks OK"
done
