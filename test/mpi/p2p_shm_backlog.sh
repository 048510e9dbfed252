#!/bin/sh
# p2p_shm_backlog: a sender whose messages wait for ring room goes on
# while it waits for an answer, woken by the receiver that makes the room
# instead of sleeping until the wait's timeout (an hour here,
# OMPI_LITE_WAIT_POLL_MS): mpirun's timeout of 30 s would end a job that
# stalls. 2 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

MPIRUN="$MPIRUN --timeout 30"
OMPI_LITE_WAIT_POLL_MS=3600000 run_mpi 2
expect_success
expect_out "^p2p_shm_backlog: 2 ranks OK"
