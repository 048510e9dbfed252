#!/bin/sh
# Two mpiruns on two network-namespace hosts meet through a port: the
# server job (2 ranks on host 0) opens a port and publishes it in a name
# directory both hosts see (OMPI_LITE_NAME_DIR: the file system is shared,
# as a home directory on a cluster), the client job (3 ranks on host 1)
# looks it up and connects; test/mpi/dyn_connect checks the traffic over
# the intercommunicator and a merged communicator. The port's addresses
# must reach host 0 over the veth link, and so must UCX.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
rx_bytes() {
    ip netns exec "$(h "$1")" cat /sys/class/net/eth0/statistics/rx_bytes
}
PROG=$top_builddir/test/mpi/dyn_connect
need_helpers "$PROG"

OMPI_LITE_NAME_DIR=$TMP/names
export OMPI_LITE_NAME_DIR
mkdir -m 700 "$OMPI_LITE_NAME_DIR"
service=connect-netns-$$

rx1=$(rx_bytes 1)
mpirun_on0_bg "$TMP/server.out" "$TMP/server.err" --timeout 60 -np 2 "$PROG" server "$service"
server=$bg
rc=0
"$NETNS" run "$(h 1)" "$MPIRUN" --timeout 60 -np 3 "$PROG" client "$service" \
    >"$TMP/client.out" 2>"$TMP/client.err" </dev/null || rc=$?
server_rc=0
wait "$server" || server_rc=$?
[ "$rc" -eq 0 ] || fail "client job: status $rc: $(cat "$TMP/client.out" "$TMP/client.err")"
[ "$server_rc" -eq 0 ] || fail "server job: status $server_rc: $(cat "$TMP/server.out" "$TMP/server.err")"
grep -qx "dyn_connect client: OK" "$TMP/client.out" || fail "client: no OK line: $(cat "$TMP/client.out")"
grep -qx "dyn_connect server: OK" "$TMP/server.out" || fail "server: no OK line: $(cat "$TMP/server.out")"
# The 16 KiB broadcast of the merged communicator's rank 0 (a server)
# reaches the clients over the link.
got1=$(($(rx_bytes 1) - rx1))
[ "$got1" -ge 16384 ] || fail "host 1 received $got1 bytes on eth0: the jobs did not talk across hosts"
[ -z "$(ls -A "$OMPI_LITE_NAME_DIR")" ] || fail "names left published: $(ls -A "$OMPI_LITE_NAME_DIR")"
check_hosts_empty 20
echo "connect_netns: ok"
