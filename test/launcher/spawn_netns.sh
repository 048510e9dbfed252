#!/bin/sh
# MPI_Comm_spawn across hosts: 3 network-namespace hosts, mpirun on host 0,
# the spawn_hosts program (parents spawn copies of it, children check their
# host, talk among themselves and to every parent over UCX tcp).
#  - children on both hosts: 2 parents (one per host, --map-by node), 2
#    children placed in the free slots, one per host: the children's
#    namespace spans both hosts, so its fences (MPI_Init's, MPI_Finalize's)
#    and its direct modex (a child's address asked of the other host's
#    daemon) go through the tree; the bytes cross the veths;
#  - hosts that join the job for a spawn: the hostfile's host 1, which has
#    no rank, by the info key "host" and by free slots; host 2, not in the
#    hostfile, by "add-host" and by the info key "hostfile"; an added host
#    whose daemon cannot start (the spawn fails, the job goes on).
# Each run: the children's and parents' OK lines, exit status 0, nothing
# left on either host.
NHOSTS=3
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
PROG=$HELPERS/spawn_hosts
need_helpers "$PROG"

printf '%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"

# Children on both hosts.
tx0=$(tx_bytes 0)
tx1=$(tx_bytes 1)
mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/hosts" -np 2 --map-by node "$PROG" 2 2
[ "$rc" -eq 0 ] || fail "children on both hosts: status $rc: $(cat "$TMP/out" "$TMP/err")"
for c in 0 1; do
    grep -qx "child $c of 2 on $(h $c): OK (children on $(h 0),$(h 1))" "$TMP/out" ||
        fail "children on both hosts: child $c's line missing or wrong: $(cat "$TMP/out" "$TMP/err")"
done
grep -qx "parents: 2 children OK" "$TMP/out" || fail "children on both hosts: no parents' line: $(cat "$TMP/out")"
# 256 KiB each way between the children, and the parents' traffic
sent0=$(($(tx_bytes 0) - tx0))
sent1=$(($(tx_bytes 1) - tx1))
if [ "$sent0" -lt 200000 ] || [ "$sent1" -lt 200000 ]; then
    fail "children on both hosts: the hosts sent only $sent0 and $sent1 bytes on eth0: not over TCP between hosts"
fi
check_hosts_empty 20

# The job's hosts are host 0 and 1, its 2 ranks both on host 0: host 1 gets
# a daemon during the job, when a spawn needs it: named by the info key
# "host", or as the next host of the hostfile with free slots.
for how in "host $(h 1) $(h 1)" "none"; do
    if [ "$how" = none ]; then args=; else args=$how; fi
    mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/hosts" -np 2 "$PROG" 2 2 $args
    [ "$rc" -eq 0 ] || fail "children on host 1 ($how): status $rc: $(cat "$TMP/out" "$TMP/err")"
    for c in 0 1; do
        grep -qx "child $c of 2 on $(h 1): OK (children on $(h 1))" "$TMP/out" ||
            fail "children on host 1 ($how): child $c's line missing or wrong: $(cat "$TMP/out" "$TMP/err")"
    done
    grep -qx "parents: 2 children OK" "$TMP/out" || fail "children on host 1 ($how): no parents' line: $(cat "$TMP/out")"
    [ -s "$TMP/err" ] && fail "children on host 1 ($how): unexpected stderr: $(cat "$TMP/err")"
    check_hosts_empty 20
done

# Host 2 is not a host of the job (hostfile: host 0 alone): the info key
# "add-host", or a hostfile given as the info key "hostfile", starts a
# daemon there with the launch agent, and the children run there.
printf '%s slots=2\n' "$(h 0)" >"$TMP/host0"
printf '%s slots=2\n' "$(h 2)" >"$TMP/host2"
for how in "add-host $(h 2):2" "hostfile $TMP/host2"; do
    mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/host0" -np 2 "$PROG" 2 2 $how "$(h 2)"
    [ "$rc" -eq 0 ] || fail "children on host 2 by $how: status $rc: $(cat "$TMP/out" "$TMP/err")"
    for c in 0 1; do
        grep -qx "child $c of 2 on $(h 2): OK (children on $(h 2))" "$TMP/out" ||
            fail "children on host 2 by $how: child $c's line missing or wrong: $(cat "$TMP/out" "$TMP/err")"
    done
    grep -qx "parents: 2 children OK" "$TMP/out" || fail "children on host 2 by $how: no parents' line: $(cat "$TMP/out")"
    check_hosts_empty 20
done

# A host added whose daemon cannot start: the spawn fails (MPI_ERR_SPAWN),
# mpirun says why in one line, the parents go on and the job ends well.
mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/host0" -np 2 "$PROG" 2 2 add-host "${NSP}x" fail
[ "$rc" -eq 0 ] || fail "unreachable added host: status $rc: $(cat "$TMP/out" "$TMP/err")"
grep -q "^parents: spawn failed: " "$TMP/out" || fail "unreachable added host: the spawn did not fail: $(cat "$TMP/out" "$TMP/err")"
grep -q "^mpirun: rank 0 could not spawn .*spawn_hosts: cannot start the ompi-lite daemon on host ${NSP}x with '.*': " "$TMP/err" ||
    fail "unreachable added host: mpirun's line: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "unreachable added host: more than one line on stderr: $(cat "$TMP/err")"
check_hosts_empty 20
echo "spawn_netns: ok"
