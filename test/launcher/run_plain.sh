#!/bin/sh
# Non-MPI programs: every rank runs, every output line arrives whole on the
# right stream, the last output before exit is not lost, exit status 0.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$IO_WRITER"

for n in 1 2 3 8; do
    run_mpirun "$TMP/out" "$TMP/err" -np $n sh -c 'echo "out $OMPI_LITE_RANK"; echo "err $OMPI_LITE_RANK" >&2' "$MARKER"
    [ "$rc" -eq 0 ] || fail "-np $n sh: exit status $rc, stderr: $(cat "$TMP/err")"
    [ "$(grep -c '^out [0-9]*$' "$TMP/out")" -eq $n ] || fail "-np $n: expected $n stdout lines, got: $(cat "$TMP/out")"
    [ "$(grep -c '^err [0-9]*$' "$TMP/err")" -eq $n ] || fail "-np $n: expected $n stderr lines, got: $(cat "$TMP/err")"
    for r in $(seq 0 $((n - 1))); do
        grep -qx "out $r" "$TMP/out" || fail "-np $n: no output from rank $r"
    done
done

# Lines written in two pieces by 8 ranks at once stay whole; the last line
# (no newline, written just before exit) arrives too.
lines=500
run_mpirun "$TMP/out" "$TMP/err" -np 8 "$IO_WRITER" $lines 100 tail "$MARKER"
[ "$rc" -eq 0 ] || fail "io_writer: exit status $rc"
bad=$(grep -cvE '^out r[0-7] l[0-9]+ x{100}$' "$TMP/out")
[ "$bad" -eq 0 ] || fail "io_writer: $bad stdout lines are broken or mixed: $(grep -vE '^out r[0-7] l[0-9]+ x{100}$' "$TMP/out" | head -3)"
bad=$(grep -cvE '^err r[0-7] l[0-9]+ x{100}$' "$TMP/err")
[ "$bad" -eq 0 ] || fail "io_writer: $bad stderr lines are broken or mixed"
[ "$(grep -c . "$TMP/out")" -eq $((8 * lines)) ] || fail "io_writer: expected $((8 * lines)) stdout lines, got $(grep -c . "$TMP/out")"
[ "$(grep -c . "$TMP/err")" -eq $((8 * lines)) ] || fail "io_writer: expected $((8 * lines)) stderr lines"
for r in 0 1 2 3 4 5 6 7; do
    grep -q "^out r$r l$((lines - 1)) " "$TMP/out" || fail "io_writer: last line of rank $r lost"
done

# A plain program, and mpiexec spellings of the options.
run_mpirun "$TMP/out" "$TMP/err" -n 2 --oversubscribe --allow-run-as-root hostname
[ "$rc" -eq 0 ] || fail "hostname: exit status $rc: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "hostname: expected 2 lines"

# Without -np: one rank per core, at least one.
run_mpirun "$TMP/out" "$TMP/err" echo x
[ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -ge 1 ] || fail "default -np: status $rc"

# Nobody reads mpirun's stdout any more (`| head`, or stdout closed): the
# job ends, mpirun says why and exits 141 (128+SIGPIPE), as a pipeline's
# writer killed by SIGPIPE would; no rank is left writing.
for how in pipe closed; do
    if [ "$how" = pipe ]; then
        { timeout 60 "$MPIRUN" -np 2 yes "$MARKER" 2>"$TMP/err" </dev/null; echo $? >"$TMP/rc"; } | head -c 1000 >/dev/null
    else
        { timeout 60 "$MPIRUN" -np 2 yes "$MARKER" 2>"$TMP/err" </dev/null >&-; echo $? >"$TMP/rc"; }
    fi
    rc=$(cat "$TMP/rc")
    [ "$rc" -eq 141 ] || fail "stdout $how: exit status $rc, expected 141; stderr: $(cat "$TMP/err")"
    grep -q "^mpirun: cannot write the ranks' output to its standard output (Broken pipe)" "$TMP/err" ||
        fail "stdout $how: no message: $(cat "$TMP/err")"
    check_no_leftovers
done

check_no_leftovers
echo "run_plain: ok"
