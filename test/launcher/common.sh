# Shared by the launcher tests (sourced). Environment from test/local.mk:
# MPIRUN, top_srcdir, top_builddir. Each test exits 0 (pass), 1 (fail) or
# 77 (skip), and says why it failed.

: "${MPIRUN:?MPIRUN is not set (run through make check, or export it)}"
: "${top_builddir:=.}"
HELPERS="$top_builddir/test/launcher"
PMIX_CLIENT="$HELPERS/pmix_client"
IO_WRITER="$HELPERS/io_writer"
# A word no other process on the machine has in its command line, passed to
# every rank so that leftovers can be found with pgrep -f.
MARKER="oltest-$$-$(date +%s%N)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ol-launcher-test.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Fast failure tests: the kill grace only matters for ranks ignoring SIGTERM.
OMPI_LITE_KILL_GRACE_MS=${OMPI_LITE_KILL_GRACE_MS:-500}
export OMPI_LITE_KILL_GRACE_MS

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

need_helpers() {
    for h in "$@"; do
        [ -x "$h" ] || fail "helper $h was not built"
    done
}

# Fails if any process with MARKER (or a daemon) of this test is still alive.
# mpirun waits for its daemon and the daemon for its ranks, so there is
# nothing to wait for after mpirun returned; a short retry covers only the
# SIGKILL-of-mpirun case, where the daemon cleans up on its own.
check_no_leftovers() {
    tries=${1:-1}
    i=0
    while [ "$i" -lt "$tries" ]; do
        if ! pgrep -f "$MARKER" >/dev/null; then
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    echo "leftover processes:" >&2
    pgrep -af "$MARKER" >&2
    pkill -KILL -f "$MARKER"
    fail "processes of the job survived"
}

# run_mpirun OUT ERR ARGS...: runs mpirun, stores its status in $rc.
run_mpirun() {
    out=$1 err=$2
    shift 2
    rc=0
    "$MPIRUN" "$@" >"$out" 2>"$err" </dev/null || rc=$?
}

# Milliseconds since the epoch, for timing bounds.
now_ms() {
    echo $(($(date +%s%N) / 1000000))
}
