#!/bin/sh
# Bad command lines: one clear line on stderr, non-zero status, nothing run.
. "${top_srcdir:-.}/test/launcher/common.sh"

touch "$TMP/not-executable"
# expect_refusal REGEX ARGS...
expect_refusal() {
    pattern=$1
    shift
    run_mpirun "$TMP/out" "$TMP/err" "$@"
    [ "$rc" -ne 0 ] || fail "mpirun $*: exit status 0"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "mpirun $*: expected one line on stderr, got: $(cat "$TMP/err")"
    grep -Eq -- "$pattern" "$TMP/err" || fail "mpirun $*: message does not match '$pattern': $(cat "$TMP/err")"
    [ -s "$TMP/out" ] && fail "mpirun $*: something ran: $(cat "$TMP/out")"
    check_no_leftovers
}

expect_refusal "unknown option '--bogus'" --bogus -np 2 echo "$MARKER"
expect_refusal "-np .*'0'" -np 0 echo "$MARKER"
expect_refusal "-np .*'-1'" -np -1 echo "$MARKER"
expect_refusal "-np .*'two'" -np two echo "$MARKER"
expect_refusal "needs a value" -np
expect_refusal "no program" -np 2
expect_refusal "'no-such-program-$MARKER'.*not found" -np 2 "no-such-program-$MARKER"
expect_refusal "does not exist" -np 2 "$TMP/missing" "$MARKER"
expect_refusal "not executable" -np 2 "$TMP/not-executable" "$MARKER"
expect_refusal "directory" -np 2 "$TMP" "$MARKER"

"$MPIRUN" --help | grep -q "Usage: mpirun" || fail "--help prints no usage"
"$MPIRUN" --version | grep -q "ompi-lite" || fail "--version does not name ompi-lite"
echo "bad_input: ok"
