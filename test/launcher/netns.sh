#!/bin/sh
# mpirun across three hosts (network namespaces) with hostfiles in both
# syntaxes: ranks see different host names, reach each other over TCP on
# the veth links (the interfaces' counters grow by the bytes sent), get
# their local ranks and sizes from PMIx, exchange keys by direct modex;
# mapping by slot and node, -N, --host, a deep daemon tree, and a TCP
# connection without the job key is dropped while the job runs on; the
# collectives give the right data across hosts; ompi-lite's UCX settings
# for TCP follow the job's layout.
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
need_helpers "$PMIX_CLIENT" "$HELPERS/mpi_hosts" "$HELPERS/ring" "$HELPERS/split_host"

cat >"$TMP/hosts" <<EOT
# Open MPI syntax
$(h 0) slots=2

$(h 1) slots=2 max_slots=4   # a comment
$(h 2) slots=2
EOT
printf '%s:2\n%s:2\n%s:2\n' "$(h 0)" "$(h 1)" "$(h 2)" >"$TMP/hosts.mpich"

# 1. Plain MPI: 2 ranks per host, processor names differ, data crosses the links.
bytes=4194304
for k in 0 1 2; do eval "tx$k=\$(tx_bytes $k)"; done
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 "$HELPERS/mpi_hosts" $bytes "$MARKER"
[ "$rc" -eq 0 ] || fail "mpi_hosts: status $rc: $(cat "$TMP/err")"
for r in 0 1 2 3 4 5; do
    grep -qx "rank $r of 6 on $(h $((r / 2)))" "$TMP/out" || fail "rank $r is not on $(h $((r / 2))): $(cat "$TMP/out")"
done
[ "$(sed 's/.* on //' "$TMP/out" | sort -u | wc -l)" -eq 3 ] || fail "expected 3 processor names: $(cat "$TMP/out")"
for k in 0 1 2; do
    eval "before=\$tx$k"
    sent=$(($(tx_bytes $k) - before))
    # Each host's second rank sends $bytes to the next host.
    [ "$sent" -ge "$bytes" ] || fail "host $k sent only $sent bytes on eth0: not over TCP between hosts"
done

# 1b. MPI_Comm_split_type(SHARED) groups each host's ranks (3 on the first
# host, 2 on each of the others), and collectives cross the hosts.
printf '%s slots=3\n%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" "$(h 2)" >"$TMP/hosts.322"
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts.322" -np 7 "$HELPERS/split_host"
[ "$rc" -eq 0 ] || fail "split_host: status $rc: $(cat "$TMP/err")"
for r in 0 1 2 3 4 5 6; do
    host=$((r < 3 ? 0 : (r - 1) / 2)) want=$((r < 3 ? 3 : 2))
    grep -qx "rank $r: node size $want on $(h $host)" "$TMP/out" ||
        fail "split_type: rank $r should be in a node communicator of $want on $(h $host): $(cat "$TMP/out")"
done

# 1c. Every collective across hosts (coll_move checks each value), with the
# recursive doubling allgather forced: 2 ranks per host make it swap across
# hosts first, and the 6 ranks make 2 of them extras.
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 6 \
    -x OMPI_LITE_ALLGATHER_ALGORITHM=recursive_doubling "$top_builddir/test/mpi/coll_move"
[ "$rc" -eq 0 ] || fail "coll_move: status $rc: $(cat "$TMP/err")"
grep -q "^coll_move: 6 ranks OK" "$TMP/out" || fail "coll_move: $(cat "$TMP/out")"
# 4 ranks on 2 hosts take their own choices (the broadcast's chain from
# 128 KiB among them).
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$top_builddir/test/mpi/coll_move"
[ "$rc" -eq 0 ] || fail "coll_move on 4 ranks: status $rc: $(cat "$TMP/err")"
grep -q "^coll_move: 4 ranks OK" "$TMP/out" || fail "coll_move on 4 ranks: $(cat "$TMP/out")"
# One rank per host: the broadcast's chain below 64 KiB, empty ones too.
mpirun_on0 "$TMP/out" "$TMP/err" --host "$(h 0),$(h 1),$(h 2)" -N 1 "$top_builddir/test/mpi/coll_move"
[ "$rc" -eq 0 ] || fail "coll_move on 3 hosts: status $rc: $(cat "$TMP/err")"
grep -q "^coll_move: 3 ranks OK" "$TMP/out" || fail "coll_move on 3 hosts: $(cat "$TMP/out")"
# Counts that differ between the processes are reported by each process
# downstream of the mismatch, also through schedules (one host takes its
# shared-memory path).
mpirun_on0 "$TMP/out" "$TMP/err" --host "$(h 0),$(h 1),$(h 2)" -N 1 \
    "$top_builddir/test/mpi/coll_mismatch"
