#!/bin/sh
# PMIx_Spawn through mpirun and the daemons (spawn_client stands in for
# MPI_Comm_spawn): the children run with the added environment entry, in the
# wdir, see their job size and PMIX_PARENT_ID, and tag as [1,rank]; a missing
# program starts nothing, gets the errno status and mpirun's line, and the
# parents go on; too many processes without --oversubscribe get
# OUT_OF_RESOURCE; a child killed by a signal ends the job, named.
. "${top_srcdir:-.}/test/launcher/common.sh"
SPAWN_CLIENT="$HELPERS/spawn_client"
need_helpers "$SPAWN_CLIENT"
WDIR="$TMP/wdir"
mkdir -p "$WDIR"

# 3 children of rank 0 of 2 parents, with a wdir.
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe --tag-output -np 2 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 3 "$WDIR" "" "$MARKER"
[ "$rc" -eq 0 ] || fail "spawn of 3: exit status $rc; stderr: $(cat "$TMP/err")"
grep -q '^\[0\] spawn status 0 nspace ompi-lite\..*\.spawn1$' "$TMP/out" || fail "spawn of 3: no success line: $(cat "$TMP/out")"
ns=$(sed -n 's/^\[0\] spawn status 0 nspace \(.*\)\.spawn1$/\1/p' "$TMP/out")
for r in 0 1 2; do
    grep -qx "\[1,$r\] child $r of 3 parent $ns:0 env=added cwd=$WDIR" "$TMP/out" ||
        fail "spawn of 3: child $r's line missing or wrong: $(cat "$TMP/out")"
done
[ -s "$TMP/err" ] && fail "spawn of 3: unexpected stderr: $(cat "$TMP/err")"

# A missing program: nothing starts, the errno status (PMIX_EXTERNAL_ERR_BASE - ENOENT), one line.
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe -np 2 "$SPAWN_CLIENT" parent /nonexistent/prog 2
[ "$rc" -eq 0 ] || fail "missing program: exit status $rc (the parents carry on); stderr: $(cat "$TMP/err")"
grep -qx 'spawn status -3002 nspace -' "$TMP/out" || fail "missing program: wrong status: $(cat "$TMP/out")"
[ "$(grep -c '^parent [01] done$' "$TMP/out")" -eq 2 ] || fail "missing program: parents did not finish: $(cat "$TMP/out")"
grep -q '^mpirun: rank 0 could not spawn /nonexistent/prog: cannot execute /nonexistent/prog on host .*: No such file or directory$' "$TMP/err" ||
    fail "missing program: mpirun's line: $(cat "$TMP/err")"
grep -q '^child' "$TMP/out" && fail "missing program: a child ran"

# A program that is not executable (a directory).
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe -np 1 "$SPAWN_CLIENT" parent "$WDIR" 1
grep -qx 'spawn status -3013 nspace -' "$TMP/out" || fail "directory as program: wrong status (EACCES): $(cat "$TMP/out")"

# More processes than free slots, without --oversubscribe: 1 slot, 1 running.
# (the suite's OMPI_LITE_OVERSUBSCRIBE=1 would allow it)
saved_oversubscribe=${OMPI_LITE_OVERSUBSCRIBE-}
OMPI_LITE_OVERSUBSCRIBE=0
export OMPI_LITE_OVERSUBSCRIBE
run_mpirun "$TMP/out" "$TMP/err" --host localhost:1 -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 2
OMPI_LITE_OVERSUBSCRIBE=$saved_oversubscribe
[ "$rc" -eq 0 ] || fail "no slots: exit status $rc; stderr: $(cat "$TMP/err")"
grep -qx 'spawn status -29 nspace -' "$TMP/out" || fail "no slots: wrong status (OUT_OF_RESOURCE): $(cat "$TMP/out")"
grep -q 'need 2 more slots than the hosts have free' "$TMP/err" || fail "no slots: mpirun's line: $(cat "$TMP/err")"
# ... and with 3 slots it fits.
run_mpirun "$TMP/out" "$TMP/err" --host localhost:3 -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 2
grep -q 'spawn status 0 ' "$TMP/out" || fail "3 slots: spawn of 2 failed: $(cat "$TMP/out") $(cat "$TMP/err")"

# A host the job does not have.
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 1 "" no-such-host-ol
grep -qx 'spawn status -46 nspace -' "$TMP/out" || fail "unknown host: wrong status (NOT_FOUND): $(cat "$TMP/out")"

# A child killed by a signal ends the job, named.
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 2 "" "" die
[ "$rc" -eq 137 ] || fail "child killed: exit status $rc, expected 137; stderr: $(cat "$TMP/err")"
grep -q '^mpirun: rank 1 of spawn 1 (pid [0-9]* on host .*) was killed by signal 9 (Killed)$' "$TMP/err" ||
    fail "child killed: mpirun's line: $(cat "$TMP/err")"
check_no_leftovers

# --timeout names the spawned processes still running (the parents are done).
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe --timeout 3 -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 2 "" "" "hang-$MARKER"
[ "$rc" -eq 124 ] || fail "hanging children: exit status $rc, expected 124; stderr: $(cat "$TMP/err")"
grep -q '^mpirun: the job did not finish within 3 s (--timeout); still running: spawn 1: 0-1 on host [^;]*$' "$TMP/err" ||
    fail "hanging children: the timeout line does not name them: $(cat "$TMP/err")"
check_no_leftovers

# --output-filename: the children's lines in DIR/1/spawn.1/rank.R/stdout,
# the parent's in DIR/1/rank.0/stdout, nothing on the terminal.
run_mpirun "$TMP/out" "$TMP/err" --oversubscribe --output-filename "$TMP/files" -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 2
[ "$rc" -eq 0 ] || fail "output files: exit status $rc; stderr: $(cat "$TMP/err")"
for r in 0 1; do
    grep -q "^child $r of 2 parent " "$TMP/files/1/spawn.1/rank.$r/stdout" 2>/dev/null ||
        fail "output files: child $r's line not in 1/spawn.1/rank.$r/stdout: $(find "$TMP/files" -type f | xargs cat)"
done
grep -qx "parent 0 done" "$TMP/files/1/rank.0/stdout" || fail "output files: the parent's line not in 1/rank.0/stdout"
[ -s "$TMP/out" ] && fail "output files: output on the terminal: $(cat "$TMP/out")"

# Spawned processes are bound by the first job's --bind-to, on the cores
# after those of the processes still running: the parent on core 0, its
# child on core 1 (wrapping round on a one-core machine).
if command -v nproc >/dev/null; then
    core=$((1 % $(nproc)))
    run_mpirun "$TMP/out" "$TMP/err" --bind-to core --report-bindings --host localhost:2 -np 1 "$SPAWN_CLIENT" parent "$SPAWN_CLIENT" 1
    [ "$rc" -eq 0 ] || fail "bound spawn: exit status $rc; stderr: $(cat "$TMP/err")"
    grep -Eq "^\[[^]]*\] rank 0 bound to core 0 \(PUs [0-9,-]+\)$" "$TMP/err" &&
        grep -Eq "^\[[^]]*\] rank 0 of spawn 1 bound to core $core \(PUs [0-9,-]+\)$" "$TMP/err" ||
        fail "bound spawn: binding lines: $(cat "$TMP/err")"
fi
echo "spawn: ok"
