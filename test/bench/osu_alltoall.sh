#!/bin/sh
# osu_alltoall: sizes 8 B to 256 KiB (16 rows, past the algorithm thresholds) on
# 1, 2, 3 and 4 ranks, data checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
for np in 1 2 3 4; do
    bench "$np" 16 -m 8:256K -i 10 -I 3 -x 2 -n 2
done
