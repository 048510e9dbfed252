#!/bin/sh
# session_buffer: buffered sends through a session's buffer (see
# session_buffer.c for what each mode checks) on 1 to 4 ranks and in a
# singleton; then MPI_Bsend with no buffer under a fatal handler ends the
# job with a line that names the call, what was missing and the class, and
# leaves no process.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    for mode in use world errors; do
        run_mpi "$np" "$mode"
        expect_success
        expect_out "^session_buffer: $mode OK"
    done
done

for mode in use world errors; do
    capture "$prog" "$mode"
    expect_success
    expect_out "^session_buffer: $mode OK"
done

tag=ol-test-session-buffer-$$
run_mpi 2 fatal "$tag"
expect_failure
expect_err_line "MPI_Bsend" "no buffer is attached to the communicator, to its session or to the process"
expect_err_line "MPI_Bsend" "MPI_ERR_BUFFER"
expect_no_survivors "$tag"
