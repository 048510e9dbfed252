#!/bin/sh
# Binding without --bind-to (as Open MPI): each rank on its own core while
# a host's ranks fit on its cores, unbound when they do not (more ranks
# than cores), and unbound with --bind-to none. --report-bindings says so;
# without it nothing is printed. The ranks print what the kernel applied.
. "${top_srcdir:-.}/test/launcher/common.sh"
host=$(hostname)
# More ranks than cpus is more than cores too.
cpus=$(grep -c ^processor /proc/cpuinfo)
allowed='grep Cpus_allowed_list /proc/self/status'
all=$(sh -c "$allowed" | awk '{print $2}')

# Bound by default: one core each, different cores (unless this host has
# a single core: then 2 ranks oversubscribe it).
run_mpirun "$TMP/out" "$TMP/err" -np 2 --report-bindings true
if ! grep -q "oversubscribed" "$TMP/err"; then
    grep -Eqx "\[$host\] rank 0 bound to core 0 \(PUs [0-9,-]+\)" "$TMP/err" &&
        grep -Eqx "\[$host\] rank 1 bound to core 1 \(PUs [0-9,-]+\)" "$TMP/err" ||
        fail "--report-bindings, 2 ranks: $(cat "$TMP/err")"
    run_mpirun "$TMP/out" "$TMP/err" -np 2 sh -c "$allowed" "$MARKER"
    [ "$rc" -eq 0 ] || fail "default binding, 2 ranks: status $rc: $(cat "$TMP/err")"
    [ ! -s "$TMP/err" ] || fail "default binding printed something without --report-bindings: $(cat "$TMP/err")"
    [ "$(sort -u "$TMP/out" | wc -l)" -eq 2 ] || fail "2 ranks not on different cpus: $(cat "$TMP/out")"
    if grep -qx "Cpus_allowed_list:	$all" "$TMP/out"; then
        fail "2 ranks: a rank was not bound: $(cat "$TMP/out")"
    fi
fi

# Oversubscribed (more ranks than cores): unbound, every cpu allowed.
np=$((cpus + 1))
run_mpirun "$TMP/out" "$TMP/err" -np "$np" --report-bindings sh -c "$allowed" "$MARKER"
[ "$rc" -eq 0 ] || fail "oversubscribed: status $rc: $(cat "$TMP/err")"
[ "$(grep -c "is not bound (the host is oversubscribed: $np ranks on [0-9]* cores)$" "$TMP/err")" -eq "$np" ] ||
    fail "oversubscribed, --report-bindings: $(cat "$TMP/err")"
[ "$(sort -u "$TMP/out")" = "Cpus_allowed_list:	$all" ] || fail "oversubscribed ranks were bound: $(cat "$TMP/out")"

# --bind-to none is respected.
run_mpirun "$TMP/out" "$TMP/err" -np 1 --bind-to none --report-bindings sh -c "$allowed" "$MARKER"
grep -qx "\[$host\] rank 0 is not bound (--bind-to none)" "$TMP/err" || fail "--bind-to none: $(cat "$TMP/err")"
[ "$(sort -u "$TMP/out")" = "Cpus_allowed_list:	$all" ] || fail "--bind-to none: the rank was bound: $(cat "$TMP/out")"
check_no_leftovers
echo "default_binding: ok"
