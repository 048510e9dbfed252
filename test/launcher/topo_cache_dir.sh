#!/bin/sh
# The daemon's topology cache, $TMPDIR/ompi-lite-<uid>, has a name anyone
# can compute: a directory of that name that another user made first
# (nobody, through setpriv, mode 0777), a link there to a directory of that
# user, or one of this user that others may read (0755), is not used. The
# daemon warns once, naming the directory and what is wrong, writes nothing
# into it, and the job runs. Then, with the name free, the daemon makes it
# itself, 0700, and caches the topology there. TMPDIR is a sticky scratch
# directory of the test, so the machine's own cache is left alone.
. "${top_srcdir:-.}/test/launcher/common.sh"
VICTIM="$HELPERS/shm_victim"
need_helpers "$VICTIM"
if "$MPIRUN" --version 2>&1 | grep -Eq 'Open MPI|OpenRTE'; then
    echo "skip: the cache is ompi-lite's daemon's"
    exit 77
fi
[ "$(id -u)" = 0 ] || { echo "skip: needs root, to act as a second user"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: needs setpriv"; exit 77; }
getent passwd nobody >/dev/null && getent group nogroup >/dev/null ||
    { echo "skip: needs the user nobody and the group nogroup"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ol-topo-cache.XXXXXX") || fail "mktemp"
trap 'rm -rf "$tmp" "$TMP"' EXIT
chmod 1777 "$tmp"
cache="$tmp/ompi-lite-$(id -u)"
as_nobody() {
    setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
}

# run_case WHAT REGEX: one job; one warning naming $cache and matching REGEX.
run_case() {
    TMPDIR=$tmp OMPI_LITE_TOPO_CACHE=1 run_mpirun "$TMP/out" "$TMP/err" --timeout 60 -np 2 \
        "$VICTIM" "$MARKER"
    sed "s/^/  $1: /" "$TMP/err"
    [ "$rc" -eq 0 ] || fail "$1: the job exited with status $rc: $(cat "$TMP/err")"
    grep -q '^shm_victim: 2 ranks OK' "$TMP/out" || fail "$1: no OK line"
    [ "$(grep -c -- "$cache: $2" "$TMP/err")" = 1 ] ||
        fail "$1: not one warning naming $cache and /$2/: $(cat "$TMP/err")"
}

as_nobody mkdir -m 0777 "$cache" || fail "cannot make $cache as nobody"
run_case "another user's" "owned by uid 65534"
[ -z "$(ls -A "$cache")" ] || fail "the daemon wrote into another user's directory: $(ls -A "$cache")"
rmdir "$cache"

as_nobody mkdir -m 0777 "$tmp/elsewhere" || fail "cannot make $tmp/elsewhere as nobody"
as_nobody ln -s "$tmp/elsewhere" "$cache" || fail "cannot make the link as nobody"
run_case "a link" "not a directory"
[ -z "$(ls -A "$tmp/elsewhere")" ] || fail "the daemon followed the link: $(ls -A "$tmp/elsewhere")"
rm "$cache"

mkdir -m 0755 "$cache"
run_case "mode 0755" "mode 0755"
[ -z "$(ls -A "$cache")" ] || fail "the daemon wrote into a directory others can read"
rmdir "$cache"

TMPDIR=$tmp OMPI_LITE_TOPO_CACHE=1 run_mpirun "$TMP/out" "$TMP/err" --timeout 60 -np 2 \
    "$VICTIM" "$MARKER"
[ "$rc" -eq 0 ] || fail "free name: the job exited with status $rc: $(cat "$TMP/err")"
! grep -q -- "$cache" "$TMP/err" || fail "free name: a warning: $(cat "$TMP/err")"
[ "$(stat -c '%a %u' "$cache")" = "700 $(id -u)" ] ||
    fail "the daemon's own cache is $(stat -c '%a %u' "$cache"), not 700 $(id -u)"
ls "$cache" | grep -q '^topo-.*\.xml$' || fail "no topology was cached: $(ls -A "$cache")"
check_no_leftovers
echo "topo_cache_dir: ok"