[ "$rc" -eq 0 ] || fail "coll_mismatch on 3 hosts: status $rc: $(cat "$TMP/err")"
grep -q "^coll_mismatch: 3 ranks OK" "$TMP/out" || fail "coll_mismatch on 3 hosts: $(cat "$TMP/out")"

# 1d. ompi-lite's UCX settings for TCP follow the job's layout, the same on
# every rank (a rank's TCP pieces must fit its peers' buffers): one rank per
# host takes the TCP-only value, hosts that hold several ranks the mixed
# one, also for the rank alone on its host of 3 ranks on 2 hosts, both for
# the receive and the send segments; a user's UCX variable for either wins
# over both. The ranks log what they apply, and pass 1 MiB round a ring
# across the hosts, in pieces of up to the value, contiguous and then as a
# vector that UCX packs itself.
check_tcp_setting() { # WANT-PER-RANK NP ARGS...
    want=$1 np=$2
    shift 2
    mpirun_on0 "$TMP/out" "$TMP/err" -np "$np" \
        -x OMPI_LITE_DEBUG=info -x OMPI_LITE_DEBUG_SUBSYS=runtime \
        -x OMPI_LITE_UCX_TCP_SEG_SIZE=100000 -x OMPI_LITE_UCX_MIXED_SEG_SIZE=200000 \
        "$@" "$HELPERS/mpi_hosts" 1048576 "$MARKER"
    [ "$rc" -eq 0 ] || fail "mpi_hosts with $*: status $rc: $(cat "$TMP/err")"
    got=$(grep -o "UCX_TCP_[RT]X_SEG_SIZE=[0-9]* (ompi-lite's default)" "$TMP/err" |
        sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2}')
    [ "$got" = "$want" ] ||
        fail "mpi_hosts with $*: TCP segment sizes applied as '$got', expected '$want'"
}
check_tcp_setting "3 UCX_TCP_RX_SEG_SIZE=100000, 3 UCX_TCP_TX_SEG_SIZE=100000" 3 \
    --host "$(h 0),$(h 1),$(h 2)" -N 1
check_tcp_setting "6 UCX_TCP_RX_SEG_SIZE=200000, 6 UCX_TCP_TX_SEG_SIZE=200000" 6 \
    -hostfile "$TMP/hosts"
check_tcp_setting "3 UCX_TCP_RX_SEG_SIZE=200000, 3 UCX_TCP_TX_SEG_SIZE=200000" 3 \
    -H "$(h 0):2,$(h 1):1"
check_tcp_setting "" 6 -hostfile "$TMP/hosts" -x UCX_TCP_RX_SEG_SIZE=96K
check_tcp_setting "" 3 --host "$(h 0),$(h 1),$(h 2)" -N 1 -x UCX_TCP_TX_SEG_SIZE=64K

# 2. MPICH hostfile syntax and the ring example.
mpirun_on0 "$TMP/out" "$TMP/err" -f "$TMP/hosts.mpich" -n 6 "$HELPERS/ring"
[ "$rc" -eq 0 ] || fail "ring: status $rc: $(cat "$TMP/err")"
grep -q "ring of 6 ranks: token came back with sum 15 (expected 15)" "$TMP/out" || fail "ring: $(cat "$TMP/out")"

