#!/bin/sh
# p2p_cancel_self: a cancelled send is either taken back before its receiver
# could get it or delivered intact; a message a probe has seen stays; a
# cancel of a send to the rank itself is decided within MPI_Cancel. On 1
# rank (which has no rings: UCX) and on 2, 3 and 6 over the shared-memory
# rings (on 3 also with 256 KiB announced rather than copied out of the
# sender); on 2 and 3 over UCX (OMPI_LITE_P2P_SHM=0); and with a sender
# and a receiver thread per rank under MPI_THREAD_MULTIPLE on 2 and 3 ranks
# (and 2 over UCX). The split of cancelled and delivered sends goes to the
# log.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang the program cannot see fails within 60 s, with mpirun's report of
# what every rank waits for; the program's own deadlines are 20 s.
MPIRUN="$MPIRUN --timeout 60"

for np in 1 2 3 6; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_cancel_self: [0-9]+ sends cancelled, [0-9]+ delivered"
    expect_out "^p2p_cancel_self: $np ranks OK"
done

# 256 KiB announced in the rings, its data over UCX, as where the kernel
# forbids copying out of the sender.
OMPI_LITE_P2P_SHM_CMA_BYTES=0 run_mpi 3
expect_success
expect_out "^p2p_cancel_self: 3 ranks OK"

for np in 2 3; do
    OMPI_LITE_P2P_SHM=0 run_mpi "$np"
    expect_success
    expect_out "^p2p_cancel_self: $np ranks OK"
done

for np in 2 3; do
    run_mpi "$np" threads
    expect_success
    expect_out "^p2p_cancel_self: $np ranks OK"
done

OMPI_LITE_P2P_SHM=0 run_mpi 2 threads
expect_success
expect_out "^p2p_cancel_self: 2 ranks OK"
