#!/bin/sh
# The device benchmarks run briefly with their data checked: devcopy_bw,
# osu_bw -d cuda, osu_latency -d cuda, -g (a CUDA context, host buffers) and
# -g -M (host buffers from malloc, 1 MiB and more),
# coll_perf --device. Times are not asserted (run-gpu-suite.sh prints them).
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

for b in devcopy_bw osu_bw osu_latency coll_perf; do
    [ -x "$bench_bindir/$b" ] || hard_error "$bench_bindir/$b was not built"
done

capture "$bench_bindir/devcopy_bw" -s 16M -n 3
skipped_if_no_gpu devcopy_bw
[ "$rc" -eq 0 ] || fail "devcopy_bw exited with status $rc"
grep -v '^#' "$work/out" | awk 'NF != 4 || !($1 > 0) { bad = 1 } END { exit bad || NR != 1 }' ||
    fail "devcopy_bw: expected one row of four positive numbers"

bench 2 5 osu_bw -d cuda -c -m 64K:1M -W 4 -i 2 -I 2 -x 1 -n 2
bench 2 5 osu_latency -d cuda -c -m 0:8 -i 5 -I 2 -x 1 -n 2
bench 2 5 osu_latency -g -c -m 0:8 -i 5 -I 2 -x 1 -n 2
bench 2 5 osu_latency -g -M -c -m 0:8 -i 5 -I 2 -x 1 -n 2
bench 3 18 coll_perf -C allreduce --device -b 8 -e 1M -f 2 -c 1 -n 2 -w 1 -r 1
bench 2 15 coll_perf -C bcast --device -b 16 -e 256K -f 2 -c 1 -n 2 -w 1 -r 1
