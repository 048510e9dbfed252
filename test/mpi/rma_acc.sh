#!/bin/sh
# rma_acc: MPI_Accumulate with every predefined op and type pair,
# MPI_Get_accumulate, MPI_Fetch_and_op and MPI_Compare_and_swap under
# concurrency (exact sums, distinct fetched values, a CAS spin lock),
# request-based and large-count operations, accumulate ordering and a
# randomized checker against a sequential model. On 1, 2, 3 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_acc: $np ranks OK \(13 cases\)"
done

# The same the way between hosts (RMA_SHARED_MEMORY=0; one host takes the
# direct path otherwise, rma/README.md), with UCX's atomics
# (RMA_UCX_ATOMICS=1, as on an InfiniBand host): single-element integer
# accumulates through them, the others as messages whose target applies
# them with the CPU's atomics, at the same places at once.
export OMPI_LITE_RMA_SHARED_MEMORY=0 OMPI_LITE_RMA_UCX_ATOMICS=1
for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_acc: $np ranks OK \(13 cases\)"
done
unset OMPI_LITE_RMA_UCX_ATOMICS

# Without them (this host has no InfiniBand: the default), every
# accumulate is a message applied whole; and with every operation a
# message (RMA_UCX=0).
run_mpi 2
expect_success
expect_out "^rma_acc: 2 ranks OK \(13 cases\)"
export OMPI_LITE_RMA_UCX=0
run_mpi 2
expect_success
expect_out "^rma_acc: 2 ranks OK \(13 cases\)"
unset OMPI_LITE_RMA_SHARED_MEMORY OMPI_LITE_RMA_UCX
