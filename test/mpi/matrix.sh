#!/bin/sh
# matrix: every ordered pair of ranks exchanges messages of every size
# (0 B to 1 MiB) and type, on 2, 3 and 5 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5; do
    run_mpi "$np"
    expect_success
    expect_out "^matrix: $np ranks OK"
done
