#!/bin/sh
# Start-up time of a small MPI job under ompi-lite's mpirun and the Debian
# peers (Open MPI's mpirun.openmpi, MPICH's mpiexec.mpich): builds
# contrib/examples/hello.c with each one's mpicc, runs it N times per
# launcher, alternating A B C A B C so that machine noise hits all alike,
# and prints the median wall time of each and ompi-lite's ratio to the
# faster peer.
#
#   contrib/bench-startup.sh [-n RUNS] [-p NP[,NP...]] [--mpirun PATH]
#                            [--mpicc PATH] [--prog PROGRAM] [--only LIST]
#   -n RUNS       runs per launcher and NP (default 10)
#   -p NP,...     process counts (default 8), e.g. -p 8,64
#   --mpirun P    ompi-lite's mpirun (default $PREFIX/bin/mpirun)
#   --mpicc P     ompi-lite's mpicc (default: next to --mpirun)
#   --prog P      run P instead of the built hello (e.g. /bin/true: launcher only)
#   --only L      comma list of ompi-lite,openmpi,mpich (default: all found)
set -eu

runs=10
nps=8
mpirun=${PREFIX:+$PREFIX/bin/mpirun}
mpicc=
prog=
only=ompi-lite,openmpi,mpich
while [ $# -gt 0 ]; do
    case $1 in
    -n) runs=$2; shift 2 ;;
    -p) nps=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --mpicc) mpicc=$2; shift 2 ;;
    --prog) prog=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-startup.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
src=$here/examples/hello.c
work=$(mktemp -d "${TMPDIR:-/tmp}/ol-bench-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Launchers that are usable here (contrib/bench-lib.sh), each with the
# program it runs.
# shellcheck source=contrib/bench-lib.sh
. "$here/bench-lib.sh"
bl_only=$only
bl_add_all "$mpirun" "$mpicc"
names=
for name in $bl_names; do
    exe=$prog
    if [ -z "$exe" ]; then
        exe=$work/hello-$name
        bl_build "$name" "$exe" "$src" || { echo "skipping $name: $(bl_get cc "$name") failed" >&2; continue; }
    fi
    eval "exe_$(bl_var "$name")=\"\$exe\""
    names="$names $name"
done
[ -n "$names" ] || { echo "bench-startup.sh: no launcher to measure" >&2; exit 1; }

# time_once NAME NP: wall milliseconds of one run (fails the script if the
# job fails: a broken launcher must not look fast).
time_once() {
    cmd=$(bl_get run "$1")
    eval "exe=\$exe_$(bl_var "$1")"
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    if ! $cmd -np "$2" "$exe" >"$work/out" 2>&1 </dev/null; then
        echo "bench-startup.sh: $1 -np $2 failed:" >&2
        cat "$work/out" >&2
        exit 1
    fi
    echo $((($(date +%s%N) - start) / 1000))
}

for np in $(echo "$nps" | tr , ' '); do
    for name in $names; do : >"$work/t-$name"; done
    i=0
    while [ $i -lt "$runs" ]; do
        for name in $names; do time_once "$name" "$np" >>"$work/t-$name"; done
        i=$((i + 1))
    done
    echo "start-up, -np $np, median of $runs runs (${prog:-hello.c}):"
    best_peer=
    for name in $names; do
        m=$(bl_median "$work/t-$name" %d) # microseconds
        eval "med_$(echo "$name" | tr - _)=$m"
        printf '  %-10s %8.1f ms\n' "$name" "$(echo "$m" | awk '{print $1/1000}')"
        if [ "$name" != ompi-lite ] && { [ -z "$best_peer" ] || [ "$m" -lt "$best_peer" ]; }; then
            best_peer=$m
        fi
    done
    case " $names " in
    *" ompi-lite "*)
        if [ -n "$best_peer" ]; then
            awk -v a="$med_ompi_lite" -v b="$best_peer" \
                'BEGIN {printf "  ompi-lite / faster peer = %.2f (goal: <= 0.50)\n", a / b}'
        fi ;;
    esac
done
