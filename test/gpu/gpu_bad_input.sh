#!/bin/sh
# gpu_bad_input: freed device memory handed to MPI_Send / MPI_Mrecv gives an
# error (MPI_ERRORS_RETURN), and under MPI_ERRORS_ARE_FATAL ends the job with
# a message that names MPI_Send, never a silent transfer. Against the fake
# driver also a kernel fault on one rank of three (cuLaunchKernel:
# CUDA_ERROR_ILLEGAL_ADDRESS) in gpu_reduce: the job ends with a message that
# names the MPI call, the fault and the device buffer, and no rank is left
# waiting.
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

if [ -n "${fake_dir:-}" ]; then
    prog=$bindir/gpu_reduce
    echo "a kernel fault on rank 1 of 3"
    # shellcheck disable=SC2086
    FAKE_CUDA_FAIL=cuLaunchKernel:700 FAKE_CUDA_FAIL_RANKS=1 capture $MPIRUN -np 3 "$prog"
    [ "$rc" -ne 0 ] || fail "kernel fault: the job exited 0, expected the fault to end it"
    expect_err_line "error in MPI_(Allreduce|Reduce)" \
        "cuLaunchKernel failed: CUDA_ERROR_ILLEGAL_ADDRESS .*into the device buffer 0x"
fi
