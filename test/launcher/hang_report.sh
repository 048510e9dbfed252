#!/bin/sh
# State reports besides --timeout, on 4 ranks over two hosts (network
# namespaces): mpirun --report-state PID and SIGUSR1 print a report while
# the job goes on (and ends normally); after a rank dies the report names
# it and what the others wait for; --get-stack-traces adds each rank's
# stack (gdb), or says why there is none where gdb is missing.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
HANG="$HELPERS/hang"
need_helpers "$HANG"

printf '%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"
T='[0-9]+\.[0-9] s'

expect() {
    grep -Eq -- "$1" "$TMP/err" || fail "no line matches '$1':
$(cat "$TMP/err")"
}

# The pid of the background job's mpirun (not of the agent around it).
mpirun_pid() {
    exe=$(readlink -f "$MPIRUN")
    i=0
    while [ $i -lt 100 ]; do
        for p in $(pgrep -f "$MARKER"); do
            [ "$(readlink "/proc/$p/exe")" = "$exe" ] && { echo "$p"; return; }
        done
        i=$((i + 1))
        sleep 0.05
    done
}

# 1. A running job: --report-state PID, then SIGUSR1; the job goes on.
mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$HANG" run 300 "$MARKER"
pid=$(mpirun_pid)
[ -n "$pid" ] || fail "the job's mpirun did not start"
wait_for_procs 4 "hang run 300 $MARKER"
sleep 1
"$MPIRUN" --report-state "$pid" >"$TMP/ask" || fail "--report-state $pid: $(cat "$TMP/ask")"
grep -q "^mpirun: asked mpirun $pid for a state report" "$TMP/ask" || fail "--report-state said: $(cat "$TMP/ask")"
sleep 1
kill -USR1 "$pid"
rc=0
wait "$bg" || rc=$?
[ "$rc" -eq 0 ] || fail "the job did not go on after the reports: status $rc: $(cat "$TMP/err")"
[ "$(grep -c '^after the report: the job goes on$' "$TMP/err")" -eq 2 ] || fail "expected two reports: $(cat "$TMP/err")"
expect "^  (rank|ranks) [0-9,-]+ \(($(h 0)|$(h 1)).*\): (MPI_Barrier #[0-9]+ on MPI_COMM_WORLD|in user code \(outside MPI\); last MPI call MPI_Barrier #[0-9]+ on MPI_COMM_WORLD) for $T"
check_hosts_empty

# 2. Rank 2 dies while the others receive from it: the report names it.
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$HANG" die "$MARKER"
[ "$rc" -eq 137 ] || fail "die: status $rc, expected 137: $(cat "$TMP/err")"
expect "^  ranks 0-1,3 \($(h 0), $(h 1)\): MPI_Recv\(source=2, tag=7, MPI_COMM_WORLD, 1 int\) for $T; rank 2 has no matching send pending \(it is dead: it was killed by signal 9 \(Killed\); last MPI call MPI_Barrier #1 on MPI_COMM_WORLD\)$"
expect "^  rank 2 \($(h 1), pid [0-9]+\): is dead: it was killed by signal 9 \(Killed\); last MPI call MPI_Barrier #1 on MPI_COMM_WORLD$"
expect "^mpirun: rank 2 \(pid [0-9]+ on host $(h 1)\) was killed by signal 9 \(Killed\)$"
[ "$(grep -c '^mpirun: ' "$TMP/err")" -eq 1 ] || fail "die: expected one mpirun line: $(cat "$TMP/err")"
check_hosts_empty

# 3. --get-stack-traces with --timeout: every rank's stack, from gdb.
if command -v gdb >/dev/null; then
    mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 --timeout 2 --get-stack-traces \
        "$HANG" nosend "$MARKER"
    [ "$rc" -eq 124 ] || fail "stacks: status $rc: $(cat "$TMP/err")"
    for r in 0 1 2 3; do
        expect "^  stack of rank $r \($(h $((r / 2))), pid [0-9]+\):$"
    done
    expect "^    #[0-9]+ .* in (PMPI_|MPI_)Recv "
    expect "^    #[0-9]+ .* in (PMPI_|MPI_)Barrier "
    check_hosts_empty
else
    echo "gdb is not installed: the stacks are not checked (the note is, below)"
fi

# 4. Where gdb is missing, a clear note (one host; the daemon's PATH has no gdb).
rc=0
env PATH=/nonexistent "$MPIRUN" -np 4 --timeout 2 --get-stack-traces "$HANG" nosend "$MARKER" \
    >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
[ "$rc" -eq 124 ] || fail "no gdb: status $rc: $(cat "$TMP/err")"
expect "^    no stack: gdb is not installed on host "
check_no_leftovers
exit 0
