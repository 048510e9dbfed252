#!/bin/sh
# coll_reduce_split: MPI_Reduce on 2 ranks of one host from 128 KiB, both
# ranks reducing a part in each other's buffers (coll/reduce_split.c): the
# results, the info log naming the way ("split" for the world's calls, the
# table's algorithm where one rank's type is strided or its elements are of
# another size), and the same results
# where the kernel refuses the writes (the root takes the rest back) or the
# reads (no split at all), through the deny_cma shim.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

shim=$top_builddir/test/mpi/.libs/deny_cma.so
[ -f "$shim" ] || hard_error "$shim was not built"
P=OMPI_LITE_
split_line="[: ]reduce on MPI_COMM_WORLD \\(2 processes, [0-9]+ bytes[^)]*\\): split \\("

# shellcheck disable=SC2086 # $MPIRUN may carry options
capture env ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN --timeout 60 -np 2 "$prog"
expect_success
expect_out "^coll_reduce_split: OK"
expect_err "$split_line"
expect_err "[: ]reduce on fallback \\(2 processes, 160000 bytes[^)]*\\): binomial \\("
expect_err "[: ]reduce on mixed \\(2 processes, 160000 bytes[^)]*\\): binomial \\("

# shellcheck disable=SC2086
capture env ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN --timeout 60 -np 2 \
    -x LD_PRELOAD="$shim" -x DENY_CMA_CALL=writev "$prog"
expect_success
expect_out "^coll_reduce_split: OK"
expect_err "$split_line"
expect_no_output "deny_cma: cannot install"

# shellcheck disable=SC2086
capture env ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN --timeout 60 -np 2 \
    -x LD_PRELOAD="$shim" -x UCX_TLS=^cma "$prog"
expect_success
expect_out "^coll_reduce_split: OK"
expect_no_output "\\): split \\("
expect_no_output "deny_cma: cannot install"
