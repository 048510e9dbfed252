# Sourced by the common.sh of test/mpi and test/gpu; not a test itself.
#
# What every multi-rank test script shares: failing (exit 1) and a broken
# set-up (exit 99, which the harness reports as ERROR), the variables make
# check sets, a scratch directory removed on exit, capture (runs a command,
# keeps its output for the checks and copies it to the log) and the checks
# of a captured run (expect_*).
set -u

fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}

hard_error() {
    printf 'ERROR: %s\n' "$*" >&2
    exit 99
}

[ -n "${top_builddir:-}" ] || hard_error "top_builddir is not set: run me with make check"
[ -n "${MPIRUN:-}" ] || hard_error "MPIRUN is not set: run me with make check"

work=$(mktemp -d "${TMPDIR:-/tmp}/ol-test-$(basename "$(dirname "$0")").XXXXXX") || hard_error "mktemp failed"
trap 'rm -rf "$work"' EXIT
# The harness's timeout sends TERM: exit, so that the EXIT trap cleans up.
trap 'exit 1' HUP INT TERM

# capture CMD...: runs CMD, leaving its exit status in $rc and its stdout and
# stderr in $work/out and $work/err, and shows all three in the log.
capture() {
    echo "+ $*"
    "$@" >"$work/out" 2>"$work/err"
    rc=$?
    sed 's/^/  out: /' "$work/out"
    sed 's/^/  err: /' "$work/err"
    echo "  exit status $rc"
}

# A job that succeeds leaves UCX nothing to warn of either (a message left
# unexpected, a request never completed when MPI_Finalize destroys its
# worker).
expect_success() {
    [ "$rc" -eq 0 ] || fail "the job exited with status $rc, expected 0"
    ! grep -Eq 'UCX +(WARN|ERROR)' "$work/out" "$work/err" ||
        fail "the job succeeded, but UCX warned: $(grep -Eh 'UCX +(WARN|ERROR)' "$work/out" "$work/err" | head -n 1)"
}

expect_failure() {
    [ "$rc" -ne 0 ] || fail "the job exited with status 0, expected a failure"
}

expect_status() {
    [ "$rc" -eq "$1" ] || fail "the job exited with status $rc, expected $1"
}

# expect_out REGEX / expect_err REGEX: a line of stdout / stderr matches the
# extended regular expression REGEX.
expect_out() {
    grep -Eq -- "$1" "$work/out" || fail "no line of stdout matches /$1/"
}

expect_err() {
    grep -Eq -- "$1" "$work/err" || fail "no line of stderr matches /$1/"
}

# expect_err_line REGEX1 REGEX2: one line of stderr matches both.
expect_err_line() {
    grep -E -- "$1" "$work/err" | grep -Eq -- "$2" ||
        fail "no line of stderr matches both /$1/ and /$2/"
}

# expect_no_output REGEX: no line of stdout or stderr matches REGEX.
expect_no_output() {
    ! grep -Eq -- "$1" "$work/out" "$work/err" ||
        fail "a line of the output matches /$1/"
}

# expect_no_survivors TAG: no process with TAG in its command line is left
# once mpirun has returned. Waits up to 2 s for processes that are already
# dying to be reaped, and kills (by PID) any left so that they do not outlive
# the test.
expect_no_survivors() {
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        pids=$(pgrep -d , -f -- "$1") || return 0
        sleep 0.2
    done
    ps -o pid,ppid,stat,args -p "$pids"
    # shellcheck disable=SC2046 # one PID per word
    kill -9 $(echo "$pids" | tr , ' ')
    fail "processes of the job outlived mpirun: $pids"
}

# Open MPI's mpirun reports failures in its own words; the tests that read
# mpirun's messages adapt their patterns when they run against it.
is_open_mpi() {
    # shellcheck disable=SC2086
    $MPIRUN --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'
}
