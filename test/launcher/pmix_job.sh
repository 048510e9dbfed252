#!/bin/sh
# Ranks as PMIx clients, as MPI_Init uses them: Put/Commit/Fence, job info
# (sizes, local/node ranks, host name, app number, local peers) and every
# peer's published key, for 1 to 8 ranks.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$PMIX_CLIENT"

for n in 1 2 3 4 5 6 7 8; do
    run_mpirun "$TMP/out" "$TMP/err" -np $n "$PMIX_CLIENT" check $n "$MARKER"
    [ "$rc" -eq 0 ] || fail "-np $n: exit status $rc; stderr: $(cat "$TMP/err")"
    [ "$(grep -c '^rank [0-9]* ok$' "$TMP/out")" -eq $n ] || fail "-np $n: expected $n 'ok' lines, got: $(cat "$TMP/out")"
    [ -s "$TMP/err" ] && fail "-np $n: unexpected stderr: $(cat "$TMP/err")"
done
check_no_leftovers
echo "pmix_job: ok"
