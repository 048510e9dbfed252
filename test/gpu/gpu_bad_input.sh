#!/bin/sh
# gpu_bad_input: freed device memory handed to MPI_Send / MPI_Mrecv gives an
# error (MPI_ERRORS_RETURN), and under MPI_ERRORS_ARE_FATAL ends the job with
# a message that names MPI_Send, never a silent transfer.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_gpu "$np"
done

# shellcheck disable=SC2086
capture $MPIRUN -np 2 "$prog" fatal
[ "$rc" -ne 77 ] || skip "no usable GPU"
[ "$rc" -ne 0 ] || fail "fatal: the job exited 0, expected the send from freed memory to end it"
grep -q "returned (success)" "$work/err" && fail "fatal: the send from freed device memory succeeded"
expect_err "MPI_Send"
