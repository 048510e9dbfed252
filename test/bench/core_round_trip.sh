#!/bin/sh
# core_round_trip (not an MPI program): one row of three positive numbers,
# min <= median <= max; a single CPU is refused with exit 1 and a reason.
set -u
prog=${top_builddir:?run me with make check}/test/bench/core_round_trip
if [ "$(nproc)" -lt 2 ]; then
    echo "SKIP: one CPU"
    exit 77
fi
out=$("$prog" -n 3) || { echo "FAIL: core_round_trip exited with $?"; exit 1; }
echo "$out"
echo "$out" | grep -v '^#' | awk 'NF != 3 || !($2 > 0 && $2 <= $1 && $1 <= $3) { bad = 1 } END { exit bad || NR != 1 }' ||
    { echo "FAIL: expected one row: median, min, max, positive and in order"; exit 1; }
err=$(taskset -c 0 "$prog" -n 1 2>&1 >/dev/null)
rc=$?
[ "$rc" -eq 1 ] && echo "$err" | grep -q "may run on one CPU only" ||
    { echo "FAIL: on one CPU: exit $rc, '$err' (expected 1 and the reason)"; exit 1; }
