#!/bin/sh
# intercomm_ops: Comm_split and Comm_create on intercommunicators, and
# Intercomm_create refusing an intercommunicator as local_comm.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 4 5 8; do
    run_mpi "$np"
    expect_success
    expect_out "^intercomm_ops: $np ranks OK"
done
