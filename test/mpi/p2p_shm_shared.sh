#!/bin/sh
# p2p_shm_shared: large messages that a waiting sender helps its receiver
# copy (128 KiB to 5 MiB + 3: windows of MPI_Isend, MPI_Ssend to a late
# receive, a sender computing meanwhile, a derived receive type, a
# truncated receive, 80 in flight) arrive whole; on 2 ranks, where the
# sender says at the end that it wrote chunks (a host of 2 cores or more),
# on 3, and on 2 where the kernel refuses process_vm_writev (the deny_cma
# shim): the sender says it cannot help, and its receivers copy alone.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

# A hang fails within 60 s, with mpirun's report of what every rank waits
# for, well inside the harness's limit.
MPIRUN="$MPIRUN --timeout 60"

# Copies are shared only while a job has no more ranks than the host has cores.
cores=$(getconf _NPROCESSORS_ONLN)

# Whether the sender takes a chunk depends on both ranks being on a core at
# once, which a host busy with other jobs (the suite's own, in parallel)
# does not promise: every run must deliver whole messages, and one of up to
# five, each sender polling for 1 ms before it yields, must show a shared copy.
shared='pt2pt: wrote [1-9][0-9]* chunks \([0-9]+ bytes\) of large messages into their receivers'
for attempt in 1 2 3 4 5; do
    OMPI_LITE_DEBUG=info OMPI_LITE_SPIN_US=1000 run_mpi 2
    expect_success
    expect_out "^p2p_shm_shared: 2 ranks OK"
    [ "$cores" -ge 2 ] || break
    grep -Eq -- "$shared" "$work/err" && break
    [ "$attempt" -lt 5 ] || fail "no line of stderr of 5 runs matches /$shared/"
done

run_mpi 3
expect_success
expect_out "^p2p_shm_shared: 3 ranks OK"

[ "$cores" -ge 2 ] || exit 0
shim=$top_builddir/test/mpi/.libs/deny_cma.so
[ -f "$shim" ] || hard_error "$shim was not built"
# shellcheck disable=SC2086 # $MPIRUN may carry options
capture env OMPI_LITE_DEBUG=info $MPIRUN -np 2 -x LD_PRELOAD="$shim" -x DENY_CMA_CALL=writev \
    "$prog"
expect_success
expect_out "^p2p_shm_shared: 2 ranks OK"
expect_err "pt2pt: cannot write into the memory of rank [01] \\(Operation not permitted\\): it copies"
expect_no_output "pt2pt: wrote"
expect_no_output "deny_cma: cannot install"
