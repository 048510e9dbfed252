#!/bin/sh
# memcpy_bw (not an MPI program): prints one row of three positive numbers.
set -u
prog=${top_builddir:?run me with make check}/test/bench/memcpy_bw
out=$("$prog" -s 16777216 -n 3) || { echo "FAIL: memcpy_bw exited with $?"; exit 1; }
echo "$out"
echo "$out" | grep -v '^#' | awk 'NF != 3 || !($1 > 0 && $2 > 0 && $3 > 0) { bad = 1 } END { exit bad || NR != 1 }' ||
    { echo "FAIL: expected one row of three positive numbers"; exit 1; }
