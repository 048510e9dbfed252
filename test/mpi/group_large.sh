#!/bin/sh
# group_large: translations, comparisons and MPI_Comm_create on groups of
# more members than ompi-lite scans one by one (20 ranks, oversubscribed).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

OMPI_LITE_OVERSUBSCRIBE=1 run_mpi 20
expect_success
expect_out "^group_large: 20 ranks OK"
