#!/bin/sh
# p2p_large: one message of 2^31 + 4096 bytes with MPI_Send_c/MPI_Recv_c on 2
# ranks (about 2 GiB per rank). Skipped where less than 6 GiB of memory is
# available.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt $((6 * 1024 * 1024)) ]; then
    echo "SKIP: only $avail_kb kB of memory available, 6 GiB needed"
    exit 77
fi
run_mpi 2
expect_success
expect_out "^p2p_large: 2147487744 bytes in"
expect_out "^p2p_large: 2 ranks OK"
