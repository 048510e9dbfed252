#!/bin/sh
# run-gpu-suite.sh's checks before it runs anything, on a tree laid out like
# the one carried to a GPU machine (_install, _carry) with programs built
# here. With no usable GPU or driver (OMPI_LITE_CUDA_LIBRARY names no file)
# it must exit 3 and say so in its first lines. Against a C library older
# than the carried files need (SUITE_GLIBC, a made-up version for this
# machine) it must exit 2 naming each such file, the version it needs and the
# one here; 2.9 is older than 2.34 although a string comparison says
# otherwise. A version the files need, exactly, passes.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

command -v objdump >/dev/null || command -v readelf >/dev/null || {
    echo "SKIP: no objdump or readelf to read the versions files need"
    exit 77
}

tree=$work/tree
mkdir -p "$tree/test/gpu" "$tree/_install/bin" "$tree/_install/lib" "$tree/_install/libexec" \
    "$tree/_carry/lib" "$tree/_carry/tests"
cp "$top_srcdir/test/gpu/run-gpu-suite.sh" "$tree/test/gpu/"
# The libtool-built programs' real files are under .libs.
for f in launcher/mpirun launcher/ompi-lite-daemon test/bench/devcopy_bw \
    test/bench/.libs/coll_perf test/gpu/gpu_p2p .libs/libmpi_abi.so.1; do
    [ -f "$top_builddir/$f" ] || hard_error "$top_builddir/$f was not built"
done
cp "$top_builddir/launcher/mpirun" "$top_builddir/test/bench/devcopy_bw" \
    "$top_builddir/test/bench/.libs/coll_perf" "$tree/_install/bin/"
cp "$top_builddir/launcher/ompi-lite-daemon" "$tree/_install/libexec/"
cp -L "$top_builddir/.libs/libmpi_abi.so.1" "$tree/_install/lib/"
cp "$top_builddir/test/gpu/gpu_p2p" "$tree/_carry/tests/"

# suite VAR=VALUE...: runs the suite with those variables; its stdout and
# stderr together, in order, in $work/all; its exit status in $rc.
suite() {
    echo "+ $* run-gpu-suite.sh"
    env OMPI_LITE_CUDA_LIBRARY="$work/no-such-libcuda.so.1" SUITE_SECONDS=60 "$@" \
        sh "$tree/test/gpu/run-gpu-suite.sh" >"$work/all" 2>&1
    rc=$?
    sed 's/^/  /' "$work/all"
    echo "  exit status $rc"
}

# first_lines REGEX: one of the first 4 lines matches.
first_lines() {
    head -n 4 "$work/all" | grep -Eq -- "$1" || fail "none of the first 4 lines matches /$1/"
}

suite SUITE_GLIBC=99.0
[ "$rc" -eq 3 ] || fail "no GPU: expected exit status 3, got $rc"
first_lines '^run-gpu-suite: no usable GPU or CUDA driver here \(.*no CUDA driver.*\); nothing run$'
first_lines '^# glibc 99\.0 here; the carried files need [0-9.]+ at most \(_install/.*\)$'
newest=$(sed -n 's/^# glibc 99\.0 here; the carried files need \([0-9.]*\) at most .*/\1/p' "$work/all")

suite SUITE_GLIBC=2.9
[ "$rc" -eq 2 ] || fail "glibc 2.9: expected exit status 2, got $rc"
first_lines "^run-gpu-suite: _install/bin/mpirun needs glibc [0-9.]+ \(GLIBC_[0-9.]+\); this machine has 2\.9$"
grep -q "^run-gpu-suite: _carry/tests/gpu_p2p needs glibc" "$work/all" || fail "gpu_p2p not named"
grep -Eq "^run-gpu-suite: the C library here \(2\.9\) is older than the carried files need \($newest\).*nothing run$" \
    "$work/all" || fail "no closing line naming glibc 2.9 and $newest"
! grep -q 'no usable GPU' "$work/all" || fail "the GPU was probed with a C library too old"

suite SUITE_GLIBC="$newest"
[ "$rc" -eq 3 ] || fail "glibc $newest, what the files need: expected to pass to the GPU check (3), got $rc"
! grep -q 'needs glibc' "$work/all" || fail "glibc $newest is what the files need, yet a file was named"
