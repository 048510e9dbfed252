#!/bin/sh
# hw_resource: MPI_Get_hw_resource_info (see hw_resource.c) unbound on 1 to
# 4 ranks and in a singleton, and bound to cores (2 and 4 ranks,
# --bind-to core).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^hw_resource: $np ranks OK"
done

capture "$prog"
expect_success
expect_out "^hw_resource: 1 ranks OK"

if ! is_open_mpi; then
    for np in 2 4; do
        # shellcheck disable=SC2086
        capture $MPIRUN --bind-to core -np "$np" "$prog" bound
        expect_success
        expect_out "^hw_resource: $np ranks OK \(bound\)"
    done
fi
