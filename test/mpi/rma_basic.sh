#!/bin/sh
# rma_basic: MPI_Put and MPI_Get in every window flavor (create and
# allocate with disp_unit 1 and 8, allocate_shared, dynamic) x every
# synchronisation mode x ring and all-to-all, with contiguous and derived
# datatypes on either side; every byte of the target window and around it
# checked. On 1, 2, 3 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_basic: $np ranks OK \(154 cases\)"
done

# A subset by name: the ring cases of the dynamic windows only.
run_mpi 2 dynamic/ring
expect_success
expect_out "^rma_basic: 2 ranks OK \(11 cases\)"

# The same the way between hosts (RMA_SHARED_MEMORY=0; one host takes the
# direct path otherwise, rma/README.md): puts and gets through UCX's RMA,
# the rest as messages the target handles.
export OMPI_LITE_RMA_SHARED_MEMORY=0
for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^rma_basic: $np ranks OK \(154 cases\)"
done
unset OMPI_LITE_RMA_SHARED_MEMORY

# And with every operation a message (RMA_UCX=0): what a window takes where
# UCX cannot register its memory.
export OMPI_LITE_RMA_SHARED_MEMORY=0 OMPI_LITE_RMA_UCX=0
run_mpi 2
expect_success
expect_out "^rma_basic: 2 ranks OK \(154 cases\)"
unset OMPI_LITE_RMA_SHARED_MEMORY OMPI_LITE_RMA_UCX
