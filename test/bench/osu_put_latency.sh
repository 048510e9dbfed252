#!/bin/sh
# osu_put_latency: 1 B to 1 MiB (21 rows) with flush in an MPI_Win_allocate
# window, then with fence in an MPI_Win_create one, and on 3 ranks (the third
# only in the fences); the data is always checked.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 21 -m 1:1M -i 10 -I 3 -x 2 -n 3
bench 2 21 -m 1:1M -i 10 -I 3 -x 2 -n 3 -s fence -w create
bench 3 5 -m 64:1K -i 10 -x 2 -n 2 -s fence
