#!/bin/sh
# OMPI_LITE_VECTOR_COPIES: the ranks' GLIBC_TUNABLES tells glibc's memcpy
# to keep off `rep movsb` (1; by default on AMD family 19h only), and glibc
# takes it; 0 leaves the environment alone; the user's own tunables stay
# (another one is kept beside it, the same one wins); a bad value is
# refused by mpirun with its name.
. "${top_srcdir:-.}/test/launcher/common.sh"

tunable=glibc.cpu.x86_rep_movsb_threshold
ours="$tunable=9223372036854775807"
show='echo "[$GLIBC_TUNABLES]"'

tunables_of_rank() { # [VAR=VALUE...]: what rank 0 sees in GLIBC_TUNABLES
    env "$@" "$MPIRUN" -np 1 sh -c "$show" "$MARKER" 2>"$TMP/err" || fail "$*: status $?: $(cat "$TMP/err")"
}

[ "$(tunables_of_rank OMPI_LITE_VECTOR_COPIES=1)" = "[$ours]" ] ||
    fail "VECTOR_COPIES=1: rank saw $(tunables_of_rank OMPI_LITE_VECTOR_COPIES=1)"
[ "$(tunables_of_rank OMPI_LITE_VECTOR_COPIES=0)" = "[]" ] ||
    fail "VECTOR_COPIES=0: rank saw $(tunables_of_rank OMPI_LITE_VECTOR_COPIES=0)"
[ "$(tunables_of_rank OMPI_LITE_VECTOR_COPIES=1 GLIBC_TUNABLES=glibc.malloc.check=0)" = "[glibc.malloc.check=0:$ours]" ] ||
    fail "VECTOR_COPIES=1 beside the user's malloc tunable: rank saw $(tunables_of_rank OMPI_LITE_VECTOR_COPIES=1 GLIBC_TUNABLES=glibc.malloc.check=0)"
[ "$(tunables_of_rank OMPI_LITE_VECTOR_COPIES=1 GLIBC_TUNABLES=$tunable=4096)" = "[$tunable=4096]" ] ||
    fail "the user's own $tunable was replaced: rank saw $(tunables_of_rank OMPI_LITE_VECTOR_COPIES=1 GLIBC_TUNABLES=$tunable=4096)"

# The default follows the CPU.
if grep -q '^vendor_id.*AuthenticAMD' /proc/cpuinfo && grep -q '^cpu family.*: 25$' /proc/cpuinfo; then
    expected="[$ours]"
else
    expected="[]"
fi
[ "$(tunables_of_rank)" = "$expected" ] || fail "default on this CPU: rank saw $(tunables_of_rank), expected $expected"

# glibc itself takes the value in the rank (x86-64 only: the tunable is x86's).
ldso=/lib64/ld-linux-x86-64.so.2
if [ "$(uname -m)" = x86_64 ] && [ -x "$ldso" ] && "$ldso" --list-tunables >/dev/null 2>&1; then
    OMPI_LITE_VECTOR_COPIES=1 "$MPIRUN" -np 1 "$ldso" --list-tunables >"$TMP/out" 2>"$TMP/err" ||
        fail "ld.so --list-tunables under mpirun: $(cat "$TMP/err")"
    grep -q "^$tunable: 0x7fffffffffffffff " "$TMP/out" ||
        fail "glibc did not take the threshold: $(grep rep_movsb "$TMP/out")"
fi

run_mpirun "$TMP/out" "$TMP/err" -np 1 --param VECTOR_COPIES=2 true "$MARKER"
[ "$rc" -ne 0 ] && grep -q "OMPI_LITE_VECTOR_COPIES must be a number from -1 to 1, not '2'" "$TMP/err" ||
    fail "VECTOR_COPIES=2: status $rc: $(cat "$TMP/err")"
check_no_leftovers
echo "vector_copies: ok"
