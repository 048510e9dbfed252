#!/bin/sh
# p2p_bounce: non-contiguous messages below, at and above the size up to
# which they go through a bounce buffer (OMPI_LITE_BOUNCE_BYTES), with the
# default (2048) on 2 and 3 ranks, with 256 and with 0 (never) on 2 ranks,
# and from 4 threads per rank under MPI_THREAD_MULTIPLE on 2 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    run_mpi "$np" 2048
    expect_success
    expect_out "^p2p_bounce: $np ranks OK"
done

# BOUNCE_BYTES=0: the same sizes as by default, all through UCX's generic
# datatype, which must give the same results.
for setting in 256:256 0:2048; do
    OMPI_LITE_BOUNCE_BYTES=${setting%:*}
    export OMPI_LITE_BOUNCE_BYTES
    run_mpi 2 "${setting#*:}"
    expect_success
    expect_out "^p2p_bounce: 2 ranks OK"
done
unset OMPI_LITE_BOUNCE_BYTES

run_mpi 2 2048 threads
expect_success
expect_out "^p2p_bounce: 2 ranks OK"
