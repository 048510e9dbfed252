#!/bin/sh
# Failures across hosts end the whole job within a second, with one line
# naming the rank, host and cause, a non-zero status, and nothing left on
# any host: a remote rank killed by a signal (also measured from the kill
# to mpirun's exit), MPI_Abort on a remote host, a remote daemon killed, a
# host whose network vanishes, --timeout, Ctrl-C, a host that cannot be reached.
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
need_helpers "$PMIX_CLIENT"

printf '%s slots=2\n%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" "$(h 2)" >"$TMP/hosts"
SLEEPERS="pmix_client sleep 30 $MARKER"

# expect_line STATUS REGEX: checks the finished background job.
expect_end() {
    want=$1 pattern=$2
    [ "$rc" -eq "$want" ] || fail "exit status $rc, expected $want: $(cat "$TMP/err")"
    [ "$(grep -c '^mpirun: ' "$TMP/err")" -eq 1 ] || fail "expected one mpirun line: $(cat "$TMP/err")"
    grep -Eq -- "$pattern" "$TMP/err" || fail "message does not match '$pattern': $(cat "$TMP/err")"
}

# finish_promptly: waits for the background mpirun and prints how long it
# took since $t0 (run alone, these times are the measurement: tens of ms).
# Tests do not assert on time, the machine may be loaded by other tests: the
# limit only catches a job that waited for its 30 s sleepers.
finish_promptly() {
    rc=0
    wait "$bg" || rc=$?
    took=$(($(now_ms) - t0))
    echo "  ended $took ms after the event"
    [ "$took" -le 15000 ] || fail "mpirun took $took ms: it waited for the ranks: $(cat "$TMP/err")"
}

rank_pid() { # RANK: pid of that rank of the sleeping job
    for p in $(pgrep -f "$SLEEPERS"); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_LITE_RANK=$1"; then
            echo "$p"
            return
        fi
    done
}

# 1. A rank on host 2 killed by SIGKILL: measured from the kill.
mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$PMIX_CLIENT" sleep 30 "$MARKER"
wait_for_procs 6 "$SLEEPERS"
sleep 0.3
t0=$(now_ms)
kill -KILL "$(rank_pid 5)"
finish_promptly
echo "rank killed -> mpirun exited: $took ms"
expect_end 137 "^mpirun: rank 5 \(pid [0-9]+ on host $(h 2)\) was killed by signal 9 \(Killed\)$"
check_hosts_empty

# 2. MPI_Abort(7) on host 1.
t0=$(now_ms)
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$PMIX_CLIENT" abort 7 3 "$MARKER"
took=$(($(now_ms) - t0))
[ "$took" -le 15000 ] || fail "abort: took $took ms: it waited for the ranks"
expect_end 7 "^mpirun: rank 3 \(pid [0-9]+ on host $(h 1)\) called MPI_Abort with code 7$"
check_hosts_empty

# 3. A rank on host 2 exits without finalizing.
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$PMIX_CLIENT" nofinalize 4 "$MARKER"
expect_end 1 "^mpirun: rank 4 \(pid [0-9]+ on host $(h 2)\) exited without calling MPI_Finalize$"
check_hosts_empty

# 4. The daemon of host 1 is killed.
mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$PMIX_CLIENT" sleep 30 "$MARKER"
wait_for_procs 6 "$SLEEPERS"
t0=$(now_ms)
kill -KILL $(ip netns pids "$(h 1)" | while read -r p; do
    case $(cat "/proc/$p/cmdline" 2>/dev/null | tr '\0' ' ') in *ompi-lite-daemon*) echo "$p" ;; esac
done)
finish_promptly
echo "daemon killed -> mpirun exited: $took ms"
expect_end 1 "^mpirun: the ompi-lite daemon on host $(h 1) exited unexpectedly$"
check_hosts_empty 20

# 5. Host 2 vanishes from the network (its link goes down).
mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$PMIX_CLIENT" sleep 30 "$MARKER"
wait_for_procs 6 "$SLEEPERS"
sleep 0.3
t0=$(now_ms)
ip -n "$NSP-sw" link set p2 down
finish_promptly
echo "host lost -> mpirun exited: $took ms"
expect_end 1 "^mpirun: the ompi-lite daemon on host $(h 2) stopped answering .*the host or its network is gone$"
ip -n "$NSP-sw" link set p2 up
check_hosts_empty 30

# 6. --timeout names the ranks still running and where.
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 5 --timeout 1 "$PMIX_CLIENT" sleep 30 "$MARKER"
expect_end 124 "^mpirun: the job did not finish within 1 s \(--timeout\); still running: 0-1 on host $(h 0); 2-3 on host $(h 1); 4 on host $(h 2)$"
check_hosts_empty

# 7. SIGINT (Ctrl-C) and SIGTERM to mpirun.
for sig in INT:130 TERM:143; do
    want=${sig#*:} sig=${sig%:*}
    mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$PMIX_CLIENT" sleep 30 "$MARKER"
    wait_for_procs 6 "$SLEEPERS"
    t0=$(now_ms)
    pkill -"$sig" -f "^$MPIRUN --launch-agent $AGENT -hostfile $TMP/hosts"
    finish_promptly
    expect_end "$want" "^mpirun: received signal"
    check_hosts_empty
done

# 8. A host the agent cannot reach: the message names it and the agent's error.
printf '%s slots=1\nnosuchhost%s slots=1\n' "$(h 0)" "$$" >"$TMP/hosts.bad"
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts.bad" -np 2 "$PMIX_CLIENT" sleep 30 "$MARKER"
expect_end 1 "^mpirun: cannot start the ompi-lite daemon on host nosuchhost$$ with '$AGENT': .*nosuchhost$$"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "unreachable host: more than one line: $(cat "$TMP/err")"
check_hosts_empty
echo "netns_failures: ok"
