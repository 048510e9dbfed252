#!/bin/sh
# Network blips between hosts do not end a job; a host that is really gone
# does, within the reliability goal (5 s), naming it:
#  1. host 1's link down for 2 s in the middle of a job (both directions
#     lost): the job completes, status 0;
#  2. 2 s of 100% packet loss (netem) both ways on host 1's link: the same;
#  3. host 1's link down for good: mpirun names host 1 within 5 s
#     (plus 1 s of slack for a loaded machine) of the cut.
# With OMPI_LITE_LINK_TIMEOUT_MS at its default (4000 ms).
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
need_helpers "$PMIX_CLIENT"
unset OMPI_LITE_LINK_TIMEOUT_MS

printf '%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"
SLEEPERS="pmix_client sleep"

# blip WHAT: a 4-rank job sleeping 6 s; 2 s into it, WHAT for 2 s.
blip() {
    mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$PMIX_CLIENT" sleep 6 "$MARKER"
    wait_for_procs 4 "$SLEEPERS .* $MARKER"
    sleep 1.5
    case $1 in
    down)
        ip -n "$NSP-sw" link set p1 down
        sleep 2
        ip -n "$NSP-sw" link set p1 up
        ;;
    loss)
        ip -n "$NSP-sw" link set p1 up
        tc -n "$NSP-sw" qdisc add dev p1 root netem loss 100% || fail "tc netem is not available"
        tc -n "$(h 1)" qdisc add dev eth0 root netem loss 100%
        sleep 2
        tc -n "$NSP-sw" qdisc del dev p1 root
        tc -n "$(h 1)" qdisc del dev eth0 root
        ;;
    esac
    rc=0
    wait "$bg" || rc=$?
    [ "$rc" -eq 0 ] || fail "2 s of '$1' on host 1's link ended the job ($rc): $(cat "$TMP/err")"
    check_hosts_empty 30
    echo "2 s of link $1: the job completed"
}

blip down
if modprobe -q sch_netem 2>/dev/null || [ -d /sys/module/sch_netem ]; then
    blip loss
else
    echo "netem not available: loss part skipped"
fi

# 3. The link down for good.
mpirun_on0_bg "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 "$PMIX_CLIENT" sleep 30 "$MARKER"
wait_for_procs 4 "$SLEEPERS .* $MARKER"
sleep 0.3
t0=$(now_ms)
ip -n "$NSP-sw" link set p1 down
rc=0
wait "$bg" || rc=$?
took=$(($(now_ms) - t0))
echo "host 1 gone -> mpirun exited: $took ms"
[ "$rc" -eq 1 ] || fail "exit status $rc: $(cat "$TMP/err")"
grep -Eq "^mpirun: the ompi-lite daemon on host $(h 1) stopped answering .*the host or its network is gone$" "$TMP/err" ||
    fail "host 1 not named: $(cat "$TMP/err")"
[ "$took" -le 6000 ] || fail "a host gone for good took $took ms to end the job (goal: 5 s)"
ip -n "$NSP-sw" link set p1 up
check_hosts_empty 60
echo "ok"
