#!/bin/sh
# env: the environment calls on 1 and 3 ranks under mpirun, and in a
# singleton (the program started without mpirun); PMIx variables without a
# server make MPI_Init fail with the reason.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3; do
    run_mpi "$np" "$np"
    expect_success
    expect_out "^env: $np ranks OK"
done

capture "$prog" 1
expect_success
expect_out "^env: 1 ranks OK"

# A process whose PMIx variables say a launcher started it, with no server
# behind them, fails in MPI_Init and says why, instead of running on as a
# job of one.
capture env PMIX_NAMESPACE=no-such-job "$prog" 1
expect_failure
expect_err "MPI_Init_thread: the runtime could not start: .*PMIx_Init failed"
expect_no_output "ranks OK"
