# Sourced by the multi-host tests: NHOSTS hosts made of network namespaces
# (contrib/netns-hosts.sh), created here and removed on exit, even on
# failure. mpirun runs on host 0, as on a cluster's first node, and reaches
# the others through the launch agent that enters their namespaces; the
# hostfiles name the hosts exactly as on real machines.
. "${top_srcdir:-.}/test/launcher/common.sh"

[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)"; exit 77; }
command -v ip >/dev/null && command -v unshare >/dev/null || { echo "needs ip and unshare"; exit 77; }

NETNS="$top_srcdir/contrib/netns-hosts.sh"
NSP="ol$$n"                          # host names: ${NSP}0, ${NSP}1, ...
SUBNET="10.231.$(($$ % 200 + 20))"   # exists only inside the namespaces
NHOSTS=${NHOSTS:-3}
AGENT="$NETNS agent"

netns_cleanup() {
    "$NETNS" down "$NSP" "$NHOSTS" 2>/dev/null
    rm -rf "$TMP"
}
trap netns_cleanup EXIT
trap 'exit 1' INT TERM HUP
"$NETNS" up "$NSP" "$NHOSTS" "$SUBNET" || fail "cannot create the network namespaces"

h() { echo "$NSP$1"; }

# mpirun_on0 OUT ERR ARGS...: mpirun on host 0 with the netns launch agent;
# status in $rc.
mpirun_on0() {
    out=$1 err=$2
    shift 2
    rc=0
    "$NETNS" run "$(h 0)" "$MPIRUN" --launch-agent "$AGENT" "$@" >"$out" 2>"$err" </dev/null || rc=$?
}

# The same in the background; its pid in $bg.
mpirun_on0_bg() {
    out=$1 err=$2
    shift 2
    "$NETNS" run "$(h 0)" "$MPIRUN" --launch-agent "$AGENT" "$@" >"$out" 2>"$err" </dev/null &
    bg=$!
}

# Fails unless every host is empty: no rank, no daemon (retries for up to
# $1 tenths of a second, for daemons cleaning up after a lost link).
check_hosts_empty() {
    tries=${1:-1}
    i=0
    while :; do
        left=
        k=0
        while [ "$k" -lt "$NHOSTS" ]; do
            left="$left$(ip netns pids "$(h $k)")"
            k=$((k + 1))
        done
        [ -z "$left" ] && break
        i=$((i + 1))
        if [ "$i" -ge "$tries" ]; then
            for p in $left; do ps -o pid=,args= -p "$p" >&2; done
            fail "processes survived on the hosts"
        fi
        sleep 0.1
    done
    check_no_leftovers
}

# tx bytes of host K's eth0.
tx_bytes() {
    ip netns exec "$(h "$1")" cat /sys/class/net/eth0/statistics/tx_bytes
}

# Waits until N processes match PATTERN (5 s at most).
wait_for_procs() {
    n=$1 pattern=$2
    i=0
    while [ "$(pgrep -f "$pattern" | wc -l)" -lt "$n" ]; do
        i=$((i + 1))
        [ $i -lt 100 ] || fail "processes '$pattern' did not start"
        sleep 0.05
    done
}
