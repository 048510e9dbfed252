#!/bin/sh
# Sessions on 2 network-namespace hosts x 2 ranks: each host is a process
# set of its own (ompi-lite://host/<name>, with the name the ranks there
# get from MPI_Get_processor_name), holding exactly the 2 ranks on it; a
# communicator from mpi://WORLD and one from each host's set reduce right
# (session.c checks all this); the runtime ends and starts again across
# hosts (repeat, and MPI_Init after a session). No process is left.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
SESSION=$top_builddir/test/mpi/session
need_helpers "$SESSION"

printf '%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"

for mode in world-first repeat init-after; do
    mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$SESSION" 4 "$mode"
    [ "$rc" -eq 0 ] || fail "session $mode on 2 hosts: status $rc: $(cat "$TMP/out" "$TMP/err")"
    grep -q "^session: $mode OK" "$TMP/out" || fail "session $mode on 2 hosts: $(cat "$TMP/out")"
    check_hosts_empty 20
done

# The two hosts' sets, by name, from the program's own listing.
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$SESSION" 4 list
[ "$rc" -eq 0 ] || fail "session list on 2 hosts: status $rc: $(cat "$TMP/err")"
for i in 0 1; do
    grep -q "^pset ompi-lite://host/$(h "$i") 2$" "$TMP/out" ||
        fail "no process set of 2 for host $(h "$i"): $(cat "$TMP/out")"
done
check_hosts_empty 20
