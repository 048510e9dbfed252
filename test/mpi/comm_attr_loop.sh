#!/bin/sh
# comm_attr_loop: 10,000 dup/free pairs of a communicator with attributes,
# hints and a user error handler do not grow the heap; on 1, 2 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_attr_loop: .* OK"
done
