#!/bin/sh
# Output flood into a slow reader: 2 ranks write FLOOD_MIB MiB each (64 by
# default) as fast as they can while mpirun's stdout is a pipe read slowly
# (nothing for 3 s, then about 50 MB/s). The daemon and mpirun must not
# buffer it: their peak RSS (VmHWM) stays within 32 MiB of a job that
# writes one line, and every byte arrives, in order per rank (checksum).
# Also prints the peak RSS, for the table in launcher/README.md.
. "${top_srcdir:-.}/test/launcher/common.sh"

mib=${FLOOD_MIB:-64}
bound_kib=$((32 * 1024))
lines=$((mib * 1024 * 1024 / 64))
# 64-byte lines: 7-digit number, a space, 55 filler characters, newline.
gen="awk 'BEGIN { f = sprintf(\"%055d\", 0); for (i = 0; i < $lines; i++) printf \"%07d %s\\n\", i % 10000000, f }'"

# A reader that waits, then reads at about RATE bytes/s (64 KiB at a time).
cat >"$TMP/slow_reader.py" <<'EOF'
import os, sys, time
delay, rate = float(sys.argv[1]), float(sys.argv[2])
time.sleep(delay)
start, got = time.monotonic(), 0
out = sys.stdout.buffer
while True:
    b = os.read(0, 65536)
    if not b:
        break
    out.write(b)
    got += len(b)
    ahead = got / rate - (time.monotonic() - start)
    if ahead > 0:
        time.sleep(ahead)
EOF

# hwm PID: its VmHWM in KiB (0 once it is gone).
hwm() {
    awk '/^VmHWM:/ { print $2; found = 1 } END { if (!found) print 0 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# run_sampled OUT ARGS...: mpirun ARGS with stdout into the slow reader
# (then OUT); sets $rc, $mpirun_hwm and $daemon_hwm (KiB, the last sample
# before each process ended: VmHWM only grows).
run_sampled() {
    out=$1
    shift
    rm -f "$TMP/fifo"
    mkfifo "$TMP/fifo"
    python3 "$TMP/slow_reader.py" 3 50000000 <"$TMP/fifo" >"$out" &
    reader=$!
    timeout 150 "$MPIRUN" "$@" >"$TMP/fifo" 2>"$TMP/err" </dev/null &
    tpid=$!
    mpirun_hwm=0 daemon_hwm=0 mpid= dpid=
    while kill -0 "$tpid" 2>/dev/null; do
        [ -n "$mpid" ] || mpid=$(pgrep -P "$tpid" -x mpirun | head -n 1)
        [ -n "$mpid" ] && [ -z "$dpid" ] && dpid=$(pgrep -P "$mpid" -f ompi-lite-daemon | head -n 1)
        if [ -n "$mpid" ]; then
            v=$(hwm "$mpid")
            [ "$v" -gt "$mpirun_hwm" ] && mpirun_hwm=$v
        fi
        if [ -n "$dpid" ]; then
            v=$(hwm "$dpid")
            [ "$v" -gt "$daemon_hwm" ] && daemon_hwm=$v
        fi
        sleep 0.1
    done
    rc=0
    wait "$tpid" || rc=$?
    wait "$reader"
}

run_sampled "$TMP/base" -np 2 sh -c 'echo "one line"; sleep 1' "$MARKER"
[ "$rc" -eq 0 ] || fail "baseline job: exit status $rc: $(cat "$TMP/err")"
base_m=$mpirun_hwm base_d=$daemon_hwm
[ "$base_m" -gt 0 ] && [ "$base_d" -gt 0 ] || fail "could not sample the baseline (mpirun $base_m, daemon $base_d KiB)"

t0=$(now_ms)
run_sampled "$TMP/out" --tag-output -np 2 sh -c "$gen" "$MARKER"
t1=$(now_ms)
[ "$rc" -eq 0 ] || fail "flood: exit status $rc: $(cat "$TMP/err")"
echo "output_flood: 2 x $mib MiB in $((t1 - t0)) ms; peak RSS mpirun $mpirun_hwm KiB (baseline $base_m)," \
    "daemon $daemon_hwm KiB (baseline $base_d)"
check_no_leftovers

sh -c "$gen" | md5sum >"$TMP/want"
for r in 0 1; do
    got=$(sed -n "s/^\[$r\] //p" "$TMP/out" | md5sum)
    [ "$got" = "$(cat "$TMP/want")" ] ||
        fail "rank $r: output lost or out of order ($(grep -c "^\[$r\] " "$TMP/out") of $lines lines)"
done
[ $((mpirun_hwm - base_m)) -le "$bound_kib" ] ||
    fail "mpirun's peak RSS grew by $((mpirun_hwm - base_m)) KiB (bound $bound_kib)"
[ $((daemon_hwm - base_d)) -le "$bound_kib" ] ||
    fail "the daemon's peak RSS grew by $((daemon_hwm - base_d)) KiB (bound $bound_kib)"
echo "output_flood: ok"
