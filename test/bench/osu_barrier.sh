#!/bin/sh
# osu_barrier: one row on 1, 2 and 3 ranks.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
for np in 1 2 3; do
    bench "$np" 1 -i 50 -x 5 -n 3
done
