#!/bin/sh
# finalize_orphans: a rank that returns without MPI_Finalize ends the job
# with one line of mpirun naming it; the ranks left in MPI_Finalize print no
# error of their own (their fence fails only because of it); on 2, 3 and 4
# ranks, the others entering MPI_Finalize late and at once. Whether their
# fence fails before mpirun ends them is a race (about 1 run in 6 before
# the fix printed the error), hence three rounds.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for round in 1 2 3; do
for np in 2 3 4; do
    for when in late now; do
        run_mpi "$np" "$when"
        expect_failure
        expect_err "^mpirun: rank 1 \\(pid [0-9]+ on host .*\\) exited without calling MPI_Finalize$"
        expect_no_output "error in MPI_Finalize|no detail"
    done
done
done
