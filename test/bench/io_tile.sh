#!/bin/sh
# io_tile: 64 KiB and 256 KiB in all on 2 ranks, 2 iterations of each mode,
# into the test's own directory: the default grid (2x1x1, each rank's block
# one range of the file) and 1x1x2 (every row of the array split between the
# ranks, a strided view). Every row's #wrong (reads and the file read back
# with pread) must be 0; times are not asserted.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"
bench 2 2 -b 64K -e 256K -f 4 -i 2 -d "$work"
bench 2 2 -b 64K -e 256K -f 4 -i 2 -d "$work" -g 1x1x2
leftover=$(find "$work" -name 'io_tile.*' | head -n 1)
[ -z "$leftover" ] || fail "io_tile left $leftover behind"
