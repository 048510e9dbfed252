#!/bin/sh
# osu_allreduce: sizes 64 B to 64 KiB (11 rows) on 1, 2 and 3 ranks, data checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
for np in 1 2 3; do
    bench "$np" 11 -m 64:64K -i 20 -I 5 -x 2 -n 2
done
