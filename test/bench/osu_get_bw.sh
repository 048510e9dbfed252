#!/bin/sh
# osu_get_bw: 1 B to 1 MiB (21 rows), windows of 8 gets from slots of their
# own, with flush, then with fence in an MPI_Win_create window; the data is
# always checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 21 -m 1:1M -W 8 -i 10 -I 3 -x 2 -n 3
bench 2 21 -m 1:1M -W 8 -i 10 -I 3 -x 2 -n 3 -s fence -w create
