#!/bin/sh
# comm_attr: communicator attributes, their callbacks and order, freed
# keyvals, dup chains, predefined attributes, bad keyvals; on 1, 2, 3 and 8
# ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_attr: $np ranks OK"
done