# 3. PMIx view: by slot, by node (5 ranks: r on host r%3), -N 1 with --host.
check_pmix() { # NP NODES WHERE-OF-RANK-EXPR ARGS...
    np=$1 nodes=$2 expr=$3
    shift 3
    mpirun_on0 "$TMP/out" "$TMP/err" "$@" -np "$np" "$PMIX_CLIENT" hosts "$np" "$nodes" "$MARKER"
    [ "$rc" -eq 0 ] || fail "$*: status $rc: $(cat "$TMP/err")"
    r=0
    while [ "$r" -lt "$np" ]; do
        want=$(h $(($expr)))
        grep -qx "rank $r ok on $want" "$TMP/out" || fail "$*: rank $r not ok on $want: $(cat "$TMP/out") $(cat "$TMP/err")"
        r=$((r + 1))
    done
}
check_pmix 6 3 'r / 2' -hostfile "$TMP/hosts"
check_pmix 5 3 'r % 3' -hostfile "$TMP/hosts" --map-by node
check_pmix 3 3 'r' --host "$(h 0),$(h 1),$(h 2)" -N 1
check_pmix 4 2 '1 + r / 2' -H "$(h 1):2,$(h 2):2"
# A chain of daemons (fan-out 1): launch, fences and modex pass through the tree.
check_pmix 6 3 'r / 2' -hostfile "$TMP/hosts" --param TREE_FANOUT=1
OMPI_LITE_TREE_FANOUT=2 check_pmix 6 3 'r / 2' -hostfile "$TMP/hosts"

# 4. Oversubscription across hosts, max_slots (the harness allows
# oversubscription: this check turns it off).
OMPI_LITE_OVERSUBSCRIBE=0
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 7 hostname
OMPI_LITE_OVERSUBSCRIBE=1
[ "$rc" -ne 0 ] && grep -q "7 processes requested, but only 6 slots are available" "$TMP/err" ||
    fail "7 ranks on 6 slots: status $rc: $(cat "$TMP/err")"
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 7 --oversubscribe hostname
[ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 7 ] || fail "--oversubscribe: status $rc: $(cat "$TMP/err")"

# 5. A connection to mpirun (and to a daemon with children) without the key
#    is dropped, and the job goes on; neither listens on every address. The job lives 10 s: the probes of
#    every listening port take more than 3 under the whole suite's load, and
#    a port closed by the job's end refuses the probe.
mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" --param TREE_FANOUT=1 -np 6 \
    "$PMIX_CLIENT" sleep 10 "$MARKER"
wait_for_procs 6 "pmix_client sleep 10 $MARKER"
for k in 0 1; do
    # Launcher listeners are bound to the host's address on the job's
    # network, never to every address (PMIx's own is on loopback).
    ip netns exec "$(h $k)" ss -ltnH | awk '$4 !~ /^127\./' >"$TMP/listen"
    grep -Eq ' (0\.0\.0\.0|\*|\[::\]):[0-9]+ ' "$TMP/listen" && fail "host $k listens on every address: $(cat "$TMP/listen")"
    ports=$(awk -v a="$SUBNET.$((k + 1))" '$4 ~ "^" a ":" {n = split($4, p, ":"); print p[n]}' "$TMP/listen")
    [ -n "$ports" ] || fail "nothing listens on host $k's address: $(cat "$TMP/listen")"
    for port in $ports; do
        # A wrong key, then a HELLO without any key: each must be cut off.
        for frame in auth hello; do
            "$NETNS" run "$(h 2)" python3 - "$SUBNET.$((k + 1))" "$port" "$frame" <<'PY' || fail "host $k port $port kept a connection ($frame) without the key"
import socket, struct, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3)
if sys.argv[3] == "auth":
    body = struct.pack(">I", 64) + b"0" * 64
    s.sendall(struct.pack(">IHH", len(body), 10, 0) + body)
else:
    s.sendall(struct.pack(">IHH", 4, 1, 0) + struct.pack(">I", 2))
s.sendall(struct.pack(">IHH", 0, 16, 0))
try:
    sys.exit(0 if s.recv(1) == b"" else 1)
except (ConnectionResetError, socket.timeout) as e:
    sys.exit(0 if isinstance(e, ConnectionResetError) else 1)
PY
        done
    done
done
rc=0
wait $bg || rc=$?
[ "$rc" -eq 0 ] || fail "the job failed after the bad connections: $(cat "$TMP/err")"
check_hosts_empty
echo "netns: ok"
