#!/bin/sh
# Command-line features on one host: --tag-output, --output-filename,
# -x/-genv/--param, -wdir, MPMD with MPI_APPNUM, default -np from slots,
# --host/--hostfile naming this host, -N, --bind-to/--map-by with
# --report-bindings, --timeout and MPIEXEC_TIMEOUT.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$PMIX_CLIENT"
host=$(hostname)

run_mpirun "$TMP/out" "$TMP/err" -np 3 --tag-output sh -c 'echo "hello $OMPI_LITE_RANK"; echo "oops $OMPI_LITE_RANK" >&2' "$MARKER"
[ "$rc" -eq 0 ] || fail "--tag-output: status $rc"
for r in 0 1 2; do
    grep -qx "\[$r\] hello $r" "$TMP/out" || fail "--tag-output: no '[$r] hello $r': $(cat "$TMP/out")"
    grep -qx "\[$r\] oops $r" "$TMP/err" || fail "--tag-output: stderr not tagged: $(cat "$TMP/err")"
done

run_mpirun "$TMP/out" "$TMP/err" -np 2 --output-filename "$TMP/o" sh -c 'echo "out $OMPI_LITE_RANK"; echo "err $OMPI_LITE_RANK" >&2' "$MARKER"
[ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] || fail "--output-filename: status $rc, terminal got: $(cat "$TMP/out")"
for r in 0 1; do
    [ "$(cat "$TMP/o/1/rank.$r/stdout")" = "out $r" ] && [ "$(cat "$TMP/o/1/rank.$r/stderr")" = "err $r" ] ||
        fail "--output-filename: rank $r's files are wrong"
done

# --output-filename keeps output to its owner (0700/0600 whatever the
# umask) unless OMPI_LITE_OUTPUT_UMASK=1 asks for the umask.
modes() {
    echo "$(stat -c %a "$1/1") $(stat -c %a "$1/1/rank.0") $(stat -c %a "$1/1/rank.0/stdout")"
}
(umask 022 && run_mpirun "$TMP/out" "$TMP/err" -np 1 --output-filename "$TMP/m" echo "$MARKER" &&
    [ "$rc" -eq 0 ]) || fail "--output-filename modes: status $rc: $(cat "$TMP/err")"
[ "$(modes "$TMP/m")" = "700 700 600" ] || fail "--output-filename: modes $(modes "$TMP/m"), expected 700 700 600"
(umask 022 && OMPI_LITE_OUTPUT_UMASK=1 run_mpirun "$TMP/out" "$TMP/err" -np 1 --output-filename "$TMP/u" echo "$MARKER")
[ "$(modes "$TMP/u")" = "755 755 644" ] || fail "OMPI_LITE_OUTPUT_UMASK=1: modes $(modes "$TMP/u"), expected 755 755 644"
# A symbolic link planted at an output file's name, or at a directory
# mpirun makes, is not followed: a message, and its target is untouched.
mkdir -p "$TMP/s/1/rank.0" "$TMP/elsewhere"
echo keep >"$TMP/target"
ln -s "$TMP/target" "$TMP/s/1/rank.0/stdout"
run_mpirun "$TMP/out" "$TMP/err" -np 1 --output-filename "$TMP/s" echo "$MARKER"
[ "$(cat "$TMP/target")" = keep ] || fail "--output-filename followed a symbolic link: target now $(cat "$TMP/target")"
grep -q "rank.0/stdout: it is a symbolic link, which mpirun does not follow" "$TMP/err" ||
    fail "--output-filename, planted link: no message: $(cat "$TMP/err")"
mkdir -p "$TMP/d/1"
ln -s "$TMP/elsewhere" "$TMP/d/1/rank.0"
run_mpirun "$TMP/out" "$TMP/err" -np 1 --output-filename "$TMP/d" echo "$MARKER"
[ -z "$(ls "$TMP/elsewhere")" ] || fail "--output-filename wrote through a linked directory: $(ls "$TMP/elsewhere")"
grep -q "/d/1/rank.0: it is a symbolic link, which mpirun does not follow" "$TMP/err" || fail "--output-filename, linked directory: no message: $(cat "$TMP/err")"

export OL_TEST_FROM_MPIRUN=inherited
run_mpirun "$TMP/out" "$TMP/err" -np 2 -x OL_TEST_A=1 -x OL_TEST_FROM_MPIRUN -genv OL_TEST_B "two words" \
    --param coll_thing=5 -wdir "$TMP" sh -c 'echo "$OL_TEST_A/$OL_TEST_FROM_MPIRUN/$OL_TEST_B/$OMPI_LITE_COLL_THING/$(pwd)"' "$MARKER"
[ "$rc" -eq 0 ] || fail "-x/-genv/--param/-wdir: status $rc: $(cat "$TMP/err")"
[ "$(sort -u "$TMP/out")" = "1/inherited/two words/5/$TMP" ] || fail "-x/-genv/--param/-wdir: got $(cat "$TMP/out")"

run_mpirun "$TMP/out" "$TMP/err" -wdir "$TMP/no-such-dir" -np 1 true
[ "$rc" -ne 0 ] && grep -q "could not change to directory $TMP/no-such-dir" "$TMP/err" || fail "bad -wdir: $(cat "$TMP/err")"

