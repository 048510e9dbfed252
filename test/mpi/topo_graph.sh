#!/bin/sh
# topo_graph: graph and distributed graph topologies on 1 to 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4 5 8; do
    run_mpi "$np"
    expect_success
    expect_out "^topo_graph: $np ranks OK"
done
