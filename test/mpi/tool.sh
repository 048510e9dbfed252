#!/bin/sh
# tool: the tool information interface (MPI_T, see tool.c). Every control
# variable, read before MPI_Init in a singleton, is a parameter that
# ompi_lite_info --params lists, with the same value, and every parameter
# it lists is one; the structure checks on 1 to 4 ranks (MPI_T before
# MPI_Init and after MPI_Finalize, error classes); ompi-lite's own
# variables on 2 and 4 ranks: one set through the environment, a
# collective's forced algorithm written while MPI runs, a counter of
# messages that grows only while started.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

info=$top_builddir/ompi-lite/tools/ompi_lite_info
[ -x "$info" ] || hard_error "$info was not built"

capture timeout 60 "$prog" list
expect_success
expect_out "^tool: list OK"
grep '^cvar ' "$work/out" | awk '{ print $2, $3, $4 }' | sort >"$work/cvars"
"$info" --params >"$work/params" || fail "ompi_lite_info --params failed"
# "OMPI_LITE_X = VALUE [(from the environment)]", then "    default: ...".
grep '^OMPI_LITE_' "$work/params" | sed 's/ (from the environment)$//' |
    awk '{ print $1, $3 }' | sort >"$work/expected"
awk '{ print $1, $3 }' "$work/cvars" >"$work/got"
[ -s "$work/expected" ] || fail "ompi_lite_info --params listed no parameter"
diff "$work/expected" "$work/got" >"$work/diff" ||
    fail "the control variables differ from ompi_lite_info --params (< params, > cvars): $(cat "$work/diff")"
# An int variable's value is an integer (strings are what they are).
bad=$(awk '$2 == "int" && $3 !~ /^-?[0-9]+$/' "$work/cvars")
[ -z "$bad" ] || fail "int variables with values that are no integer: $bad"

for np in 1 2 3 4; do
    OMPI_LITE_OVERSUBSCRIBE=1 run_mpi "$np" structure
    expect_success
    expect_out "^tool: structure OK"
done

for np in 2 4; do
    OMPI_LITE_OVERSUBSCRIBE=1 OMPI_LITE_YIELD_US=123 run_mpi "$np" own
    expect_success
    expect_out "^tool: own OK"
done
