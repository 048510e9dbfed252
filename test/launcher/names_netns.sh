#!/bin/sh
# Published names served by the launcher (PMIx publish, lookup, unpublish:
# what MPI_Publish_name, MPI_Lookup_name and MPI_Unpublish_name call), over
# 2 network-namespace hosts, mpirun on host 0, the names_client program:
#  - rank 0 on host 0 publishes; rank 1 on host 1 finds the value with its
#    publisher, a second publish of the key is DUPLICATE KEY, a non-string
#    value and a lookup that would wait are NOT-SUPPORTED, its unpublish
#    succeeds (another process's name), a second one and a lookup then give
#    NOT-FOUND, on both hosts; two keys in one call are published
#    together, or neither when one is taken; unpublishing without keys
#    removes the caller's; with host 1's daemon mpirun's child, and host 0's;
#  - a spawned child (on host 1, its parent on host 0) finds the name its
#    parent published, owned by its parent.
# Each run: status 0, nothing left on either host.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
PROG=$HELPERS/names_client
need_helpers "$PROG"

# expect WHAT LINE: LINE is in $TMP/out.
expect() {
    grep -qx "$2" "$TMP/out" || fail "$1: no line '$2': $(cat "$TMP/out" "$TMP/err")"
}

printf '%s slots=1\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"

# Flat (both daemons mpirun's children), and a tree where host 1's daemon
# is host 0's child, so that its requests and answers pass through it.
for tree in "" "--param TREE_FANOUT=1"; do
    what="pair${tree:+ ($tree)}"
    mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/hosts" $tree -np 2 "$PROG" pair
    [ "$rc" -eq 0 ] || fail "$what: status $rc: $(cat "$TMP/out" "$TMP/err")"
    grep -q "^rank 1 lookup: SUCCESS value port-of-rank-0 owner .*:0$" "$TMP/out" ||
        fail "$what: rank 1 did not find rank 0's name: $(cat "$TMP/out" "$TMP/err")"
    expect "$what" "rank 0 publish: SUCCESS"
    expect "$what" "rank 1 publish again: DUPLICATE KEY"
    expect "$what" "rank 1 publish an integer: NOT-SUPPORTED"
    expect "$what" "rank 1 lookup with wait: NOT-SUPPORTED"
    expect "$what" "rank 1 unpublish: SUCCESS"
    expect "$what" "rank 1 unpublish again: NOT-FOUND"
    expect "$what" "rank 1 lookup after unpublish: NOT-FOUND"
    expect "$what" "rank 0 lookup after unpublish: NOT-FOUND"
    expect "$what" "rank 0 publish a and b: SUCCESS"
    expect "$what" "rank 0 publish c and a: DUPLICATE KEY"
    expect "$what" "rank 0 lookup c: NOT-FOUND"
    expect "$what" "rank 0 unpublish its own: SUCCESS"
    expect "$what" "rank 0 lookup a: NOT-FOUND"
    expect "$what" "rank 0 unpublish its own again: NOT-FOUND"
    grep -q "^rank 0 lookup b: SUCCESS value b owner .*:0$" "$TMP/out" ||
        fail "$what: rank 0 did not find b: $(cat "$TMP/out" "$TMP/err")"
    check_hosts_empty 20
done

# The child goes to host 1's free slot (host 0 has one, the parent's).
mpirun_on0 "$TMP/out" "$TMP/err" --timeout 60 -hostfile "$TMP/hosts" -np 1 "$PROG" parent "$PROG"
[ "$rc" -eq 0 ] || fail "spawn: status $rc: $(cat "$TMP/out" "$TMP/err")"
expect spawn "rank 0 publish: SUCCESS"
expect spawn "rank 0 spawn: SUCCESS"
expect spawn "child 0 on $(h 1)"
grep -q "^rank 0 child lookup: SUCCESS value port-of-the-parent owner .*:0$" "$TMP/out" ||
    fail "spawn: the child did not find its parent's name: $(cat "$TMP/out" "$TMP/err")"
expect spawn "rank 0 owner is the parent: yes"
check_hosts_empty 20
exit 0
