#!/bin/sh
# The tool interface's UCX network path: test/mpi/tool_pvars in mode "net"
# on 2 network-namespace hosts, a rank on each (--map-by node): the
# messages between them count on pt2pt_ucx_net_* alone, exactly, and none
# on the rings or UCX's shared memory (tool_pvars.c checks the numbers).
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
PROG=$top_builddir/test/mpi/tool_pvars
need_helpers "$PROG"

printf '%s slots=1\n%s slots=1\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"
mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/hosts" -np 2 --map-by node "$PROG" net
[ "$rc" -eq 0 ] || fail "tool_pvars net: status $rc: $(cat "$TMP/out" "$TMP/err")"
grep -qx "tool_pvars: net OK" "$TMP/out" || fail "tool_pvars net: no OK line: $(cat "$TMP/out" "$TMP/err")"
check_hosts_empty 20
echo "pvars_netns: ok"
