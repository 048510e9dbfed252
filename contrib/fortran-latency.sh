#!/bin/sh
# What the Fortran layer adds to point-to-point latency: runs the installed
# osu_latency (C) and osu_latency_f08 (the same ping-pong under `use
# mpi_f08`, test/bench/osu_latency_f08.f90) one after the other, RUNS times
# each, alternating so that a busier moment of the machine hits both, and
# prints per size the median over the runs of each one's median latency,
# their ratio Fortran / C, and the ratio of their mid-means, the means of
# the middle half of the runs (the programs print hundredths of a
# microsecond, 3% of a 0.3 us latency: a mean of many runs resolves less,
# and leaving out the quarters at either end leaves out a busy machine's
# outliers). Not part of the test command; test/bench/README.md has the
# numbers.
#
#   contrib/fortran-latency.sh [-r RUNS] [-a 'OSU OPTIONS'] [-p PREFIX]
#   -r RUNS     runs of each program (default 7)
#   -a OPTIONS  options of both programs (default '-m 0:4M'; osu_latency -h)
#   -p PREFIX   the ompi-lite installation (default ./_install)
#
# Output: "# size  C(us)  F08(us)  F08/C  mid-means" rows; the runs' raw rows
# stay under $TMPDIR.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
runs=7
options='-m 0:4M'
prefix=$top/_install
while [ $# -gt 0 ]; do
    case $1 in
    -r) runs=$2; shift 2 ;;
    -a) options=$2; shift 2 ;;
    -p) prefix=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fortran-latency: unknown option '$1' (see -h)" >&2; exit 2 ;;
    esac
done
for prog in osu_latency osu_latency_f08 mpirun; do
    [ -x "$prefix/bin/$prog" ] ||
        { echo "fortran-latency: $prefix/bin/$prog is not installed (contrib/build.sh)" >&2; exit 2; }
done

out=$(mktemp -d "${TMPDIR:-/tmp}/fortran-latency.XXXXXX")
echo "# $(uptime)"
echo "# $runs alternating runs of each: osu_latency $options, osu_latency_f08 $options; raw rows in $out"
i=1
while [ "$i" -le "$runs" ]; do
    for prog in osu_latency osu_latency_f08; do
        # shellcheck disable=SC2086 # options are words
        "$prefix/bin/mpirun" -np 2 "$prefix/bin/$prog" $options >"$out/$prog.$i"
    done
    i=$((i + 1))
done

# The median column (2) of each size's row, over the runs of each program:
# its median and its mid-mean.
awk '
    FNR == 1 { prog = FILENAME; sub(/.*\//, "", prog); sub(/\.[0-9]+$/, "", prog) }
    /^#/ { next }
    {
        n = ++count[prog, $1]; value[prog, $1, n] = $2
        if (!($1 in seen)) { seen[$1]; order[++sizes] = $1 }
    }
    # sorted(prog, size, v): the runs of prog at size, sorted into v; their number
    function sorted(prog, size, v,    n, i, j, t) {
        n = count[prog, size]
        for (i = 1; i <= n; i++) v[i] = value[prog, size, i]
        for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n
    }
    function median(prog, size,    n, v) {
        n = sorted(prog, size, v)
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function midmean(prog, size,    n, v, i, sum) {
        n = sorted(prog, size, v)
        for (i = int(n / 4) + 1; i <= n - int(n / 4); i++) sum += v[i]
        return sum / (n - 2 * int(n / 4))
    }
    END {
        printf "%-10s %10s %10s %8s %10s\n", "# size", "C(us)", "F08(us)", "F08/C", "mid-means"
        for (k = 1; k <= sizes; k++) {
            s = order[k]; c = median("osu_latency", s); f = median("osu_latency_f08", s)
            cm = midmean("osu_latency", s); fm = midmean("osu_latency_f08", s)
            printf "%-10s %10.2f %10.2f %8.3f %10.3f\n", s, c, f, (c > 0 ? f / c : 0), (cm > 0 ? fm / cm : 0)
        }
    }' "$out"/osu_latency.* "$out"/osu_latency_f08.*
