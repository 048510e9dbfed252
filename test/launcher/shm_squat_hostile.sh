#!/bin/sh
# Another user on the job's host (nobody, through setpriv) watches /dev/shm
# during a 4-rank job (shm_victim) and, for every ompi-lite file that
# appears, tries to open it for reading, and makes first, mode 0666, the
# names the other ranks' rings would have if they differed from the one it
# saw only by the rank (shm_squatter). A shim (slow_shm_open) holds back
# every rank's rings but rank 0's by 300 ms, so the watcher always has the
# time: the names must be what stops it. Expected: the watcher is denied
# (EACCES) every file it opens in time, the job writes into none of its
# files, runs over its own rings and collective segments, warns of nothing,
# and every message is right. The watcher and the job share a /dev/shm of
# their own (a mount namespace), so that the watcher sees the test's job
# only and never touches another job's files on the machine.
if [ -z "${SHM_SQUAT_INSIDE:-}" ] && [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
    SHM_SQUAT_INSIDE=1
    export SHM_SQUAT_INSIDE
    exec unshare -m sh -c 'mount -t tmpfs -o mode=1777,size=512M tmpfs /dev/shm && exec sh "$0"' "$0"
fi
. "${top_srcdir:-.}/test/launcher/common.sh"
VICTIM="$HELPERS/shm_victim"
SQUATTER="$HELPERS/shm_squatter"
SHIM="$HELPERS/.libs/slow_shm_open.so"
need_helpers "$VICTIM" "$SQUATTER"
[ -f "$SHIM" ] || fail "$SHIM was not built"
if "$MPIRUN" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then
    echo "skip: the files are ompi-lite's"
    exit 77
fi
[ "$(id -u)" = 0 ] || { echo "skip: needs root, to act as a second user"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: needs setpriv"; exit 77; }
getent passwd nobody >/dev/null && getent group nogroup >/dev/null ||
    { echo "skip: needs the user nobody and the group nogroup"; exit 77; }

[ -n "${SHM_SQUAT_INSIDE:-}" ] || { echo "skip: needs unshare (a /dev/shm of its own)"; exit 77; }

setpriv --reuid=nobody --regid=nogroup --clear-groups "$SQUATTER" 8 >"$TMP/watch" 2>&1 &
watcher=$!
for _ in $(seq 50); do
    grep -q '^watching' "$TMP/watch" && break
    sleep 0.1
done
grep -q '^watching' "$TMP/watch" || { kill "$watcher"; fail "the watcher did not start: $(cat "$TMP/watch")"; }

LD_PRELOAD="$SHIM" OMPI_LITE_DEBUG=info run_mpirun "$TMP/out" "$TMP/err" --timeout 60 -np 4 \
    "$VICTIM" "$MARKER"
kill -TERM "$watcher"
wait "$watcher"
sed 's/^/  watcher: /' "$TMP/watch"
sed "s/^/  err: /" "$TMP/err" | grep -v " info " || true
[ -z "${SHM_SQUAT_DEBUG:-}" ] || cat "$TMP/err"

[ "$rc" -eq 0 ] || fail "the job exited with status $rc: $(cat "$TMP/err")"
grep -q '^shm_victim: 4 ranks OK' "$TMP/out" || fail "no OK line: $(cat "$TMP/out")"
summary=$(grep '^seen ' "$TMP/watch") || fail "the watcher printed no summary"
n() { echo "$summary" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }
[ "$(n readable)" = 0 ] || fail "another user could open files of the job: $(grep READABLE "$TMP/watch")"
[ "$(n written)" = 0 ] || fail "the job wrote into files another user made: $(grep WRITTEN "$TMP/watch")"
# Else the test proves nothing: the watcher saw no file, or was never in time.
grep -q '^denied ompi-lite-.*-p2p-' "$TMP/watch" || fail "the watcher opened no rings in time"
[ "$(n squatted)" -gt 0 ] || fail "the watcher made no file first"
# The job kept its own rings and segments, and was quiet about the watcher.
grep -q 'pt2pt: matching over shared-memory rings' "$TMP/err" || fail "the job did not use its rings"
grep -q 'coll: .*: shm ' "$TMP/err" || fail "the job did not use its collective segments"
! grep -q ' warn ' "$TMP/err" || fail "the job warned: $(grep ' warn ' "$TMP/err")"
check_no_leftovers
echo "shm_squat_hostile: ok (${summary})"
