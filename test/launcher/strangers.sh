#!/bin/sh
# Another user of this machine (nobody) against a running job, and
# strangers on mpirun's TCP port:
#  1. one-host job: every TCP listener of mpirun, the daemon and the ranks
#     is on loopback; PMIx's directory is the job's own (0700, not /tmp),
#     nobody can list it; nothing of PMIx appears directly in /tmp; the
#     job key is in no process's environment (/proc); the namespace has 128
#     random bits; nobody connecting to each port (PMIx's with a made-up
#     namespace) changes nothing: the job ends 0.
#  2. nobody claiming a rank with the job's real namespace (which only the
#     job's processes know; PMIx 4.2 then hangs in PMIx_server_finalize):
#     the daemon ends itself within seconds, mpirun names the host, and the
#     job's status is still the ranks' (0).
#  3. a daemon killed by SIGKILL: its PMIx directory is gone once the next
#     daemon has started.
#  4. mpirun with a host reached by a launch agent (the daemon runs here,
#     as with ssh to this machine): its listener is bound to addresses, not
#     0.0.0.0; 8 connections announcing a 64 MiB frame are dropped at once
#     and mpirun's RSS grows by less than 4 MB; 200 idle connections cost
#     at most 64 descriptors; the job still ends 0.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$PMIX_CLIENT"
[ "$(id -u)" = 0 ] || { echo "needs root (to act as another user)"; exit 77; }
command -v setpriv >/dev/null && command -v ss >/dev/null || { echo "needs setpriv and ss"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "needs /usr/bin/python3"; exit 77; }
STRANGER="setpriv --reuid=nobody --regid=nogroup --clear-groups"
# The client may be under a directory nobody cannot enter: a copy it can run.
cp "$PMIX_CLIENT" "$TMP/pmix_client" && chmod 755 "$TMP" "$TMP/pmix_client"
tmproot=${TMPDIR:-/tmp}

SLEEPERS="pmix_client sleep"
job_pids() { # mpirun, daemon, ranks of the job with MARKER
    pgrep -f "$MARKER"
    pgrep -f "ompi-lite-daemon" | while read -r p; do
        pp=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null)
        case $(tr '\0' ' ' <"/proc/$pp/cmdline" 2>/dev/null) in *"$MARKER"*) echo "$p" ;; esac
    done
}
rank_env() { # VAR: its value in rank 0's environment
    for p in $(pgrep -f "$SLEEPERS .* $MARKER"); do
        v=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n "s/^$1=//p")
        [ -n "$v" ] && { echo "$v"; return; }
    done
}
wait_ranks() {
    i=0
    while [ "$(pgrep -f "$SLEEPERS .* $MARKER" | wc -l)" -lt "$1" ]; do
        i=$((i + 1))
        [ $i -lt 200 ] || fail "the ranks did not start"
        sleep 0.05
    done
    sleep 0.3
}
# stranger_pmix NSPACE: nobody runs a PMIx client against the job's server
# claiming rank 0 of NSPACE (the server's address is no secret: it is a
# loopback port anyone can list).
stranger_pmix() {
    uri=$(rank_env PMIX_SERVER_URI41)
    env -i PMIX_SERVER_URI41="$uri" PMIX_SERVER_URI4="$uri" PMIX_SERVER_URI3="$uri" \
        PMIX_SERVER_URI2="$uri" PMIX_SERVER_URI21="$uri" PMIX_SECURITY_MODE=native \
        PMIX_BFROP_BUFFER_TYPE=PMIX_BFROP_BUFFER_NON_DESC PMIX_GDS_MODULE=hash \
        PMIX_VERSION="$(rank_env PMIX_VERSION)" PMIX_NAMESPACE="$1" PMIX_RANK=0 \
        timeout 5 $STRANGER "$TMP/pmix_client" check 2 >/dev/null 2>&1
    true
}

# 1. One host: listeners, directory, environment, namespace, strangers.
"$MPIRUN" -np 2 "$PMIX_CLIENT" sleep 3 "$MARKER" >"$TMP/out" 2>"$TMP/err" </dev/null &
bg=$!
wait_ranks 2
pids=$(job_pids | sort -u)
ports=
for p in $pids; do
    ss -Hltnp 2>/dev/null | grep "pid=$p," >>"$TMP/listen"
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -q '^OMPI_LITE_JOB_KEY='; then
        fail "pid $p ($(tr '\0' ' ' </proc/$p/cmdline)) has the job key in its environment"
    fi
done
[ -s "$TMP/listen" ] || fail "no TCP listener found for the job (PMIx's should be there)"
while read -r _ _ _ local _; do
    case $local in
    127.*) ports="$ports ${local##*:}" ;;
    *) fail "a one-host job listens on $local: $(cat "$TMP/listen")" ;;
    esac
done <"$TMP/listen"
dir=$(rank_env PMIX_SERVER_TMPDIR)
case $dir in "" | "$tmproot" | "$tmproot/") fail "PMIx's directory is '$dir', not one of the job's own" ;; esac
[ "$(stat -c '%a %u' "$dir")" = "700 0" ] || fail "PMIx's directory $dir is $(stat -c '%a %U' "$dir")"
$STRANGER ls "$dir" >/dev/null 2>&1 && fail "nobody can list PMIx's directory $dir"
for p in $pids; do
    for f in "$tmproot"/pmix_dstor_*_"$p"; do
        [ -e "$f" ] && fail "PMIx wrote $f into $tmproot"
    done
done
ns=$(rank_env PMIX_NAMESPACE)
echo "$ns" | grep -Eq '\.[0-9a-f]{32}$' || fail "namespace '$ns' has no 128 random bits"
for port in $ports; do
    timeout 2 $STRANGER /bin/bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; echo hello >&3" 2>/dev/null || true
