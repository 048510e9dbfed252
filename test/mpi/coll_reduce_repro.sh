#!/bin/sh
# OMPI_LITE_REPRODUCIBLE=1: floating-point sums have the same bits whatever
# algorithm is forced (the program checks reduce, allreduce and
# reduce_scatter_block against each other; here the checksums of runs with
# different forced algorithms must be equal), on 5 and 8 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 5 8; do
    first=
    for algo in recursive_doubling ring rabenseifner tree hierarchical; do
        OMPI_LITE_REPRODUCIBLE=1 OMPI_LITE_ALLREDUCE_ALGORITHM=$algo \
            OMPI_LITE_REDUCE_SCATTER_BLOCK_ALGORITHM=ring run_mpi "$np" repro
        expect_success
        expect_out "^coll_reduce repro: OK"
        sum=$(sed -n 's/^coll_reduce repro: checksum //p' "$work/out")
        [ -n "$sum" ] || fail "no checksum"
        [ -z "$first" ] || [ "$sum" = "$first" ] ||
            fail "$np ranks, $algo: checksum $sum differs from $first"
        first=$sum
    done
done
