#!/bin/sh
# A hostfile that names this machine by its own address, as cluster guides
# write them (`ADDR slots=2`, MPICH's `ADDR:2`), by an IPv6 address, and by
# several spellings at once: the ranks run here under one daemon, and the
# launch agent (a script that records each call and fails, as ssh to a
# machine without sshd does) is never called.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$PMIX_CLIENT"

# This machine's first non-loopback IPv4 address, and IPv6 one (global or
# unique-local scope), from its interfaces.
addr4=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
addr6=$(ip -6 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
[ -n "$addr4" ] || { echo "this machine has no non-loopback IPv4 address"; exit 77; }

AGENT_LOG="$TMP/agent.log"
cat >"$TMP/agent" <<EOT
#!/bin/sh
echo "\$*" >>"$AGENT_LOG"
echo "ssh: connect to host \$1 port 22: Connection refused" >&2
exit 255
EOT
chmod +x "$TMP/agent"

# run_local HOSTFILE-LINES NP: the job is N ranks on this one host (the
# client checks the local size against the job size: one daemon for all),
# and the agent was not called.
run_local() {
    printf "$1" >"$TMP/hosts"
    np=$2
    rm -f "$AGENT_LOG"
    run_mpirun "$TMP/out" "$TMP/err" --timeout 30 --launch-agent "$TMP/agent" -hostfile "$TMP/hosts" \
        -np "$np" "$PMIX_CLIENT" check "$np" "$MARKER"
    what="hostfile '$(tr '\n' ';' <"$TMP/hosts")'"
    [ ! -e "$AGENT_LOG" ] || fail "$what: the launch agent was called: $(cat "$AGENT_LOG")"
    [ "$rc" -eq 0 ] || fail "$what: status $rc: $(cat "$TMP/err")"
    r=0
    while [ "$r" -lt "$np" ]; do
        grep -qx "rank $r ok" "$TMP/out" || fail "$what: rank $r not ok: $(cat "$TMP/out") $(cat "$TMP/err")"
        r=$((r + 1))
    done
    check_no_leftovers
}

run_local "$addr4 slots=2\n" 2
run_local "$addr4:2\n" 2
# Every spelling of this host is one host: its slots add up, one daemon.
run_local "$addr4 slots=1\n$(hostname):1\nlocalhost\n127.0.0.1 slots=1\n" 4
run_local "::1 slots=1\n[::1]:1\n" 2
if [ -n "$addr6" ]; then
    run_local "$addr6 slots=2\n" 2
    run_local "[$addr6]:1\n$addr4:1\n" 2
fi

# --host in another spelling of a hostfile's host picks that host.
printf '%s slots=2\n' "$addr4" >"$TMP/hosts"
rm -f "$AGENT_LOG"
run_mpirun "$TMP/out" "$TMP/err" --timeout 30 --launch-agent "$TMP/agent" -hostfile "$TMP/hosts" \
    --host localhost:2 -np 2 "$PMIX_CLIENT" check 2 "$MARKER"
[ "$rc" -eq 0 ] && [ ! -e "$AGENT_LOG" ] || fail "--host localhost with hostfile $addr4: status $rc: $(cat "$TMP/err")"

# Another host still goes through the agent, which is named in the line.
run_mpirun "$TMP/out" "$TMP/err" --timeout 30 --launch-agent "$TMP/agent" -H 203.0.113.77 -np 1 echo "$MARKER"
[ "$rc" -ne 0 ] && grep -q "cannot start the ompi-lite daemon on host 203.0.113.77 .*Connection refused" "$TMP/err" ||
    fail "a host that is not this one: status $rc: $(cat "$TMP/err")"
grep -qx "203.0.113.77 .*" "$AGENT_LOG" || fail "the agent was not called for 203.0.113.77: $(cat "$AGENT_LOG")"
check_no_leftovers
echo "own_address: ok ($addr4${addr6:+, $addr6})"
