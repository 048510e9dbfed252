#!/bin/sh
# bad_params: mistyped OMPI_LITE_ parameters (a collective algorithm of no
# such name, a ring size that is not a power of two, a number that is not
# one) are each named on stderr, with what the library does instead, and
# the job still runs (the ring program, built again under this name, on 2
# ranks).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

OMPI_LITE_ALLREDUCE_ALGORITHM=rign OMPI_LITE_P2P_SHM_RING_BYTES=-3 OMPI_LITE_SPIN_US=5us \
    run_mpi 2 100
expect_success
expect_out "^ring: 2 ranks, 100 laps OK"
expect_err "^ompi-lite: OMPI_LITE_ALLREDUCE_ALGORITHM=rign is not an algorithm of allreduce \\(recursive_doubling, ring, .*\\); each call chooses its own$"
expect_err "^ompi-lite: OMPI_LITE_P2P_SHM_RING_BYTES=-3 is not a power of two of at least 4096 .*; point-to-point keeps UCX's shared memory$"
expect_err "^ompi-lite: OMPI_LITE_SPIN_US=5us is not a valid value \\(an integer is expected\\); using "
