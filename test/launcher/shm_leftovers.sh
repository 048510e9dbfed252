#!/bin/sh
# A rank killed while a file it made in /dev/shm is still linked (rank 0
# inside the first shared-memory barrier, after its peer died) leaves
# nothing there: the daemon removes a reaped rank's files. The job ends
# with mpirun naming the rank killed by SIGKILL.
. "${top_srcdir:-.}/test/launcher/common.sh"
LEFTOVER="$HELPERS/shm_leftover"
need_helpers "$LEFTOVER"
if "$MPIRUN" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then
    echo "skip: the files and the daemon are ompi-lite's"
    exit 77
fi

run_mpirun "$TMP/out" "$TMP/err" --timeout 30 -np 2 "$LEFTOVER" "$MARKER"
[ "$rc" -eq 137 ] || fail "exit status $rc, expected 137; stderr: $(cat "$TMP/err")"
grep -Eq '^mpirun: rank 1 .*killed by signal 9' "$TMP/err" ||
    fail "mpirun did not name rank 1's SIGKILL: $(cat "$TMP/err")"
pid=$(sed -n 's/^rank 0 pid \([0-9]*\)$/\1/p' "$TMP/out")
[ -n "$pid" ] || fail "rank 0 did not print its pid: $(cat "$TMP/out")"
# Else the test proves nothing: the file was never there to leave.
grep -q "^rank 1 saw ompi-lite-.*-$pid-" "$TMP/out" ||
    fail "rank 1 never saw rank 0's segment in /dev/shm: $(cat "$TMP/out")"
left=$(ls /dev/shm | grep -- "^ompi-lite-.*-$pid-" || true)
[ -z "$left" ] || fail "left in /dev/shm after the job: $left"
check_no_leftovers
echo "shm_leftovers: ok"
