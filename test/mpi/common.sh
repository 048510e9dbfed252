# Sourced by every test/mpi/*.sh test; not a test itself.
#
# Each test script runs the program of the same name ($prog), built by
# make check under test/mpi/, through $MPIRUN with several rank counts. The
# output of each run is kept for the checks and copied, prefixed, to the
# test's log so that a failure can be read there. A failed check exits 1; a
# broken set-up (no launcher, program not built) exits 99, which the harness
# reports as ERROR rather than FAIL.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

prog=$top_builddir/test/mpi/$(basename "$0" .sh)
[ -x "$prog" ] || hard_error "$prog was not built"

# run_mpi NP ARGS...: runs $prog with ARGS on NP ranks. $MPIRUN is left
# unquoted on purpose: it may carry options (e.g. Open MPI's --oversubscribe).
run_mpi() {
    np=$1
    shift
    # shellcheck disable=SC2086
    capture $MPIRUN -np "$np" "$prog" "$@"
}
