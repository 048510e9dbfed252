#!/bin/sh
# io_gathered: one round of two-phase collective I/O of thousands of small
# interleaved pieces, written gathered from where they arrived (more than
# one pwritev's worth), with and without holes, one and two aggregators;
# the file byte for byte and the data read back, on 1 to 4 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 60"

for np in 1 2 3 4; do
    run_mpi "$np" "$work"
    expect_success
    expect_out "^io_gathered: $np ranks OK"
done

# The same in rounds of 16 KiB (IO_CB_WRITE_ROUND_KIB: a write that fits
# one window cut into rounds), whose writes the mover thread makes while
# the next round's pieces arrive; rank 0 sees that thread, and sees it
# gone after MPI_Finalize.
OL_TEST_MOVER=1 OMPI_LITE_IO_CB_WRITE_ROUND_KIB=16 run_mpi 4 "$work"
expect_success
expect_out "^io_gathered: 4 ranks OK"
