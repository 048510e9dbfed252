#!/bin/sh
# dt_sendrecv: derived datatypes sent and received between ranks (vector,
# struct with holes, subarray, different but matching type signatures).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_mpi "$np"
    expect_success
    expect_out "^dt_sendrecv: OK"
done
