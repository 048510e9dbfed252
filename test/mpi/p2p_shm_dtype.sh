#!/bin/sh
# p2p_shm_dtype: strided doubles and structs with holes against their
# contiguous forms, 8 B to 64 KiB, receive posted first and late; on 2, 3
# and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 30 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 30"

for np in 2 3 8; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_shm_dtype: $np ranks OK"
done
