#!/bin/sh
# osu_mbw_mr: 1 and 2 pairs (4 ranks, oversubscribed on small machines),
# 8 B to 256 KiB, windows of 4, data checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 16 -m 8:256K -W 4 -i 10 -I 3 -x 2 -n 3
bench 4 16 -m 8:256K -W 4 -i 5 -I 2 -x 1 -n 3
