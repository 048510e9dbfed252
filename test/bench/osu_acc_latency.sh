#!/bin/sh
# osu_acc_latency: 4 B (one int) to 1 MiB (19 rows; 1 and 2 B are less than
# an element and skipped) with flush, then with fence in an MPI_Win_create
# window; the sums of every accumulate of a size are checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 19 -m 1:1M -i 10 -I 3 -x 2 -n 3
bench 2 19 -m 1:1M -i 10 -I 3 -x 2 -n 3 -s fence -w create
