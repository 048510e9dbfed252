#!/bin/sh
# Checks mpi.h against the ABI table: every row of ompi-lite/abi/constants.tsv
# must be defined with exactly its value and C type, and the ABI's types must
# have their sizes and layout. The check program is generated from the table,
# so a row added to the table is checked without editing this test.
# Also checks that the vendored table equals ../shared/abi's where that exists.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}
table=$top_srcdir/ompi-lite/abi/constants.tsv
shared=$top_srcdir/../shared/abi/constants.tsv

fail() { echo "abi-constants: FAIL: $*"; exit 1; }

[ -r "$table" ] || fail "no table at $table"
if [ -r "$shared" ] && ! cmp -s "$table" "$shared"; then
    diff "$shared" "$table"
    fail "ompi-lite/abi/constants.tsv differs from ../shared/abi/constants.tsv"
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# One check per row. _Generic gives the type of an expression in standard
# C11; an int-define must also work in #if, which only the preprocessor sees.
{
    cat <<'EOF'
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

static int failures;

static void fail(const char *name, const char *what)
{
    printf("%s: %s\n", name, what);
    failures++;
}

#define CHECK_TYPE(expr, type) _Generic((expr), type: 1, default: 0)
#define CHECK_VALUE(expr, value) ((long long)(intptr_t)(expr) == (long long)(value))

int main(void)
{
    /* The types of the ABI (abi/README.md), which the table does not list. */
    if (!CHECK_TYPE((MPI_Aint)0, intptr_t)) fail("MPI_Aint", "is not intptr_t");
    if (!CHECK_TYPE((MPI_Offset)0, int64_t)) fail("MPI_Offset", "is not int64_t");
    if (!CHECK_TYPE((MPI_Count)0, MPI_Offset)) fail("MPI_Count", "is not MPI_Offset");
    if (sizeof(MPI_Status) != 8 * sizeof(int)) fail("MPI_Status", "is not 8 ints");
    if (offsetof(MPI_Status, MPI_SOURCE) != 0 || offsetof(MPI_Status, MPI_TAG) != sizeof(int)
        || offsetof(MPI_Status, MPI_ERROR) != 2 * sizeof(int))
        fail("MPI_Status", "fields are not MPI_SOURCE, MPI_TAG, MPI_ERROR first");
    if (sizeof(MPI_Comm) != sizeof(void *)) fail("MPI_Comm", "is not pointer-sized");
EOF
    awk -F '\t' '
    function check(cond, name, what) {
        printf "    if (!(%s)) fail(\"%s\", \"%s\");\n", cond, name, what
    }
    NR == 1 { next }
    { kind[NR] = $1; name[NR] = $2; ctype[NR] = $3; value[NR] = $4; type_of[$2] = $3 }
    END {
        for (i = 2; i <= NR; i++) {
            n = name[i]; v = value[i]
            if (kind[i] == "pointer-constant") {
                check("CHECK_VALUE(" n ", " v ")", n, "value is not " v)
                check("CHECK_TYPE(" n ", " ctype[i] ")", n, "type is not " ctype[i])
            } else if (kind[i] == "int-enum") {
                check("CHECK_VALUE(" n ", " v ")", n, "value is not " v)
                check("CHECK_TYPE(" n ", int)", n, "type is not int")
            } else if (kind[i] == "int-define") {
                printf "#if !defined(%s) || (%s) != (%s)\n", n, n, v
                printf "    fail(\"%s\", \"is not a #define of %s usable in #if\");\n", n, v
                printf "#endif\n"
                check("CHECK_TYPE(" n ", int)", n, "type is not int")
            } else if (kind[i] == "alias" && (v in type_of)) {
                check("CHECK_VALUE(" n ", " v ")", n, "does not equal " v)
                check("CHECK_TYPE(" n ", " type_of[v] ")", n, "type is not " type_of[v])
            } else if (kind[i] == "alias") {
                # The target is a type, not a constant of the table.
                check("CHECK_TYPE((" n ")0, " v ")", n, "is not the type " v)
            } else {
                printf "    fail(\"%s\", \"has unknown kind %s\");\n", n, kind[i]
            }
        }
    }' "$table"
    cat <<'EOF'
    return failures ? 1 : 0;
}
EOF
} > "$tmp/check.c"

if ! $CC -std=c11 -I"$top_srcdir/ompi-lite/include" -o "$tmp/check" "$tmp/check.c" \
        > "$tmp/cc.log" 2>&1; then
    cat "$tmp/cc.log"
    fail "the generated check program does not compile (a constant missing from mpi.h?)"
fi
"$tmp/check" > "$tmp/run.log"
status=$?
if [ $status -ne 0 ]; then
    cat "$tmp/run.log"
    fail "$(wc -l < "$tmp/run.log") constants differ from the table"
fi
echo "abi-constants: $(($(wc -l < "$table") - 1)) constants match the table"
exit 0
