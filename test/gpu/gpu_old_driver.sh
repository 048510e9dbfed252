#!/bin/sh
# gpu_old_driver: device reductions when the reduction kernels cannot be
# used. With any driver: the driver's version is compared with the one the
# kernels need (logged at info) and ompi_lite_info names the path device
# reductions take. Against the fake driver also: a GPU the kernels have no
# code for (compute capability 7.0, a V100: cuModuleLoadData fails with
# CUDA_ERROR_NO_BINARY_FOR_GPU) and a driver older than the kernels (12.2),
# where every reduction case of gpu_reduce must still be right (staged
# through host memory; the CUDA IPC allreduce, which the large cases take,
# left by all ranks), each rank must say once why, and ompi_lite_info must
# name the host-staged path and the reason.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"
prog=$bindir/gpu_reduce
test_name=gpu_reduce

info=$top_builddir/ompi-lite/tools/ompi_lite_info
[ -x "$info" ] || info=$(command -v ompi_lite_info) || hard_error "ompi_lite_info was not built"

OMPI_LITE_DEBUG=info
export OMPI_LITE_DEBUG

run_gpu 2
expect_err "CUDA driver .* version [0-9]+\.[0-9]+.*reduction kernels need [0-9]+\.[0-9]+"
capture "$info"
[ "$rc" -eq 0 ] || fail "ompi_lite_info exited with status $rc"
expect_out "Device reductions: +(CUDA kernels|staged through host memory)"

# staged_everywhere NP REASON: each of the NP ranks said once that device
# reductions are staged through host memory, and why.
staged_everywhere() {
    said=$(grep -c "device reductions are staged through host memory" "$work/err")
    [ "$said" -eq "$1" ] ||
        fail "$said lines say that device reductions are staged, expected $1 (one a rank)"
    expect_err_line "device reductions are staged through host memory" "$2"
}

if [ -n "${fake_dir:-}" ]; then
    for setting in "FAKE_CUDA_CC=7.0 CUDA_ERROR_NO_BINARY_FOR_GPU" \
        "FAKE_CUDA_DRIVER_VERSION=12020 older than"; do
        variable=${setting%% *}
        reason=${setting#* }
        for np in 2 3; do
            echo "$variable on $np ranks"
            export "$variable"
            run_gpu "$np"
            staged_everywhere "$np" "$reason"
            expect_err "CUDA IPC allreduce: a rank cannot use the reduction kernels"
        done
        capture "$info"
        [ "$rc" -eq 0 ] || fail "ompi_lite_info with $variable exited with status $rc"
        expect_out "Device reductions: +staged through host memory"
        expect_out "$reason"
        unset "${variable%%=*}"
    done
fi
