#!/bin/sh
# osu_bw_vector: 8 B to 1 MiB of every other double (18 rows), windows of 8,
# data and gaps checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 18 -m 8:1M -W 8 -i 10 -I 3 -x 2 -n 3
