#!/bin/sh
# io_failure: a rank killed in the middle of collective writes ends the job
# (mpirun names it, nobody hangs, on 2 and 4 ranks, the victim an
# aggregator or not), and a collective write to a full disk (/dev/full)
# fails with MPI_ERR_NO_SPACE on every rank (1 to 4), never silently, in
# one round and in many (the first write failing while the next round's
# pieces arrive).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 60 s, with mpirun's report of what every rank waits for.
MPIRUN="$MPIRUN --timeout 60"

for case in "2 1" "4 0" "4 3"; do
    # shellcheck disable=SC2086 # two words: ranks, victim
    set -- $case
    run_mpi "$1" "$work" kill "$2"
    expect_status 137
    expect_err "^mpirun: rank $2 \\(pid [0-9]+ on host .*\\) was killed by signal 9"
    expect_no_output "finished every write"
done

for np in 1 2 3 4; do
    run_mpi "$np" "$work" full
    expect_success
    expect_out "^io_failure: $np ranks OK"
done
