#!/bin/sh
# comm_attr_type: datatype attributes and window keyvals, on 1 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 3; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_attr_type: $np ranks OK"
done
