#!/bin/sh
# rma_fence: values handed from one fence epoch to the next (rma_fence.c)
# on 1 to 3 ranks of one host (the direct path), then the way between
# hosts (RMA_SHARED_MEMORY=0): 2 ranks, whose fence is a marker each way
# (puts and gets through UCX's RMA, the products as messages, which the
# puts and gets of the next epoch must not overtake), and 3 ranks, whose
# fence is a flush and a barrier; and 2 ranks with every operation a
# message (RMA_UCX=0). rma_netns.sh runs it between hosts.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_fence: $np ranks OK \(300 rounds\)"
done

export OMPI_LITE_RMA_SHARED_MEMORY=0
for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_fence: $np ranks OK \(300 rounds\)"
done
OMPI_LITE_RMA_UCX=0 run_mpi 2
expect_success
expect_out "^rma_fence: 2 ranks OK \(300 rounds\)"
