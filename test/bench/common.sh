# Sourced by the test/bench/*.sh tests; not a test itself.
#
# Each test runs the benchmark of the same name ($prog, built by make under
# test/bench/) briefly through $MPIRUN with -c, so that a benchmark that
# breaks, or data that arrives wrong, fails the suite. Times go to the log;
# no test asserts on them. Exit 1: a failed check; 99: a broken set-up.
set -u

fail() {
    printf 'FAIL: %s\n' "$*" >&2
    exit 1
}

[ -n "${top_builddir:-}" ] || { echo "ERROR: top_builddir is not set: run me with make check" >&2; exit 99; }
[ -n "${MPIRUN:-}" ] || { echo "ERROR: MPIRUN is not set: run me with make check" >&2; exit 99; }
prog=$top_builddir/test/bench/$(basename "$0" .sh)
[ -x "$prog" ] || { echo "ERROR: $prog was not built" >&2; exit 99; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ol-test-bench.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

# bench NP ROWS ARGS...: runs $prog -c ARGS on NP ranks; it must exit 0 and
# print ROWS rows of numbers whose last column (#wrong) is 0. $MPIRUN is left
# unquoted on purpose: it may carry options.
bench() {
    np=$1 rows=$2
    shift 2
    echo "+ $MPIRUN -np $np $prog -c $*"
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$prog" -c "$@" >"$work/out" 2>"$work/err"
    rc=$?
    sed 's/^/  out: /' "$work/out"
    sed 's/^/  err: /' "$work/err"
    [ "$rc" -eq 0 ] || fail "the job exited with status $rc, expected 0"
    got=$(grep -v '^#' "$work/out" | awk 'NF < 5 { bad = 1 }
        { for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) bad = 1
          if ($NF != 0) bad = 1 }
        END { print bad ? "bad" : NR }')
    [ "$got" != bad ] || fail "a row is not numbers, or its #wrong column is not 0"
    [ "$got" -eq "$rows" ] || fail "$got rows of results, expected $rows"
}
