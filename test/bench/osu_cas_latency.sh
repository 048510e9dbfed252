#!/bin/sh
# osu_cas_latency: one row (8 B, -m ignored) per synchronisation and window
# kind; every swap must succeed, the counter and the last fetched value are
# checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
for s in flush fence; do
    for w in allocate create; do
        bench 2 1 -i 50 -x 5 -n 3 -s "$s" -w "$w"
    done
done
