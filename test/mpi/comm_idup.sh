#!/bin/sh
# comm_idup: MPI_Comm_idup does not wait for the other processes (on an
# intracommunicator and an intercommunicator, several in flight at once),
# rounds of MPI_Comm_create_group over changing subgroups, and an idup in
# flight beside a create_group called in the other order; 1 to 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A deadlock fails within 60 s, with mpirun's report.
MPIRUN="$MPIRUN --timeout 60"

for np in 1 2 3 4 8; do
    run_mpi "$np"
    expect_success
    expect_out "^comm_idup: $np ranks OK"
done
