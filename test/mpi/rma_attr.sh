#!/bin/sh
# rma_attr: window attributes per flavor, group, name, info hints, user
# keyvals, error handlers, MPI_Win_shared_query (contiguous and
# noncontig), MPI_Alloc_mem windows on 1, 3 and 4 ranks; then all of it
# with 1000 create/free pairs of each flavor (no growth of /dev/shm or
# VmRSS) on 2 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3 4; do
    run_mpi "$np" attr group name info keyval errhandler shared_query noncontig alloc_mem
    expect_success
    expect_out "^rma_attr: $np ranks OK \(12 cases\)"
done

run_mpi 2
expect_success
expect_out "^rma_attr: 2 ranks OK \(13 cases\)"

# The same through messages (RMA_SHARED_MEMORY=0), the path between hosts.
export OMPI_LITE_RMA_SHARED_MEMORY=0
run_mpi 3 attr group name info keyval errhandler shared_query noncontig alloc_mem
expect_success
expect_out "^rma_attr: 3 ranks OK \(12 cases\)"

# Windows whose memory is registered with UCX (rma/README.md, "UCX RMA"):
# every registration and remote key goes with its window.
run_mpi 2 leak
expect_success
expect_out "^rma_attr: 2 ranks OK \(1 cases\)"
unset OMPI_LITE_RMA_SHARED_MEMORY
