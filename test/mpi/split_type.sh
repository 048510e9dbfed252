#!/bin/sh
# split_type: MPI_Comm_split_type's SHARED, HW_GUIDED, HW_UNGUIDED and
# RESOURCE_GUIDED types on one host, unbound (1, 2, 4, 8 ranks) and bound to
# cores (4 ranks, --bind-to core).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 4 8; do
    run_mpi "$np"
    expect_success
    expect_out "^split_type: $np ranks OK"
done

if ! is_open_mpi; then
    # shellcheck disable=SC2086
    capture $MPIRUN --bind-to core -np 4 "$prog" bound
    expect_success
    expect_out "^split_type: 4 ranks OK \(bound\)"
fi