# MPMD: 2 + 3 ranks of two programs; ranks learn their app number.
run_mpirun "$TMP/out" "$TMP/err" -np 2 "$PMIX_CLIENT" appnum "$MARKER" : -np 3 "$PMIX_CLIENT" appnum "$MARKER"
[ "$rc" -eq 0 ] || fail "MPMD: status $rc: $(cat "$TMP/err")"
for r in 0 1; do grep -qx "rank $r appnum 0" "$TMP/out" || fail "MPMD: rank $r: $(cat "$TMP/out")"; done
for r in 2 3 4; do grep -qx "rank $r appnum 1" "$TMP/out" || fail "MPMD: rank $r: $(cat "$TMP/out")"; done
run_mpirun "$TMP/out" "$TMP/err" -np 1 true : echo x
[ "$rc" -ne 0 ] && grep -q "each needs -np" "$TMP/err" || fail "MPMD without -np: $(cat "$TMP/err")"

# Hosts naming this host: slots give the default -np; more needs --oversubscribe.
run_mpirun "$TMP/out" "$TMP/err" --host "$host:3" sh -c 'echo $OMPI_LITE_RANK' "$MARKER"
[ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/out")" -eq 3 ] || fail "--host $host:3: status $rc, $(cat "$TMP/out")"
printf '# this host\n%s slots=2\n' "$host" >"$TMP/hosts"
OMPI_LITE_OVERSUBSCRIBE=0 # the harness allows it; this check wants the refusal
run_mpirun "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 3 true
OMPI_LITE_OVERSUBSCRIBE=1
[ "$rc" -ne 0 ] && grep -q "3 processes requested, but only 2 slots are available" "$TMP/err" ||
    fail "3 ranks on 2 slots: status $rc: $(cat "$TMP/err")"
run_mpirun "$TMP/out" "$TMP/err" --machinefile "$TMP/hosts" -np 3 --oversubscribe true
[ "$rc" -eq 0 ] || fail "--oversubscribe: $(cat "$TMP/err")"
run_mpirun "$TMP/out" "$TMP/err" -H "$host" -ppn 2 --oversubscribe sh -c 'echo $OMPI_LITE_LOCAL_SIZE' "$MARKER"
[ "$(sort -u "$TMP/out")" = 2 ] || fail "-ppn 2: $(cat "$TMP/out") $(cat "$TMP/err")"

# Binding: each rank on its own core, reported; PE=2 takes both cores.
cores=$(grep -c ^processor /proc/cpuinfo)
run_mpirun "$TMP/out" "$TMP/err" -np 2 --bind-to core --report-bindings sh -c 'grep Cpus_allowed_list /proc/self/status' "$MARKER"
[ "$rc" -eq 0 ] || fail "--bind-to core: $(cat "$TMP/err")"
grep -Eq "^\[$host\] rank 0 bound to core 0 \(PUs [0-9]+\)$" "$TMP/err" || fail "--report-bindings: $(cat "$TMP/err")"
if [ "$cores" -ge 2 ]; then
    [ "$(sort -u "$TMP/out" | wc -l)" -eq 2 ] || fail "--bind-to core: both ranks on the same cpus: $(cat "$TMP/out")"
    run_mpirun "$TMP/out" "$TMP/err" -np 1 --map-by core:PE=2 --report-bindings true
    grep -q "rank 0 bound to cores 0,1" "$TMP/err" || fail "PE=2: $(cat "$TMP/err")"
fi
# Without --bind-to a rank that has a core of its own is bound to it
# (default_binding.sh has the rest).
run_mpirun "$TMP/out" "$TMP/err" -np 1 --report-bindings true
grep -Eq "rank 0 bound to core 0 \(PUs [0-9,-]+\)$" "$TMP/err" || fail "default binding: $(cat "$TMP/err")"

# --timeout names the ranks still running.
run_mpirun "$TMP/out" "$TMP/err" -np 2 --timeout 1 "$PMIX_CLIENT" sleep 30 "$MARKER"
[ "$rc" -eq 124 ] && grep -qx "mpirun: the job did not finish within 1 s (--timeout); still running: 0-1 on host $host" "$TMP/err" ||
    fail "--timeout: status $rc: $(cat "$TMP/err")"
# MPIEXEC_TIMEOUT does the same when --timeout is not given (MPICH's test
# harness sets it for every test); --timeout wins over it.
MPIEXEC_TIMEOUT=1 run_mpirun "$TMP/out" "$TMP/err" -np 2 "$PMIX_CLIENT" sleep 30 "$MARKER"
[ "$rc" -eq 124 ] && grep -qx "mpirun: the job did not finish within 1 s (MPIEXEC_TIMEOUT); still running: 0-1 on host $host" "$TMP/err" ||
    fail "MPIEXEC_TIMEOUT: status $rc: $(cat "$TMP/err")"
MPIEXEC_TIMEOUT=1 run_mpirun "$TMP/out" "$TMP/err" -np 1 --timeout 30 "$PMIX_CLIENT" sleep 2 "$MARKER"
[ "$rc" -eq 0 ] || fail "--timeout 30 with MPIEXEC_TIMEOUT=1: status $rc: $(cat "$TMP/err")"
check_no_leftovers
echo "options: ok"
