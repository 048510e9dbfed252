#!/bin/sh
# topo_cart: Cartesian grids of 1 to 3 dimensions, periodic or not, on 1 to
# 8 ranks (odd counts too): shifts, coordinates, subgrids, dup.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4 5 6 7 8; do
    run_mpi "$np"
    expect_success
    expect_out "^topo_cart: $np ranks OK"
done