done
stranger_pmix "ompi-lite.$(hostname).$bg.0"
rc=0
wait "$bg" || rc=$?
[ "$rc" -eq 0 ] || fail "after the strangers the job ended $rc: $(cat "$TMP/err")"
[ -d "$dir" ] && fail "PMIx's directory $dir is still there after the job"
check_no_leftovers

# 2. The real namespace in a stranger's hands: a bounded end, named.
"$MPIRUN" -np 2 "$PMIX_CLIENT" sleep 2 "$MARKER" >"$TMP/out" 2>"$TMP/err" </dev/null &
bg=$!
wait_ranks 2
t0=$(now_ms)
stranger_pmix "$(rank_env PMIX_NAMESPACE)"
rc=0
wait "$bg" || rc=$?
took=$(($(now_ms) - t0))
echo "stranger with the namespace: mpirun ended $took ms later: $(cat "$TMP/err")"
[ "$rc" -eq 0 ] || fail "exit status $rc: $(cat "$TMP/err")"
[ "$took" -le 15000 ] || fail "mpirun took $took ms"
if [ -s "$TMP/err" ]; then
    grep -Eq "^mpirun: the ompi-lite daemon on host $(hostname) did not finish within [0-9]+ s" "$TMP/err" ||
        fail "unexpected: $(cat "$TMP/err")"
fi
check_no_leftovers 20

# 3. A daemon killed: its directory goes with the next daemon.
"$MPIRUN" -np 2 "$PMIX_CLIENT" sleep 30 "$MARKER" >"$TMP/out" 2>"$TMP/err" </dev/null &
bg=$!
wait_ranks 2
dir=$(rank_env PMIX_SERVER_TMPDIR)
[ -d "$dir" ] || fail "no PMIx directory '$dir'"
for p in $(job_pids); do
    case $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) in *ompi-lite-daemon*) kill -KILL "$p" ;; esac
done
wait "$bg" || true
check_no_leftovers 20
run_mpirun "$TMP/out" "$TMP/err" -np 1 true
[ "$rc" -eq 0 ] || fail "the next job failed: $(cat "$TMP/err")"
[ -e "$dir" ] && fail "the killed daemon's PMIx directory $dir is still there"

# 4. mpirun's listener against strangers (it listens where its daemons
# connect: this machine's own non-loopback addresses here).
if [ -z "$(ip -4 -o addr show scope global 2>/dev/null)" ]; then
    echo "ok (part 4 skipped: no non-loopback IPv4 address)"
    exit 0
fi
cat >"$TMP/agent" <<'EOF'
#!/bin/sh
# A launch agent like ssh to this machine: runs the command line here.
shift
exec sh -c "$*"
EOF
chmod +x "$TMP/agent"
printf 'localhost slots=1\nsomewhere-else-%s slots=1\n' "$$" >"$TMP/hosts"
OMPI_LITE_RESOLVE_MS=200 "$MPIRUN" --launch-agent "$TMP/agent" -hostfile "$TMP/hosts" -np 2 \
    "$PMIX_CLIENT" sleep 6 "$MARKER" >"$TMP/out" 2>"$TMP/err" </dev/null &
bg=$!
wait_ranks 2
mp=$(pgrep -f "^$MPIRUN --launch-agent $TMP/agent")
ss -Hltnp | grep "pid=$mp," >"$TMP/mlisten"
[ -s "$TMP/mlisten" ] || fail "mpirun does not listen: $(cat "$TMP/err")"
grep -Eq ' (0\.0\.0\.0|\*|\[::\]):[0-9]+ ' "$TMP/mlisten" && fail "mpirun listens on every address: $(cat "$TMP/mlisten")"
target=$(awk '{print $4; exit}' "$TMP/mlisten")
"$PY" - "${target%:*}" "${target##*:}" "$mp" <<'EOF' || fail "64 MiB announcements were not dropped at once"
# Each stranger announces a 64 MiB AUTH frame and sends 32 MiB of it, and
# stays connected; mpirun's RSS is read while all of them are.
import socket, struct, sys, time
host, port, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rss():
    for line in open("/proc/%s/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
rss0, held = rss(), []
for _ in range(8):
    s = socket.create_connection((host, port), timeout=2)
    s.sendall(struct.pack(">IHH", 64 << 20, 10, 0))
    t0, dropped = time.time(), False
    try:
        chunk = b"x" * (1 << 20)
        for _ in range(32):
            s.sendall(chunk)
        dropped = s.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        dropped = True
    except socket.timeout:
        pass
    if not dropped or time.time() - t0 > 2:
        sys.exit("not dropped within 2 s (%.1f s)" % (time.time() - t0))
    held.append(s)
time.sleep(0.3)
rss1 = rss()
print("mpirun RSS: %d kB before, %d kB with 8 strangers announcing 64 MiB" % (rss0, rss1))
sys.exit(0 if rss1 - rss0 < 4096 else 1)
EOF
"$PY" - "${target%:*}" "${target##*:}" "$mp" <<'EOF' || fail "idle strangers are not capped"
import os, socket, sys, time
host, port, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
held = [socket.create_connection((host, port), timeout=5) for _ in range(200)]
time.sleep(0.5)
n = len(os.listdir("/proc/%s/fd" % pid))
print("mpirun has %d descriptors with 200 idle strangers connected" % n)
sys.exit(0 if n < 64 + 40 else 1)
EOF
rc=0
wait "$bg" || rc=$?
[ "$rc" -eq 0 ] || fail "after the strangers the job ended $rc: $(cat "$TMP/err")"
check_no_leftovers
echo "ok"
