#!/bin/sh
# Ranks are plain PMIx clients, so Open MPI's launcher starts them too:
# Debian's mpirun.openmpi runs the ring example built against ompi-lite.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$HELPERS/ring"
if ! command -v mpirun.openmpi >/dev/null; then
    command -v apt-get >/dev/null && [ "$(id -u)" = 0 ] || { echo "no mpirun.openmpi"; exit 77; }
    # test/launcher/slurm.sh may run apt-get at the same time: wait for dpkg's lock.
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q openmpi-bin \
        >"$TMP/apt.log" 2>&1 ||
        fail "cannot install openmpi-bin: $(tail -3 "$TMP/apt.log")"
fi
# Open MPI's PMIx server prefers munge where munged runs, and slurm.sh may
# stop or restart munged (with a new key) meanwhile: a rank's credential
# would then fail the check and the rank MPI_Init (UNREACHABLE). This test
# is about the ranks as PMIx clients, not about munge.
rc=0
PMIX_MCA_psec=native timeout 60 mpirun.openmpi --allow-run-as-root --oversubscribe -np 2 "$HELPERS/ring" "$MARKER" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "mpirun.openmpi ring: status $rc: $(cat "$TMP/err")"
grep -qx "ring of 2 ranks: token came back with sum 1 (expected 1)" "$TMP/out" || fail "mpirun.openmpi ring: $(cat "$TMP/out")"
grep -qx "sum of rank^2 over 2 ranks, gathered at rank 0: 1 (expected 1)" "$TMP/out" || fail "mpirun.openmpi ring: $(cat "$TMP/out")"
check_no_leftovers
echo "openmpi: ok"
