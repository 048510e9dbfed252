#!/bin/sh
# Ranks are plain PMIx clients, so Slurm starts them: a one-node Slurm
# (contrib/slurm-local.sh: installs the Debian packages if needed, starts
# munged, slurmctld, slurmd) runs the ring example with srun --mpi=pmix,
# and is stopped afterwards; MPI_Comm_spawn there fails, saying why.
. "${top_srcdir:-.}/test/launcher/common.sh"
DYN_SPAWN=$top_builddir/test/mpi/dyn_spawn
need_helpers "$HELPERS/ring" "$PMIX_CLIENT" "$DYN_SPAWN"
[ "$(id -u)" = 0 ] || { echo "needs root to run slurmd"; exit 77; }
command -v apt-get >/dev/null || command -v srun >/dev/null || { echo "no Slurm and no apt-get"; exit 77; }

SLURM_LOCAL="$top_srcdir/contrib/slurm-local.sh"
trap '"$SLURM_LOCAL" stop "$TMP/slurm" >/dev/null 2>&1; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
mkdir -p "$TMP/slurm"
"$SLURM_LOCAL" start "$TMP/slurm" >"$TMP/start.out" 2>&1 || fail "cannot start Slurm: $(cat "$TMP/start.out")"
SLURM_CONF=$TMP/slurm/slurm.conf
export SLURM_CONF

rc=0
timeout 60 srun --mpi=pmix -n 2 "$HELPERS/ring" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 0 ] || fail "srun ring: status $rc: $(cat "$TMP/err")"
grep -qx "ring of 2 ranks: token came back with sum 1 (expected 1)" "$TMP/out" || fail "srun ring: $(cat "$TMP/out")"
grep -qx "sum of rank^2 over 2 ranks, gathered at rank 0: 1 (expected 1)" "$TMP/out" || fail "srun ring: $(cat "$TMP/out")"

rc=0
timeout 60 srun --mpi=pmix -n 3 --overcommit "$PMIX_CLIENT" check 3 "$MARKER" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 0 ] && [ "$(grep -c '^rank [0-2] ok$' "$TMP/out")" -eq 3 ] ||
    fail "srun pmix_client: status $rc: $(cat "$TMP/out") $(cat "$TMP/err")"
# Slurm's PMIx does not spawn: MPI_Comm_spawn fails with a sentence that
# says so, on every rank.
rc=0
timeout 60 srun --mpi=pmix -n 2 --overcommit "$DYN_SPAWN" parent 1 >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -ne 0 ] || fail "srun spawn: status 0, expected a failure"
grep -q "error in MPI_Comm_spawn on rank 1 .*does not spawn processes.*MPI_ERR_SPAWN" "$TMP/err" ||
    fail "srun spawn: the root's sentence: $(cat "$TMP/err")"
echo "slurm: ok"
