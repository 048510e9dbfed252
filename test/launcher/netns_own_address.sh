#!/bin/sh
# Hosts named by their addresses, on two network-namespace hosts: mpirun on
# host 0 with a hostfile naming host 0 by its own address runs those ranks
# there (fork, no launch agent); host 1 named by its address is reached
# through the agent, and its daemon answers for that address as for its
# name (the node map names host 1 as its PMIx HOSTNAME does); spellings of
# one host (address and name) are one host with one daemon; a resolver
# that never answers delays the start by the lookup bound only.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
need_helpers "$PMIX_CLIENT" "$HELPERS/mpi_hosts"

ADDR0=$("$NETNS" addr "$NSP" 0 "$SUBNET")
ADDR1=$("$NETNS" addr "$NSP" 1 "$SUBNET")

# The launch agent: records the host it is asked for, then enters that
# host's namespace (an address is turned into the host's name, as ssh
# would connect to it).
AGENT_LOG="$TMP/agent.log"
cat >"$TMP/agent" <<EOT
#!/bin/sh
host=\$1
shift
echo "\$host" >>"$AGENT_LOG"
case \$host in
$ADDR0) host=$(h 0) ;;
$ADDR1) host=$(h 1) ;;
esac
exec "$NETNS" agent "\$host" "\$@"
EOT
chmod +x "$TMP/agent"

# Host 0's resolver: host 1's name in its hosts file (as on a cluster), and
# a name server in the hosts' subnet that nobody answers for (traffic stays
# inside the namespaces).
printf '127.0.0.1 localhost\n%s %s\n' "$ADDR1" "$(h 1)" >"$TMP/etc-hosts"
printf 'nameserver %s.250\noptions timeout:3 attempts:2\n' "$SUBNET" >"$TMP/resolv.conf"
# A neighbour entry with a MAC that nobody has: queries leave host 0 and
# vanish, with no error that would end the wait early.
ip -n "$(h 0)" neigh add "$SUBNET.250" lladdr 02:00:00:00:00:fa dev eth0 nud permanent ||
    fail "cannot add the silent name server's neighbour entry"

# on0 OUT ERR ARGS...: mpirun on host 0 with the recording agent and host
# 0's resolver files; status in $rc.
on0() {
    out=$1 err=$2
    shift 2
    rc=0
    rm -f "$AGENT_LOG"
    "$NETNS" run "$(h 0)" unshare --mount -- sh -c \
        'mount --bind "$1" /etc/hosts && mount --bind "$2" /etc/resolv.conf && shift 2 && exec "$@"' \
        sh "$TMP/etc-hosts" "$TMP/resolv.conf" \
        "$MPIRUN" --timeout 30 --launch-agent "$TMP/agent" "$@" >"$out" 2>"$err" </dev/null || rc=$?
}

# check_job WHAT NP NODES WHERE-OF-RANK-EXPR AGENT-CALLS: pmix_client hosts
# ran, rank r on host $((expr)), and the agent was asked for exactly the
# hosts listed (space-separated, in order).
check_job() {
    what=$1 np=$2 nodes=$3 expr=$4 calls=$5
    shift 5
    on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" "$@" -np "$np" "$PMIX_CLIENT" hosts "$np" "$nodes" "$MARKER"
    got=$(cat "$AGENT_LOG" 2>/dev/null | tr '\n' ' ')
    [ "$got" = "$calls" ] || fail "$what: the agent was called for '$got', expected '$calls'"
    [ "$rc" -eq 0 ] || fail "$what: status $rc: $(cat "$TMP/err")"
    r=0
    while [ "$r" -lt "$np" ]; do
        want=$(h $(($expr)))
        grep -qx "rank $r ok on $want" "$TMP/out" || fail "$what: rank $r not ok on $want: $(cat "$TMP/out") $(cat "$TMP/err")"
        r=$((r + 1))
    done
    check_hosts_empty 20
}

# 1. Host 0 by its own address (both syntaxes): local to mpirun there.
printf '%s slots=1\n%s slots=1\n' "$ADDR0" "$(h 1)" >"$TMP/hosts"
check_job "host 0 as $ADDR0" 2 2 'r' "$(h 1) "
printf '%s:1\n%s:1\n' "$ADDR0" "$(h 1)" >"$TMP/hosts"
check_job "host 0 as $ADDR0:1" 2 2 'r' "$(h 1) "

# 2. Host 1 by its address: through the agent; its ranks find their host
#    in the node map under its name; also as a daemon's child in a tree.
printf '%s:1\n%s:1\n' "$(h 0)" "$ADDR1" >"$TMP/hosts"
check_job "host 1 as $ADDR1" 2 2 'r' "$ADDR1 "
check_job "host 1 as $ADDR1, fan-out 1" 2 2 'r' "$ADDR1 " --param TREE_FANOUT=1
printf '%s slots=1\n%s slots=1\n' "$ADDR0" "$ADDR1" >"$TMP/hosts"
on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 2 "$HELPERS/mpi_hosts" 4096 "$MARKER"
[ "$rc" -eq 0 ] || fail "mpi_hosts on $ADDR0, $ADDR1: status $rc: $(cat "$TMP/err")"
grep -qx "rank 0 of 2 on $(h 0)" "$TMP/out" && grep -qx "rank 1 of 2 on $(h 1)" "$TMP/out" ||
    fail "mpi_hosts on $ADDR0, $ADDR1: $(cat "$TMP/out")"
check_hosts_empty 20

# 3. Each host in two spellings: one daemon per host, slots added up.
printf '%s:1\n%s:1\n%s:1\n%s:1\n' "$ADDR0" "$(h 1)" "$(h 0)" "$ADDR1" >"$TMP/hosts"
check_job "both hosts in two spellings" 4 2 'r / 2' "$(h 1) "

# 4. A name no resolver answers for (the name server is silent): the start
#    waits OMPI_LITE_RESOLVE_MS (1 s here), not the resolver's 2 x 3 s.
printf '%s slots=2\nnowhere-%s slots=1\n' "$ADDR0" "$$" >"$TMP/hosts"
t0=$(now_ms)
OMPI_LITE_RESOLVE_MS=1000 check_job "a silent name server" 2 1 '0' ""
t=$(($(now_ms) - t0))
echo "with a silent name server: the job took $t ms"
[ "$t" -lt 4500 ] || fail "a silent name server held the start for $t ms"
echo "netns_own_address: ok"
