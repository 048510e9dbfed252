#!/bin/sh
# Signals to mpirun: SIGTERM and SIGINT end the job (every rank and the
# daemon gone when mpirun returns, and what the ranks started); SIGKILL of
# mpirun leaves nothing behind either (the daemon sees its link close and
# kills the ranks). Each rank leads a session of its own (the kernel's
# autogroup then gives it the CPU share of another job's process).
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$PMIX_CLIENT"

# start_job: mpirun with 4 sleeping ranks in the background; waits until
# all 4 ranks exist.
start_job() {
    "$MPIRUN" -np 4 "$PMIX_CLIENT" sleep 30 "$MARKER" >"$TMP/out" 2>"$TMP/err" </dev/null &
    pid=$!
    i=0
    while [ "$(pgrep -f "pmix_client sleep 30 $MARKER" | wc -l)" -lt 4 ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "ranks did not start"
        sleep 0.05
    done
}

for sig in TERM INT; do
    start_job
    kill -$sig $pid
    rc=0
    wait $pid || rc=$?
    [ "$rc" -ne 0 ] || fail "SIG$sig: mpirun exited 0"
    grep -q "received signal" "$TMP/err" || fail "SIG$sig: no message: $(cat "$TMP/err")"
    check_no_leftovers
done

# Session leaders, each with its own process group.
"$MPIRUN" -np 2 sh -c 'set -- $(ps -o sid=,pgid= -p $$); [ "$1" = $$ ] && [ "$2" = $$ ]' </dev/null ||
    fail "a rank does not lead a session and process group of its own"

# A rank's own child (in its session and group) ends with the job.
"$MPIRUN" -np 2 sh -c "sh -c 'sleep 30' $MARKER & wait" >"$TMP/out" 2>"$TMP/err" </dev/null &
pid=$!
i=0
while [ "$(pgrep -f "sleep 30 $MARKER" | wc -l)" -lt 2 ]; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "the ranks' children did not start"
    sleep 0.05
done
kill -TERM $pid
wait $pid 2>/dev/null
check_no_leftovers

start_job
daemon=$(pgrep -f "ompi-lite-daemon" -P $pid)
kill -KILL $pid
wait $pid 2>/dev/null
check_no_leftovers 30
# The daemon has no marker: wait for it by pid (a zombie waiting for its
# new parent to reap it counts as gone, and so does a pid that the whole
# suite's many processes have meanwhile given to another program: pid_max
# can be 32768). 10 s: under that load it took more than 3.
daemon_alive() {
    kill -0 "$daemon" 2>/dev/null &&
        [ "$(ps -o stat= -p "$daemon" | cut -c1)" != Z ] &&
        ps -o args= -p "$daemon" | grep -q ompi-lite-daemon
}
i=0
while [ -n "$daemon" ] && daemon_alive; do
    i=$((i + 1))
    [ $i -lt 100 ] || fail "the daemon survived mpirun's SIGKILL"
    sleep 0.1
done
echo "signals: ok"
