#!/bin/sh
# gpu_unusable_driver: a CUDA driver that the program allocates device
# memory with, but that ompi-lite cannot use. Device buffers must be
# recognised and refused with MPI_ERR_BUFFER (gpu_bad_input unusable: send,
# matched receive, allreduce; every rank returns), and under the default
# error handler MPI_Send from one must end the job with a message that names
# the call, the buffer and the reason (gpu_bad_input unusable-fatal); the
# CPU must never read the device buffer as host memory. Only the fake driver
# can be made unusable: a build of it without the entry points drivers
# before CUDA 11.0 lack (old/libcuda.so.1, version 10.2), and cuInit failing
# for the library alone (804, CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
# after the program's own cuInit succeeded). Skipped with a real driver.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"
prog=$bindir/gpu_bad_input
test_name=gpu_bad_input

[ -n "${fake_dir:-}" ] || skip "only the fake driver can be made unusable for ompi-lite"

# refused REASON: both modes, under the environment set by the caller.
refused() {
    run_gpu 2 unusable
    # shellcheck disable=SC2086
    capture $MPIRUN -np 2 "$prog" unusable-fatal
    [ "$rc" -ne 0 ] || fail "unusable-fatal: the job exited 0, expected MPI_Send to end it"
    grep -q "returned under MPI_ERRORS_ARE_FATAL" "$work/err" &&
        fail "unusable-fatal: MPI_Send from device memory returned"
    expect_err_line "MPI_Send" "send buffer 0x[0-9a-f]+ is CUDA device memory, but .*$1"
}

# Each case in a subshell, so that its environment ends with it.
(
    echo "a driver without the entry points of CUDA 11"
    old=$fake_dir/old/libcuda.so.1
    [ -f "$old" ] || hard_error "$old was not built"
    LD_LIBRARY_PATH=$fake_dir/old:$LD_LIBRARY_PATH
    OMPI_LITE_CUDA_LIBRARY=$old
    FAKE_CUDA_DRIVER_VERSION=10020
    export LD_LIBRARY_PATH OMPI_LITE_CUDA_LIBRARY FAKE_CUDA_DRIVER_VERSION
    refused "version 10.2\) is too old: it has no cuDevicePrimaryCtxRelease_v2"
) || exit $?

(
    echo "cuInit failing for the library"
    FAKE_CUDA_FAIL=cuInit:804
    FAKE_CUDA_FAIL_AFTER=1
    export FAKE_CUDA_FAIL FAKE_CUDA_FAIL_AFTER
    refused "cuInit failed: CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
) || exit $?
