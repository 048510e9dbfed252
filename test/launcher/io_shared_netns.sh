#!/bin/sh
# Shared file pointers between hosts: io_access's shared-pointer parts
# (write_shared, iwrite_shared, write_ordered and its split form, records
# of several lengths from every rank at once) on 2 network-namespace hosts
# x 2 ranks, into a directory both hosts see (the namespaces share the file
# system). Every record must be in the file once, the ordered ones in rank
# order: a shared pointer kept in one host's memory fails. No process is
# left on either host.
NHOSTS=2
. "${top_srcdir:-.}/test/launcher/netns_common.sh"
ACCESS=$top_builddir/test/mpi/io_access
need_helpers "$ACCESS"

printf '%s slots=2\n%s slots=2\n' "$(h 0)" "$(h 1)" >"$TMP/hosts"
mkdir "$TMP/io" || fail "cannot make $TMP/io"

mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 --timeout 60 \
    "$ACCESS" "$TMP/io" shared ishared ordered ordered_begin records
[ "$rc" -eq 0 ] || fail "io_access on 2 hosts: status $rc: $(cat "$TMP/out" "$TMP/err")"
grep -q "^io_access: ranks on 2 hosts" "$TMP/out" ||
    fail "io_access did not see its ranks on 2 hosts: $(cat "$TMP/out")"
grep -q "^io_access: 4 ranks OK" "$TMP/out" ||
    fail "io_access on 2 hosts: $(cat "$TMP/out")"
check_hosts_empty 20

# Ranks alternating between the hosts: the next rank in order is always on
# the other host.
mpirun_on0 "$TMP/out" "$TMP/err" -hostfile "$TMP/hosts" -np 4 --map-by node --timeout 60 \
    "$ACCESS" "$TMP/io" ordered records
[ "$rc" -eq 0 ] || fail "io_access by node on 2 hosts: status $rc: $(cat "$TMP/out" "$TMP/err")"
grep -q "^io_access: 4 ranks OK" "$TMP/out" ||
    fail "io_access by node on 2 hosts: $(cat "$TMP/out")"
check_hosts_empty 20
