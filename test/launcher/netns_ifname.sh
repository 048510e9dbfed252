#!/bin/sh
# OMPI_LITE_IFNAME (mpirun --ifname): which network a job uses between
# hosts. Two namespace hosts with two links each: eth0, and eth1 on a
# second subnet, limited with tc to 200 Mbit/s and declared as such with the
# test-only OMPI_LITE_NET_TEST_SPEED (a tc limit does not show in /sys).
# By default and with each link named in turn (prefix, '=', '^'), the job
# runs and the interfaces' counters show that the ranks' bytes, and with a
# name the launcher's own frames too, went over the link chosen; a user's
# UCX_NET_DEVICES wins; OMPI_LITE_DEBUG=info names each host's link and
# speed once per host; mpirun warns once when the slow link is chosen while
# the fast one is up everywhere, and never otherwise; a name that matches no
# interface fails at start-up naming the host and what it has (mpirun's own
# host, and a daemon's); ompi_lite_info --net marks the chosen interface.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
need_helpers "$HELPERS/mpi_hosts"
INFO="$top_builddir/ompi-lite/tools/ompi_lite_info"
[ -x "$INFO" ] || fail "ompi_lite_info was not built"
command -v tc >/dev/null || { echo "needs tc"; exit 77; }

SUBNET1="10.232.$(($$ % 200 + 20))"
"$NETNS" link "$NSP" "$NHOSTS" eth1 "$SUBNET1" 200mbit || fail "cannot add the second link"
OMPI_LITE_NET_TEST_SPEED=eth1=200
export OMPI_LITE_NET_TEST_SPEED

bytes=4194304
quiet=65536   # what ARP, neighbour discovery and the like may send meanwhile
WARNING="using eth1 (200 Mb/s) while eth0 (10 Gb/s) is up on every host; set OMPI_LITE_IFNAME=eth0"

txb() { # HOST IF
    ip netns exec "$(h "$1")" cat "/sys/class/net/$2/statistics/tx_bytes"
}

# run_job ARGS...: 2 ranks on each host (a ring: each host sends $bytes
# twice to the other); the bytes each host sent on eth0 and eth1 in
# $sent_K_IF.
run_job() {
    for k in 0 1; do for i in eth0 eth1; do eval "b_${k}_$i=\$(txb $k $i)"; done; done
    mpirun_on0 "$TMP/out" "$TMP/err" -H "$(h 0):2,$(h 1):2" -np 4 \
        -x OMPI_LITE_DEBUG=info -x OMPI_LITE_DEBUG_SUBSYS=runtime "$@" \
        "$HELPERS/mpi_hosts" $bytes "$MARKER"
    [ "$rc" -eq 0 ] || fail "mpi_hosts with '$*': status $rc: $(cat "$TMP/err")"
    for r in 0 1 2 3; do
        grep -qx "rank $r of 4 on $(h $((r / 2)))" "$TMP/out" || fail "'$*': rank $r: $(cat "$TMP/out")"
    done
    for k in 0 1; do for i in eth0 eth1; do
        eval "sent_${k}_$i=\$((\$(txb $k $i) - b_${k}_$i))"
    done; done
    echo "${*:-default${OMPI_LITE_IFNAME:+ with OMPI_LITE_IFNAME=$OMPI_LITE_IFNAME}}: bytes sent by host 0/1 on eth0 $sent_0_eth0/$sent_1_eth0, on eth1 $sent_0_eth1/$sent_1_eth1"
}

# expect_link LABEL IF OTHER: every host sent the ranks' bytes on IF and
# next to nothing on OTHER.
expect_link() {
    for k in 0 1; do
        eval "on=\$sent_${k}_$2 off=\$sent_${k}_$3"
        [ "$on" -ge "$bytes" ] || fail "$1: host $k sent only $on bytes on $2 (and $off on $3)"
        [ "$off" -lt "$quiet" ] || fail "$1: host $k sent $off bytes on $3, which was not chosen ($on on $2)"
    done
}

# expect_info LABEL TEXT: one line per host says which link its ranks use.
expect_info() {
    for k in 0 1; do
        n=$(grep -c "host $(h $k): ranks reach other hosts over $2" "$TMP/err")
        [ "$n" -eq 1 ] || fail "$1: expected one line 'host $(h $k): ranks reach other hosts over $2', got $n: $(cat "$TMP/err")"
    done
}

no_warning() {
    ! grep -q "is up on every host" "$TMP/err" || fail "$1: unexpected warning: $(cat "$TMP/err")"
}

# 1. Default: both links (UCX's choice between them), never loopback; no
#    warning, since the fast link is among them.
run_job
for k in 0 1; do
    eval "both=\$((sent_${k}_eth0 + sent_${k}_eth1))"
    [ "$both" -ge "$bytes" ] || fail "default: host $k sent only $both bytes on eth0 and eth1"
