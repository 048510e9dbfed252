#!/bin/sh
# intercomm_rooted: rooted collectives on intercommunicators with NULL and
# MPI_DATATYPE_NULL where the standard makes arguments not significant.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4 7; do
    run_mpi "$np"
    expect_success
    expect_out "^intercomm_rooted: $np ranks OK"
done
