#!/bin/sh
# MPI_Comm_spawn across hosts: 2 network-namespace hosts, mpirun on host 0,
# the spawn_hosts program (parents spawn copies of it, children check their
# host, talk among themselves and to every parent over UCX tcp).
#  - children on both hosts: 2 parents (one per host, --map-by node), 2
#    children placed in the free slots, one per host: the children's
#    namespace spans both hosts, so its fences (MPI_Init's, MPI_Finalize's)
#    and its direct modex (a child's address asked of the other host's
#    daemon) go through the tree; the bytes cross the veths;
#  - children on host 1 by the info key "host" while their parents are the
#    2 ranks of host 0 (a third rank, on host 1, only waits).
# Each run: the children's and parents' OK lines, exit status 0, nothing
# left on either host.
NHOSTS=2
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

# Children on host 1 by the info key "host"; the parents are on host 0.
printf '%s slots=2\n%s slots=3\n' "$(h 0)" "$(h 1)" >"$TMP/hosts3"
mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/hosts3" -np 3 "$PROG" 2 2 "$(h 1)"
[ "$rc" -eq 0 ] || fail "children on host 1 by the host key: status $rc: $(cat "$TMP/out" "$TMP/err")"
for c in 0 1; do
    grep -qx "child $c of 2 on $(h 1): OK (children on $(h 1))" "$TMP/out" ||
        fail "children by the host key: child $c's line missing or wrong: $(cat "$TMP/out" "$TMP/err")"
done
grep -qx "parents: 2 children OK" "$TMP/out" || fail "children by the host key: no parents' line: $(cat "$TMP/out")"
check_hosts_empty 20
echo "spawn_netns: ok"
