# Sourced by the test/fortran/*.sh tests; not a test itself. As
# test/mpi/common.sh, for the programs built under test/fortran/.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

prog=$top_builddir/test/fortran/$(basename "$0" .sh)

# run_mpi NP ARGS...: runs $prog with ARGS on NP ranks.
run_mpi() {
    [ -x "$prog" ] || hard_error "$prog was not built"
    np=$1
    shift
    # shellcheck disable=SC2086
    capture $MPIRUN -np "$np" "$prog" "$@"
}
