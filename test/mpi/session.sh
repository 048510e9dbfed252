#!/bin/sh
# session: the session model on 1 to 4 ranks and in a singleton (see
# session.c for what each mode checks): a session before MPI_Init and after
# MPI_Finalize, two sessions at once beside the world model, MPI_Init after
# a finalized session, five sessions in a row; then an unknown process set
# name and MPI_SESSION_NULL under fatal handlers end the job with a message
# that names the call and what was wrong, and leave no process.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

modes="session-first world-first init-after repeat"
for np in 1 2 3 4; do
    for mode in $modes; do
        run_mpi "$np" "$np" "$mode"
        expect_success
        expect_out "^session: $mode OK"
    done
done

for mode in $modes; do
    capture "$prog" 1 "$mode"
    expect_success
    expect_out "^session: $mode OK"
done

tag=ol-test-session-$$
run_mpi 2 2 name-fatal "$tag"
expect_failure
expect_err_line "MPI_Group_from_session_pset" 'pset_name "mpi://NOWHERE" is no process set'
expect_err_line "MPI_Group_from_session_pset" "MPI_ERR_ARG"
expect_no_survivors "$tag"

run_mpi 2 2 null-fatal "$tag"
expect_failure
expect_err_line "MPI_Group_from_session_pset" "session is MPI_SESSION_NULL"
expect_err_line "MPI_Group_from_session_pset" "MPI_ERR_SESSION"
expect_no_survivors "$tag"
