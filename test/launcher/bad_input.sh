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

printf 'localhost slots=2\n# fine\nnode2 slots=two\n' >"$TMP/bad-hosts"
printf 'node1:2\nnode2 sockets=2\n' >"$TMP/bad-hosts2"
expect_refusal "cannot read hostfile '$TMP/no-hosts': No such file or directory" -hostfile "$TMP/no-hosts" -np 2 echo "$MARKER"
chmod 000 "$TMP/bad-hosts" 2>/dev/null
if [ "$(id -u)" != 0 ]; then
    expect_refusal "cannot read hostfile '$TMP/bad-hosts'" -hostfile "$TMP/bad-hosts" -np 2 echo "$MARKER"
fi
chmod 644 "$TMP/bad-hosts"
expect_refusal "^mpirun: $TMP/bad-hosts:3: bad number 'two'" --hostfile "$TMP/bad-hosts" -np 2 echo "$MARKER"
expect_refusal "^mpirun: $TMP/bad-hosts2:2: unknown key 'sockets'" -f "$TMP/bad-hosts2" -np 2 echo "$MARKER"
# A NUL byte, an unknown key, a 10 MB line: one short line naming file:line.
printf 'localhost\0junk slots=9\n' >"$TMP/nul-hosts"
printf '# hosts\nlocalhost foo=bar\n' >"$TMP/key-hosts"
{ echo "localhost slots=1"; head -c 10000000 /dev/zero | tr '\0' a; echo; } >"$TMP/long-hosts"
expect_refusal "^mpirun: $TMP/nul-hosts:1: NUL byte" -hostfile "$TMP/nul-hosts" -np 1 echo "$MARKER"
expect_refusal "^mpirun: $TMP/key-hosts:2: unknown key 'foo'" -hostfile "$TMP/key-hosts" -np 1 echo "$MARKER"
expect_refusal "^mpirun: $TMP/long-hosts:2: line too long" -hostfile "$TMP/long-hosts" -np 1 echo "$MARKER"
[ "$(wc -c <"$TMP/err")" -lt 200 ] || fail "10 MB hostfile line: the message is $(wc -c <"$TMP/err") bytes long"
# Beyond the process limit: the message names it.
expect_refusal "^mpirun: -np 99999999 is above the limit of 16777216 processes" -np 99999999 echo "$MARKER"
expect_refusal "above the limit of 16777216 processes" -np 99999999999999999999999 echo "$MARKER"
expect_refusal "^mpirun: 16777217 processes in all are above the limit of 16777216" \
    -np 16777216 echo "$MARKER" : -np 1 echo "$MARKER"
expect_refusal "bad --host entry 'a:b'" --host a:b -np 2 echo "$MARKER"
expect_refusal "--map-by takes" --map-by diagonal -np 2 echo "$MARKER"
expect_refusal "--bind-to takes" --bind-to thread7 -np 2 echo "$MARKER"
expect_refusal "-x needs NAME" -x 1A=2 -np 2 echo "$MARKER"
expect_refusal "--timeout needs" --timeout -3 -np 2 echo "$MARKER"
MPIEXEC_TIMEOUT=soon expect_refusal "MPIEXEC_TIMEOUT must be a number of seconds, not 'soon'" \
    -np 2 echo "$MARKER"
# Slots are enforced unless oversubscription is asked for (the harness asks
# for it, with OMPI_LITE_OVERSUBSCRIBE=1, for the tests that run 8 ranks).
OMPI_LITE_OVERSUBSCRIBE=0
expect_refusal "5 processes requested, but only 2 slots are available .*--oversubscribe \(or OMPI_LITE_OVERSUBSCRIBE=1" \
    -H "$(hostname):2" -np 5 echo "$MARKER"
cores=$(nproc)
expect_refusal "$((cores + 1)) processes requested, but only $cores slots are available" -np "$((cores + 1))" echo "$MARKER"
OMPI_LITE_OVERSUBSCRIBE=1
# A host that cannot be reached: the line names it and what the agent said.
if command -v ssh >/dev/null; then
    expect_refusal "^mpirun: cannot start the ompi-lite daemon on host no-such-host-$$.invalid with 'ssh': .*no-such-host-$$.invalid" \
        -H "no-such-host-$$.invalid" -np 1 echo "$MARKER"
fi
expect_refusal "cannot start the ompi-lite daemon on host elsewhere with '/bin/false'" \
    --launch-agent /bin/false -H elsewhere -np 1 echo "$MARKER"

"$MPIRUN" --help | grep -q "Usage: mpirun" || fail "--help prints no usage"
"$MPIRUN" --version | grep -q "ompi-lite" || fail "--version does not name ompi-lite"
echo "bad_input: ok"
