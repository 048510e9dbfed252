# Sourced by every test/gpu/*.sh test; not a test itself.
#
# Each test script runs the program of the same name ($prog) through $MPIRUN
# on 2 to 4 ranks. A program that finds no usable GPU exits 77: the script
# then exits 77 too (skipped). The output of every run goes to the test's log.
# Exit 1: a failed check; 99: a broken set-up.
#
# NAME.fake.sh runs NAME.sh against the fake driver (test/gpu/fake_cuda,
# built where configure found CUDA): the library and the program load
# $OL_FAKE_CUDA_DIR/libcuda.so.1, and a program that finds no GPU fails
# instead of skipping (OL_GPU_TEST_REQUIRE_GPU=1).
#
# Where the programs are: $GPU_TEST_BINDIR (default $top_builddir/test/gpu);
# the benchmarks: $BENCH_BINDIR (default $top_builddir/test/bench).
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

# skip REASON: exit 77, or fail where a GPU is required (the fake runs).
skip() {
    [ "${OL_GPU_TEST_REQUIRE_GPU:-0}" != 1 ] || fail "skipped where a GPU is required: $*"
    printf 'SKIP: %s\n' "$*"
    exit 77
}

test_name=$(basename "$0" .sh)
case $test_name in
*.fake)
    test_name=${test_name%.fake}
    fake_dir=${OL_FAKE_CUDA_DIR:-$top_builddir/test/gpu/fake_cuda}
    [ -f "$fake_dir/libcuda.so.1" ] || skip "the fake driver $fake_dir/libcuda.so.1 was not built"
    LD_LIBRARY_PATH=$fake_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    OMPI_LITE_CUDA_LIBRARY=$fake_dir/libcuda.so.1
    OL_GPU_TEST_REQUIRE_GPU=1
    export LD_LIBRARY_PATH OMPI_LITE_CUDA_LIBRARY OL_GPU_TEST_REQUIRE_GPU
    echo "against the fake driver $OMPI_LITE_CUDA_LIBRARY (a skip is a failure here)"
    ;;
esac
bindir=${GPU_TEST_BINDIR:-$top_builddir/test/gpu}
# shellcheck disable=SC2034 # used by gpu_bench.sh
bench_bindir=${BENCH_BINDIR:-$top_builddir/test/bench}
prog=$bindir/$test_name

# run_gpu NP ARGS...: runs $prog ARGS on NP ranks; exits 77 when the program
# skipped (no GPU), fails unless it exited 0 and printed "NAME: OK".
# $MPIRUN is left unquoted on purpose: it may carry options.
run_gpu() {
    np=$1
    shift
    [ -x "$prog" ] || hard_error "$prog was not built"
    # shellcheck disable=SC2086
    capture $MPIRUN -np "$np" "$prog" "$@"
    # The "skipped" line too: mpirun has been seen to lose a rank's exit
    # status given after MPI_Finalize (exit 0 where every rank exited 77).
    if [ "$rc" -eq 77 ] || grep -q "^$test_name: skipped" "$work/out"; then
        skip "$test_name: no usable GPU (see the reason above)"
    fi
    [ "$rc" -eq 0 ] || fail "$test_name $* on $np ranks: the job exited with status $rc, expected 0"
    grep -Eq "^$test_name: OK" "$work/out" || fail "$test_name $* on $np ranks: no \"$test_name: OK\" line"
}

# ---- the device benchmarks (gpu_bench.sh, gpu_nccl.sh) ----------------------
# skipped_if_no_gpu PROGRAM: exit 77 when PROGRAM found no GPU (its exit
# status, or its message, as mpirun may lose a status given after
# MPI_Finalize).
skipped_if_no_gpu() {
    if [ "$rc" -eq 77 ] || grep -Eq "skipped|--device: " "$work/err"; then
        skip "$1: no usable GPU"
    fi
}

# expect_rows WHAT ROWS: the captured run exited 0 and printed ROWS rows of
# numbers (and words: types, ops) whose last column (#wrong) is 0.
expect_rows() {
    [ "$rc" -eq 0 ] || fail "$1: the job exited with status $rc"
    got=$(grep -v '^#' "$work/out" | awk '
        { for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/ && $i !~ /^[a-z0-9]+$/) bad = 1
          if ($NF != 0) bad = 1 }
        END { print bad ? "bad" : NR }')
    [ "$got" != bad ] || fail "$1: a row is not numbers, or its #wrong column is not 0"
    [ "$got" -eq "$2" ] || fail "$1: $got rows, expected $2"
}

# bench NP ROWS PROGRAM ARGS...: exit 0 (77: skipped), ROWS rows of numbers
# whose last column (#wrong) is 0.
bench() {
    np=$1 rows=$2 program=$3
    shift 3
    # shellcheck disable=SC2086
    capture $MPIRUN -np "$np" "$bench_bindir/$program" "$@"
    skipped_if_no_gpu "$program"
    expect_rows "$program $*" "$rows"
}
