#!/bin/sh
# The test command of ompi-lite, run by people (see README.md) and by CI:
# installs the dependencies, builds, installs under _install/, runs the test
# suite (make check) and prints a summary: each failed test with the end of
# its log, then, as the very last line, "N passed, N failed, N skipped".
# Exits 0 if and only if everything built and no test failed. A failed build
# counts as one failure ("0 passed, 1 failed").
#
# Environment: JOBS (default 2), the parallelism of make and of the tests.
# POSIX sh: CI runs it as `sh test/run-tests.sh`.
set -u
cd "$(dirname "$0")/.." || exit 1

jobs=${JOBS:-2}
tail_lines=30

step() {
    printf '\n=== %s\n' "$*"
}

build_failed() {
    printf '\nbuild failed: %s\n' "$*"
    echo "0 passed, 1 failed"
    exit 1
}

# contrib/build.sh installs the dependencies, configures when needed, builds
# and installs under _install/ (the installed tools have tests of their own).
build() {
    step contrib/build.sh
    sh contrib/build.sh || build_failed "contrib/build.sh"
}

# The .trs files of automake's harness, one per test, outside .git and the
# install tree.
trs_files() {
    find . \( -path ./.git -o -path ./_install \) -prune -o -name '*.trs' -print |
        sed 's|^\./||' | sort
}

# Counts the ":test-result:" lines of every .trs file and lists the failed
# tests with the end of their logs, then prints the final line. $1 is the exit
# status of make check: non-zero with no failed test means that something
# other than a test failed (a test program did not build), which counts as
# one failure. Paths have no spaces (automake's harness needs that too).
summarize() {
    check_rc=$1 passed=0 failed=0 skipped=0 failed_tests=
    for trs in $(trs_files); do
        failed_before=$failed
        # shellcheck disable=SC2013 # results are single words
        for result in $(sed -n 's/^:test-result: *//p' "$trs"); do
            case $result in
            PASS | XFAIL) passed=$((passed + 1)) ;;
            SKIP) skipped=$((skipped + 1)) ;;
            *) failed=$((failed + 1)) ;;
            esac
        done
        [ "$failed" -eq "$failed_before" ] || failed_tests="$failed_tests ${trs%.trs}"
    done

    step summary
    for t in $failed_tests; do
        printf '\n--- FAILED: %s (last %d lines of %s.log)\n' "$t" "$tail_lines" "$t"
        tail -n "$tail_lines" "$t.log" 2>/dev/null || echo "(no log)"
    done
    if [ -n "$failed_tests" ]; then
        printf '\nfailed tests:\n'
        # shellcheck disable=SC2086 # one test a line
        printf '  %s\n' $failed_tests
    fi
    if [ "$check_rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
        printf '\nmake check failed outside the tests (a test program did not build?)\n'
        failed=1
    fi
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}

main() {
    build
    # Results of an earlier run must not be counted again.
    trs_files | xargs -r rm -f
    step make -j"$jobs" -k check
    make -j"$jobs" -k check
    check_rc=$?
    summarize "$check_rc"
}

main
