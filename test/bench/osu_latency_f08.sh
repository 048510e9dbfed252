#!/bin/sh
# osu_latency_f08: osu_latency.sh's runs of the Fortran twin (use mpi_f08):
# sizes 0 to 64 KiB (18 rows), data checked; on 3 ranks the third only
# waits at the barriers.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 18 -m 0:64K -i 50 -I 10 -x 5 -n 3
bench 3 6 -m 4K:128K -i 20 -I 5 -x 2 -n 2
