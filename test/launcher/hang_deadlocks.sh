#!/bin/sh
# Deliberate deadlocks on 4 ranks over two hosts (network namespaces): the
# job ends with --timeout's status after a state report whose lines name the
# right ranks, hosts, calls and peers: a receive nobody sends (blocking, and
# nonblocking with MPI_Wait: the pending request), a rank that skips a
# collective (in user code, with its last MPI call), mismatched tags, a
# rank polling MPI_Testall (one wait, not millions of calls).
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
HANG="$HELPERS/hang"
need_helpers "$HANG"

printf '%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"
T='[0-9]+\.[0-9] s'   # a duration in the report

# hang MODE: runs the deadlock with --timeout 2; expects status 124 and the
# timeout line after the report.
hang() {
    mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 --timeout 2 "$HANG" "$1" "$MARKER"
    [ "$rc" -eq 124 ] || fail "$1: status $rc, expected 124: $(cat "$TMP/err")"
    expect "^ompi-lite state report \(4 ranks, $T after the start\):$"
    expect "^after the report: the job is ended, as the next line says$"
    expect "^mpirun: the job did not finish within 2 s \(--timeout\); still running: 0-1 on host $(h 0); 2-3 on host $(h 1)$"
    [ "$(grep -c '^mpirun: ' "$TMP/err")" -eq 1 ] || fail "$1: expected one mpirun line: $(cat "$TMP/err")"
    check_hosts_empty
}

expect() {
    grep -Eq -- "$1" "$TMP/err" || fail "no line matches '$1':
$(cat "$TMP/err")"
}

# 1. The last rank receives what nobody sends; the others wait in a barrier.
hang nosend
expect "^  ranks 0-2 \($(h 0), $(h 1)\): MPI_Barrier #2 on MPI_COMM_WORLD for $T; rank 3 has not entered it$"
expect "^  rank 3 \($(h 1), pid [0-9]+\): MPI_Recv\(source=0, tag=9, MPI_COMM_WORLD, 1 int\) for $T; rank 0 has no matching send pending \(it is in MPI_Barrier #2 on MPI_COMM_WORLD\)$"

# 2. The same receive, nonblocking: the rank waits in MPI_Wait on it.
hang irecv
expect "^  rank 3 \($(h 1), pid [0-9]+\): MPI_Wait for $T; pending: receive from 0 tag 4 on MPI_COMM_WORLD; rank 0 has no matching send pending \(it is in MPI_Barrier #2 on MPI_COMM_WORLD\)$"

# 3. Rank 2 skips the second barrier and stays in user code.
hang skip
expect "^  ranks 0-1,3 \($(h 0), $(h 1)\): MPI_Barrier #2 on MPI_COMM_WORLD for $T; rank 2 has not entered it$"
expect "^  rank 2 \($(h 1), pid [0-9]+\): in user code \(outside MPI\); last MPI call MPI_Barrier #1 on MPI_COMM_WORLD for $T$"

# 4. Rank 0 sends tag 1 and waits for tag 5; rank 1 waits for tag 2.
hang tags
expect "^  ranks 2-3 \($(h 1)\): MPI_Barrier #2 on MPI_COMM_WORLD for $T; ranks 0-1 have not entered it$"
expect "^  rank 0 \($(h 0), pid [0-9]+\): MPI_Recv\(source=1, tag=5, MPI_COMM_WORLD, 1 int\) for $T; rank 1 has no matching send pending \(it is in MPI_Recv\(source=0, tag=2, MPI_COMM_WORLD, 1 int\)\)$"
expect "^  rank 1 \($(h 0), pid [0-9]+\): MPI_Recv\(source=0, tag=2, MPI_COMM_WORLD, 1 int\) for $T; rank 0 has no matching send pending \(it is in MPI_Recv\(source=1, tag=5, MPI_COMM_WORLD, 1 int\)\)$"

# 5. The same receive as 2, polled with MPI_Testall in a loop: one wait that
# goes on, whichever side of the call the report finds the rank.
hang poll
expect "^  rank 3 \($(h 1), pid [0-9]+\): (in user code \(outside MPI\); last MPI call )?MPI_Testall for $T \(called [0-9]+ more times\)$"
exit 0
