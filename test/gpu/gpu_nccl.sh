#!/bin/sh
# coll_perf_nccl, coll_perf's twin that measures NCCL (test/bench/README.md;
# built where configure found NCCL). First that it skips cleanly (status 77
# and one line saying why, no rows) where NCCL cannot run: no CUDA driver,
# and more ranks on a host than GPUs (NCCL refuses two ranks on one GPU).
# Then, with a real GPU, every collective through NCCL with its data checked
# on 1 rank, and on 2 ranks where there are 2 GPUs. Against the fake driver
# NCCL itself is not run: libnccl's CUDA runtime needs the real driver.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

prog=$bench_bindir/coll_perf_nccl
[ -x "$prog" ] || hard_error "$prog was not built"
small="-b 8 -e 1M -f 2 -c 1 -n 2 -w 1 -r 1" # 18 sizes

# expect_skip WHY: the captured run skipped, saying WHY (a regular
# expression) on rank 0's line. mpirun may lose a status given after
# MPI_Finalize: 0 is taken for 77 where the line is there.
expect_skip() {
    [ "$rc" -eq 77 ] || [ "$rc" -eq 0 ] || fail "expected a skip (77), the job exited with status $rc"
    grep -Eq "^coll_perf_nccl: rank 0: $1" "$work/err" ||
        fail "no line \"coll_perf_nccl: rank 0: $1\" on stderr"
    ! grep -v '^#' "$work/out" | grep -q . || fail "it printed results although it skipped"
}

# shellcheck disable=SC2086
capture env OMPI_LITE_CUDA_LIBRARY="$work/no-such-libcuda.so.1" $MPIRUN -np 2 "$prog" $small
expect_skip "--device: no CUDA driver"

# One GPU shown (the fake's FAKE_CUDA_DEVICES, the real driver's
# CUDA_VISIBLE_DEVICES) and two ranks on it.
# shellcheck disable=SC2086
capture env FAKE_CUDA_DEVICES=1 CUDA_VISIBLE_DEVICES=0 $MPIRUN -np 2 "$prog" $small
! grep -q -- "--device: " "$work/err" || skip "coll_perf_nccl: no usable GPU"
expect_skip "NCCL takes one GPU per rank: 2 ranks on this host, 1 GPU$"

if [ -n "${fake_dir:-}" ]; then
    echo "against the fake driver: NCCL's own runs need a real GPU (run gpu_nccl.sh there)"
    exit 0
fi

# checked_runs NP: every collective, and allreduce of other widths and ops
# (on one rank they only copy, on two they reduce), on NP ranks.
checked_runs() {
    for args in "-C allreduce" "-C allgather" "-C reduce_scatter" "-C bcast" "-C alltoall" \
        "-C allreduce -d double -o max" "-C allreduce -d int8 -o prod" \
        "-C allreduce -d uint64 -o min"; do
        # shellcheck disable=SC2086
        capture $MPIRUN -np "$1" "$prog" $args $small
        expect_rows "coll_perf_nccl $args on $1 ranks" 18
    done
}

checked_runs 1
# shellcheck disable=SC2086
capture $MPIRUN -np 2 "$prog" $small
if grep -q "NCCL takes one GPU per rank" "$work/err"; then
    echo "one GPU: NCCL on 2 ranks not run"
    exit 0
fi
checked_runs 2
