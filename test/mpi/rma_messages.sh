#!/bin/sh
# rma_messages: thousands of small puts, ordered accumulates, request-based
# gets, a range error among good puts, and large gets (strided, and one out
# of range among good ones) in one epoch each, with every operation a
# message (RMA_UCX=0) on 1 to 3 ranks; with UCX RMA over shared memory and message accumulates
# (RMA_SHARED_MEMORY=0); and on the direct path of one host (the default),
# which must give the same answers. rma_netns.sh runs it between hosts.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

export OMPI_LITE_RMA_SHARED_MEMORY=0 OMPI_LITE_RMA_UCX=0
for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_messages: $np ranks OK"
done
unset OMPI_LITE_RMA_UCX
run_mpi 2
expect_success
expect_out "^rma_messages: 2 ranks OK"
unset OMPI_LITE_RMA_SHARED_MEMORY
run_mpi 3
expect_success
expect_out "^rma_messages: 3 ranks OK"
