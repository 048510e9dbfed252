#!/bin/sh
# Builds ompi-lite with AddressSanitizer and UndefinedBehaviorSanitizer and
# runs the multi-rank tests (test/mpi) and the unit tests under them: a
# heap over-read, a use after free, undefined behaviour or a leak of the
# library's own memory in any rank fails the test that ran it. Too slow for
# the test command (about 30 minutes on 2 cores); run it before a release:
#
#     sh contrib/sanitize.sh            # every test of test/mpi and test/unit
#     sh contrib/sanitize.sh test/mpi/coll_move.sh test/mpi/ring.sh
#
# The build lives in _sanitize/ (a copy of the working tree's files, as an
# automake tree cannot be configured twice), so the normal build is left
# alone. Leak reports from the dependencies' own allocations (UCX, PMIx,
# hwloc, libevent: memory they keep for the life of the process) are
# suppressed by contrib/sanitize.supp, each entry with its reason; nothing
# of ompi-lite's is. The last line is "N passed, N failed" like the test
# command's; the failed tests' logs hold the sanitizer's report.
#
# Environment: JOBS (default 2).
set -eu
cd "$(dirname "$0")/.."
top=$PWD
work=$top/_sanitize
jobs=${JOBS:-2}

sh contrib/install-deps.sh

# The working tree's files (tracked, and new ones not ignored), copied over
# the previous copy so that make rebuilds only what changed.
mkdir -p "$work/src"
git ls-files -z --cached --others --exclude-standard |
    (cd "$top" && xargs -0 cp -p --parents -t "$work/src")

cd "$work/src"
flags="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    autoreconf -fi >/dev/null
fi
if [ ! -f config.status ] || [ configure -nt config.status ]; then
    ./configure --prefix="$work/install" --enable-silent-rules \
        CFLAGS="$flags" CXXFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" >/dev/null
fi
make -j"$jobs" >/dev/null

# UCX's memory hooks patch malloc and mmap, which AddressSanitizer owns.
export UCX_MEM_MALLOC_HOOKS=no UCX_MEM_MMAP_HOOK_MODE=none UCX_MEM_EVENTS=no
# verify_asan_link_order=0: some tests preload a shim (late_signal.c,
# deny_cma.c) ahead of the sanitizer's runtime, which is harmless here.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:verify_asan_link_order=0"
# The sanitizers slow the ranks several times: the per-test limit grows.
export TEST_TIMEOUT="${TEST_TIMEOUT:-600}"
export LSAN_OPTIONS="suppressions=$top/contrib/sanitize.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

if [ "$#" -gt 0 ]; then
    tests=$*
else
    tests=$(cd "$top" && ls test/mpi/*.sh | grep -v '/common\.sh$' | tr '\n' ' ')
    tests="$tests test/unit/dt_engine test/unit/progress_wait"
fi
find . -name '*.trs' -exec rm -f {} +
# shellcheck disable=SC2086 # a list of test names
make -j"$jobs" -k check TESTS="$tests" >/dev/null 2>&1 || true

passed=0 failed=0
for t in $tests; do
    trs=${t%.sh}.trs
    [ -f "$trs" ] || trs=$t.trs
    if grep -q '^:test-result: \(PASS\|SKIP\|XFAIL\)' "$trs" 2>/dev/null &&
        ! grep -q '^:test-result: \(FAIL\|ERROR\|XPASS\)' "$trs"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        printf '\n--- FAILED: %s (%s)\n' "$t" "$work/src/${trs%.trs}.log"
        grep -E 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error|SUMMARY' \
            "${trs%.trs}.log" 2>/dev/null | head -n 5 || true
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
