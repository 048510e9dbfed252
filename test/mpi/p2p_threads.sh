#!/bin/sh
# p2p_threads: MPI_THREAD_MULTIPLE with 4 threads per rank exchanging 1000
# messages each round the ring, then buffered sends from every thread
# through one attached buffer; on 2 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_threads: $np ranks OK"
done
