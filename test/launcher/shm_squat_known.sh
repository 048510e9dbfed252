#!/bin/sh
# Files of the job's names made first in /dev/shm, by another user where
# one can be used (nobody, through setpriv), else by this one, mode 0666,
# filled with 'Q': rank 1's rings and the first collective segment of rank
# 0 (MPI_COMM_WORLD's). The names are secret, so only the test-only
# parameter OMPI_LITE_SHM_TEST_NAME lets a test know them (ol_shm_file.h).
# Expected: the job (shm_victim, 3 ranks) runs right without rings and
# without that segment, warns once of each file, naming it, and neither
# file changes.
. "${top_srcdir:-.}/test/launcher/common.sh"
VICTIM="$HELPERS/shm_victim"
need_helpers "$VICTIM"
if "$MPIRUN" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then
    echo "skip: the files are ompi-lite's"
    exit 77
fi

base="/ol-test-squat-$$-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
p2p="/dev/shm${base}-p2p-1-0"
coll="/dev/shm${base}-coll-0-0"
trap 'rm -f "$p2p" "$coll"; rm -rf "$TMP"' EXIT
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && getent passwd nobody >/dev/null &&
    getent group nogroup >/dev/null; then
    squatter="setpriv --reuid=nobody --regid=nogroup --clear-groups"
else
    squatter=""
fi
for f in "$p2p" "$coll"; do
    # shellcheck disable=SC2086 # squatter is a command and its options
    $squatter sh -c 'head -c 8192 /dev/zero | tr "\0" Q >"$1" && chmod 0666 "$1"' sh "$f" ||
        fail "cannot make $f"
    cp "$f" "$TMP/$(basename "$f").orig"
done

OMPI_LITE_DEBUG=warn OMPI_LITE_SHM_TEST_NAME="$base" run_mpirun "$TMP/out" "$TMP/err" \
    --timeout 60 -np 3 "$VICTIM" "$MARKER"
sed 's/^/  err: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "the job exited with status $rc: $(cat "$TMP/err")"
grep -q '^shm_victim: 3 ranks OK' "$TMP/out" || fail "no OK line: $(cat "$TMP/out")"
for f in "$p2p" "$coll"; do
    [ "$(grep -c " warn .*$f" "$TMP/err")" = 1 ] || fail "not one warning naming $f"
    cmp -s "$f" "$TMP/$(basename "$f").orig" || fail "the job changed $f"
done
[ "$(grep -c ' warn ' "$TMP/err")" = 2 ] || fail "warnings of other things: $(cat "$TMP/err")"
grep -q "pt2pt: .*${base}-p2p-1-0.*keep UCX" "$TMP/err" || fail "the rings were not given up"
check_no_leftovers
echo "shm_squat_known: ok"
