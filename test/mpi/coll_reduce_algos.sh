#!/bin/sh
# coll_reduce with every algorithm of every reduction forced in turn
# (OMPI_LITE_<COLL>_ALGORITHM), on rank counts that are and are not powers
# of two. A forced algorithm whose restrictions fail (a commutative-only one
# with the matrix op) must fall back, not fail. Small pipeline segments make
# the trees pipeline even the small vectors.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# one set per line: allreduce reduce reduce_scatter(_block)
sets="recursive_doubling binomial recursive_halving
ring in_order ring
rabenseifner intercomm in_order
tree binomial intercomm
hierarchical in_order recursive_halving
intercomm binomial ring"

echo "$sets" | while read -r allreduce reduce rs; do
    for np in 3 6 8; do
        OMPI_LITE_ALLREDUCE_ALGORITHM=$allreduce OMPI_LITE_REDUCE_ALGORITHM=$reduce \
            OMPI_LITE_REDUCE_SCATTER_ALGORITHM=$rs OMPI_LITE_REDUCE_SCATTER_BLOCK_ALGORITHM=$rs \
            OMPI_LITE_ALLREDUCE_SEGMENT_BYTES=512 OMPI_LITE_REDUCE_SEGMENT_BYTES=512 \
            run_mpi "$np" grid
        expect_success
        expect_out "^coll_reduce grid: OK"
    done
done || exit 1
