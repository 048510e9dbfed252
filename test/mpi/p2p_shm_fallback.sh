#!/bin/sh
# p2p_shm_fallback: a one-host job whose shared-memory rings do not fit in
# /dev/shm keeps UCX's shared memory, says why, and its messages arrive
# (p2p_shm_order on 4 ranks), instead of a rank dying by SIGBUS at its first
# message. A private /dev/shm of 40 MB in a mount namespace (needs root)
# holds UCX's own segments but not one rank's rings of 4 x 16 MiB.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

[ "$(id -u)" = 0 ] || { echo "needs root (a mount namespace)"; exit 77; }
command -v unshare >/dev/null || { echo "needs unshare"; exit 77; }
prog=$top_builddir/test/mpi/p2p_shm_order
[ -x "$prog" ] || hard_error "$prog was not built"

# shellcheck disable=SC2016,SC2086
capture unshare -m sh -c 'mount -t tmpfs -o size=40M tmpfs /dev/shm && exec "$@"' sh \
    env OMPI_LITE_DEBUG=warn OMPI_LITE_P2P_SHM_RING_BYTES=16777216 \
    $MPIRUN --timeout 30 -np 4 "$prog"
expect_success
expect_out "^p2p_shm_order: 4 ranks OK"
expect_err_line "pt2pt: cannot allocate" "ranks keep UCX's shared memory"
