#!/bin/sh
# bad_params: mistyped OMPI_LITE_ parameters (a collective algorithm of no
# such name, a ring size that is not a power of two, a number that is not
# one) and values out of a parameter's range (a switch of 2, a size of 0, a
# ring of 1 GiB that would take N^2 GiB of /dev/shm) are each named on
# stderr, with the range and what the library does instead, and the job
# still runs (the ring program, built again under this name, on 2 ranks).
# A UCX setting that UCX refuses fails MPI_Init with a sentence naming it.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

OMPI_LITE_ALLREDUCE_ALGORITHM=rign OMPI_LITE_P2P_SHM_RING_BYTES=5000 OMPI_LITE_SPIN_US=5us \
    run_mpi 2 100
expect_success
expect_out "^ring: 2 ranks, 100 laps OK"
expect_err "^ompi-lite: OMPI_LITE_ALLREDUCE_ALGORITHM=rign is not an algorithm of allreduce \\(recursive_doubling, ring, .*\\); each call chooses its own$"
expect_err "^ompi-lite: OMPI_LITE_P2P_SHM_RING_BYTES=5000 is not a power of two of at least 4096 .*; point-to-point keeps UCX's shared memory$"
expect_err "^ompi-lite: OMPI_LITE_SPIN_US=5us is not a valid value \\(an integer is expected\\); using "
expect_no_output "internal error"

OMPI_LITE_P2P_SHM=2 OMPI_LITE_P2P_SHM_RING_BYTES=1073741824 OMPI_LITE_BCAST_SEGMENT_SIZE=0 \
    OMPI_LITE_WAIT_POLL_MS=-1 run_mpi 2 100
expect_success
expect_out "^ring: 2 ranks, 100 laps OK"
expect_err "^ompi-lite: OMPI_LITE_P2P_SHM=2 is out of range \\(it takes 0 or 1\\); using 1$"
expect_err "^ompi-lite: OMPI_LITE_P2P_SHM_RING_BYTES=1073741824 is out of range \\(it takes 0 to 16777216\\); using 0$"
expect_err "^ompi-lite: OMPI_LITE_BCAST_SEGMENT_SIZE=0 is out of range \\(it takes 1 or more\\); using 65536$"
expect_err "^ompi-lite: OMPI_LITE_WAIT_POLL_MS=-1 is out of range \\(it takes 1 or more\\); using 100$"

UCX_MM_FIFO_SIZE=3 run_mpi 2 100
expect_failure
expect_err_line "error in MPI_Init" "UCX did not start .*UCX_MM_FIFO_SIZE=3"