done
expect_info default "eth0 (tcp, 10 Gb/s), eth1 (tcp, 200 Mb/s) (default"
grep -q "UCX_NET_DEVICES=eth0,eth1 (ompi-lite's default)" "$TMP/err" ||
    fail "default: loopback not left out of UCX_NET_DEVICES: $(cat "$TMP/err")"
no_warning default

# 2. The fast link by prefix: ranks and launcher on eth0 only, no warning.
run_job --ifname eth0
expect_link "--ifname eth0" eth0 eth1
expect_info "--ifname eth0" "eth0 (tcp, 10 Gb/s) (OMPI_LITE_IFNAME)"
no_warning "--ifname eth0"

# 3. The slow link by exact name: everything on eth1, and one warning.
run_job --param IFNAME==eth1
expect_link "IFNAME==eth1" eth1 eth0
expect_info "IFNAME==eth1" "eth1 (tcp, 200 Mb/s) (OMPI_LITE_IFNAME)"
[ "$(grep -c "^mpirun: host $(h 0): $WARNING\$" "$TMP/err")" -eq 1 ] &&
    [ "$(grep -c "is up on every host" "$TMP/err")" -eq 1 ] ||
    fail "IFNAME==eth1: expected one warning '$WARNING': $(cat "$TMP/err")"

# 4. The slow link by excluding the other, from mpirun's environment.
OMPI_LITE_IFNAME='^eth0'
export OMPI_LITE_IFNAME
run_job
unset OMPI_LITE_IFNAME
expect_link "OMPI_LITE_IFNAME=^eth0" eth1 eth0
grep -q "is up on every host" "$TMP/err" || fail "^eth0: no warning: $(cat "$TMP/err")"

# 5. The user's UCX_NET_DEVICES wins for the ranks (the launcher still
#    follows --ifname, whose frames are few).
run_job --ifname eth1 -x UCX_NET_DEVICES=eth0
for k in 0 1; do
    eval "on=\$sent_${k}_eth0"
    [ "$on" -ge "$bytes" ] || fail "UCX_NET_DEVICES=eth0: host $k sent only $on bytes on eth0"
done
grep -q "OMPI_LITE_IFNAME=eth1 leaves UCX alone" "$TMP/err" ||
    fail "UCX_NET_DEVICES=eth0: no word that IFNAME left UCX alone: $(cat "$TMP/err")"

# 6. Names that match nothing: on mpirun's host, and (eth9 on host 0 only)
#    on a daemon's; nothing is left running.
mpirun_on0 "$TMP/out" "$TMP/err" -H "$(h 0),$(h 1)" -np 2 --ifname ib9 "$HELPERS/mpi_hosts" 1 "$MARKER"
[ "$rc" -ne 0 ] && grep -q "^mpirun: host $(h 0): no usable network interface matches 'ib9' of OMPI_LITE_IFNAME=ib9; this host has lo, eth0, eth1$" "$TMP/err" ||
    fail "--ifname ib9: status $rc: $(cat "$TMP/err")"
ip -n "$(h 0)" link add eth9 type veth peer name eth9p && ip -n "$(h 0)" addr add 10.233.0.1/24 dev eth9 &&
    ip -n "$(h 0)" link set eth9p up && ip -n "$(h 0)" link set eth9 up || fail "cannot add eth9 to host 0"
mpirun_on0 "$TMP/out" "$TMP/err" -H "$(h 0),$(h 1)" -np 2 --ifname eth9 "$HELPERS/mpi_hosts" 1 "$MARKER"
[ "$rc" -ne 0 ] && grep -q "^mpirun: cannot start the ompi-lite daemon on host $(h 1) .*: no usable network interface matches 'eth9' of OMPI_LITE_IFNAME=eth9; this host has lo, eth0, eth1$" "$TMP/err" ||
    fail "--ifname eth9 (host 0 only): status $rc: $(cat "$TMP/err")"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "--ifname eth9: more than one line: $(cat "$TMP/err")"
check_hosts_empty 50

# 7. ompi_lite_info --net: the interfaces, their speeds, the one chosen.
OMPI_LITE_IFNAME=eth1 "$NETNS" run "$(h 0)" "$INFO" --net >"$TMP/out" 2>"$TMP/err" ||
    fail "ompi_lite_info --net: $(cat "$TMP/err")"
grep -Eq '^  \* eth1 +[0-9.]+ +200 Mb/s +tcp$' "$TMP/out" &&
    grep -Eq '^    eth0 +[0-9.]+ +10 Gb/s +tcp$' "$TMP/out" &&
    grep -Eq '^    lo +127\.0\.0\.1 .*\(loopback\)$' "$TMP/out" ||
    fail "ompi_lite_info --net: $(cat "$TMP/out")"
echo "netns_ifname: all checks passed"
