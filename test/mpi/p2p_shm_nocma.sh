#!/bin/sh
# p2p_shm_nocma: where the kernel refuses process_vm_readv (a seccomp filter
# in every rank, the deny_cma shim, as some containers' policies do), large
# messages between ranks of one host go over UCX instead of being copied out
# of their sender, the log says why, and they all arrive in order
# (p2p_shm_order and p2p_shm_truncate on 3 ranks). UCX's own cma transport,
# which would fail the same way, is left out as a user there would.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

shim=$top_builddir/test/mpi/.libs/deny_cma.so
[ -f "$shim" ] || hard_error "$shim was not built"

for name in p2p_shm_order p2p_shm_truncate; do
    prog=$top_builddir/test/mpi/$name
    [ -x "$prog" ] || hard_error "$prog was not built"
    # shellcheck disable=SC2086 # $MPIRUN may carry options
    capture env OMPI_LITE_DEBUG=info $MPIRUN --timeout 30 -np 3 -x LD_PRELOAD="$shim" \
        -x UCX_TLS=^cma "$prog"
    expect_success
    expect_out "^$name: 3 ranks OK"
    expect_err "pt2pt: cannot read the memory of rank [0-9]+ \\(Operation not permitted\\)"
    expect_no_output "deny_cma: cannot install"
done
