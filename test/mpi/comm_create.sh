#!/bin/sh
# comm_create: Comm_split, Comm_create, Comm_create_group, Comm_create_from_group,
# Intercomm_create(_from_groups) and Intercomm_merge on 1 to 8 ranks; 10,000 dup/free
# pairs without heap growth on 1, 2 and 4.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4 5 7 8; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_create: $np ranks OK"
done

for np in 1 2 4; do
    run_mpi "$np" dup
    expect_success
    expect_out "^comm_create: $np ranks OK"
done
