#!/bin/sh
# io_rounds: two-phase collective I/O over many rounds (cb_buffer_size 64 KiB),
# with holes the aggregators must read first, data checked, on 1 to 4
# ranks, then the same rounds without holes (both windows of an aggregator
# in flight, a rank whose lane ends early, nonblocking forms moved by
# MPI_Test alone) and every rank reading the whole file; and on 4 where
# waiting ranks sleep at once (YIELD_US=0) with their
# safety-net poll (WAIT_POLL_MS) out of reach, so that a phase that wakes
# nobody hangs until mpirun's timeout instead of costing 100 ms a round.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 60"

for np in 1 2 3 4; do
    run_mpi "$np" "$work"
    expect_success
    expect_out "^io_rounds: $np ranks OK"
done

OMPI_LITE_YIELD_US=0 OMPI_LITE_WAIT_POLL_MS=3600000 run_mpi 4 "$work"
expect_success
expect_out "^io_rounds: 4 ranks OK"
