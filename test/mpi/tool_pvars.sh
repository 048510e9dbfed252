#!/bin/sh
# tool_pvars: the performance variables of issue 39 (see tool_pvars.c):
# message and byte counts of the same-host rings (the default on one host,
# 2 to 4 ranks) and of UCX (OMPI_LITE_P2P_SHM=0, and a one-rank job) on 1 to
# 4 ranks, the matching queues,
# the progress engine's timer (2 and 3 ranks) and the collective calls by
# algorithm with the allreduce forced to ring (2 to 4 ranks).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4; do
    run_mpi "$np" rings
    expect_success
    expect_out "^tool_pvars: rings OK"
done

# A one-rank job has no rings: UCX carries its messages to itself.
run_mpi 1 ucx
expect_success
expect_out "^tool_pvars: ucx OK"

for np in 1 2 3 4; do
    OMPI_LITE_P2P_SHM=0 run_mpi "$np" ucx
    expect_success
    expect_out "^tool_pvars: ucx OK"
done

for np in 2 3; do
    run_mpi "$np" timer
    expect_success
    expect_out "^tool_pvars: timer OK"
done

for np in 2 3 4; do
    OMPI_LITE_ALLREDUCE_ALGORITHM=ring run_mpi "$np" coll
    expect_success
    expect_out "^tool_pvars: coll OK"
done
