#!/bin/sh
# mpirun's stdin reaches rank 0 (pipe and regular file), the others read EOF.
. "${top_srcdir:-.}/test/launcher/common.sh"

seq 1 20000 >"$TMP/in"
rc=0
"$MPIRUN" -np 3 sh -c 'echo "$OMPI_LITE_RANK $(wc -l)"' "$MARKER" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 0 ] || fail "file stdin: status $rc: $(cat "$TMP/err")"
grep -qx "0 20000" "$TMP/out" || fail "rank 0 did not get the whole file: $(cat "$TMP/out")"
grep -qx "1 0" "$TMP/out" && grep -qx "2 0" "$TMP/out" || fail "other ranks got input: $(cat "$TMP/out")"

sum=$(cksum <"$TMP/in")
got=$(cat "$TMP/in" | "$MPIRUN" -np 2 sh -c 'if [ "$OMPI_LITE_RANK" = 0 ]; then cksum; fi' "$MARKER")
[ "$got" = "$sum" ] || fail "piped stdin: got '$got', expected '$sum'"
check_no_leftovers
echo "stdin: ok"
