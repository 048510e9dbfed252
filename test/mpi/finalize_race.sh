#!/bin/sh
# finalize_race: MPI_Finalize with the fence completion's wakeup of the UCX
# worker made late (the late_signal shim): the job ends cleanly, no rank
# dies in MPI_Finalize; on 1, 2, 4 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

shim=$top_builddir/test/mpi/.libs/late_signal.so
[ -f "$shim" ] || hard_error "$shim was not built"

for np in 1 2 4 8; do
    # shellcheck disable=SC2086 # $MPIRUN may carry options
    capture $MPIRUN -np "$np" -x LD_PRELOAD="$shim" "$prog"
    expect_success
    expect_out "^finalize_race: $np ranks OK"
done
