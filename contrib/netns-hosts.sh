#!/bin/sh
# Hosts made of network namespaces, for running mpirun across "hosts" on one
# machine (root only). Each host is a namespace with its own loopback and an
# eth0 on a private subnet that exists only inside the namespaces: the veth
# peers hang on a bridge in a switch namespace PREFIX-sw. Each command run
# on a host also gets its own UTS namespace whose hostname is the host's
# name, and its own boot id (a file bound over /proc/sys/kernel/random/boot_id):
# UCX tells hosts apart by boot id, and would otherwise use shared memory
# between "hosts" (which share this kernel) instead of TCP over the veths.
#
#   netns-hosts.sh up PREFIX N [SUBNET]   hosts PREFIX0 .. PREFIX<N-1> at SUBNET.1 ..
#                                         (SUBNET default 10.231.7, a /24)
#   netns-hosts.sh link PREFIX N IF SUBNET [RATE]
#                                         a second network: interface IF on every
#                                         host at SUBNET.1 .., on a bridge of its
#                                         own; RATE (tc's words, 100mbit) limits
#                                         what each host sends on it
#   netns-hosts.sh down PREFIX N          removes them (and whatever runs there)
#   netns-hosts.sh agent HOST WORDS...    mpirun's launch agent: runs the shell
#                                         command line WORDS on HOST, like ssh
#   netns-hosts.sh run HOST PROGRAM ARGS  runs PROGRAM on HOST (no shell)
#   netns-hosts.sh addr PREFIX I [SUBNET] prints host I's address
set -eu

state=/run/ol-netns-hosts
cmd=${1:?usage: netns-hosts.sh up|link|down|agent|run|addr ...}
shift
case $cmd in
up)
    prefix=$1 n=$2 subnet=${3:-10.231.7}
    sw=$prefix-sw
    mkdir -p "$state"
    ip netns add "$sw"
    ip -n "$sw" link set lo up
    ip -n "$sw" link add br0 type bridge
    ip -n "$sw" link set br0 up
    i=0
    while [ "$i" -lt "$n" ]; do
        h=$prefix$i
        ip netns add "$h"
        cat /proc/sys/kernel/random/uuid >"$state/$h.boot_id"
        ip -n "$h" link set lo up
        # Created inside the switch namespace, so no name ever shows up in
        # the machine's own namespace.
        ip -n "$sw" link add "p$i" type veth peer name eth0 netns "$h"
        ip -n "$sw" link set "p$i" master br0 up
        ip -n "$h" addr add "$subnet.$((i + 1))/24" dev eth0
        ip -n "$h" link set eth0 up
        i=$((i + 1))
    done
    ;;
link)
    prefix=$1 n=$2 ifname=$3 subnet=$4 rate=${5:-}
    sw=$prefix-sw
    ip -n "$sw" link add "br-$ifname" type bridge
    ip -n "$sw" link set "br-$ifname" up
    i=0
    while [ "$i" -lt "$n" ]; do
        h=$prefix$i
        ip -n "$sw" link add "$ifname-p$i" type veth peer name "$ifname" netns "$h"
        ip -n "$sw" link set "$ifname-p$i" master "br-$ifname" up
        ip -n "$h" addr add "$subnet.$((i + 1))/24" dev "$ifname"
        ip -n "$h" link set "$ifname" up
        if [ -n "$rate" ]; then
            ip netns exec "$h" tc qdisc add dev "$ifname" root tbf rate "$rate" burst 64kb latency 200ms
        fi
        i=$((i + 1))
    done
    ;;
down)
    prefix=$1 n=$2
    i=0
    while [ "$i" -lt "$n" ]; do
        h=$prefix$i
        if [ -e "/run/netns/$h" ]; then
            pids=$(ip netns pids "$h" 2>/dev/null || true)
            [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
            ip netns del "$h" 2>/dev/null || true
        fi
        rm -f "$state/$h.boot_id"
        i=$((i + 1))
    done
    ip netns del "$prefix-sw" 2>/dev/null || true
    ;;
agent)
    host=$1
    shift
    # WORDS form one shell command line, as ssh would run it remotely. The
    # exec chain keeps the command a child of the caller (mpirun).
    exec ip netns exec "$host" unshare --uts --mount -- sh -c \
        "mount --bind '$state/$host.boot_id' /proc/sys/kernel/random/boot_id && hostname '$host' && exec $*"
    ;;
run)
    host=$1
    shift
    exec ip netns exec "$host" unshare --uts --mount -- sh -c \
        'mount --bind "$0" /proc/sys/kernel/random/boot_id && hostname "$1" && shift && exec "$@"' \
        "$state/$host.boot_id" "$host" "$@"
    ;;
addr)
    echo "${3:-10.231.7}.$(($2 + 1))"
    ;;
*)
    echo "netns-hosts.sh: unknown command '$cmd'" >&2
    exit 2
    ;;
esac
