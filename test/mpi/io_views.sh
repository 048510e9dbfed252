#!/bin/sh
# io_views: file views with holes (vector, indexed, a negative lower bound,
# a non-contiguous memory type), subarrays and darrays of doubles in C and
# Fortran order, written collectively and independently over a pre-filled
# file, against a hand-written model; get_view, get_byte_offset,
# get_type_extent, MPI_DISPLACEMENT_CURRENT. On 1, 2, 3 and 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 60"
mkdir "$work/io" || hard_error "cannot make $work/io"

for np in 1 2 3 4; do
    run_mpi "$np" "$work/io"
    expect_success
    expect_out "^io_views: $np ranks OK"
done
