#!/bin/sh
# The whole GPU suite on a machine with a GPU but no packages and no
# network: every test/gpu test with the real driver on 2, 3 and 4 ranks, then
# the GPU benchmarks (device copy bandwidth, device point-to-point bandwidth,
# nccl-tests style allreduce on device buffers on 2 and 4 ranks, host-buffer
# latency without and with a CUDA context), a summary and the tables; about
# 10 minutes at most (SUITE_SECONDS, default 570, bounds it).
#
# Needs, carried from the build machine into the repository tree
# (contrib/gpu-carry.sh prepares them; see test/gpu/README.md):
#   _install/  ompi-lite installed by contrib/build.sh (mpirun, the library,
#              the benchmarks)
#   _carry/    lib/ (UCX, PMIx, hwloc, libevent and what they need), lib/ucx/
#              (UCX's modules) and tests/ (the test/gpu programs)
# Usage, from the repository root: sh test/gpu/run-gpu-suite.sh
# Logs: results/gpu-suite/ (one file per test and benchmark).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
inst=$top/_install
carry=$top/_carry
logs=$top/results/gpu-suite
budget=${SUITE_SECONDS:-570}
# The tests stop early enough to leave the benchmarks this long.
bench_reserve=${SUITE_BENCH_SECONDS:-210}
start=$(date +%s)

for need in "$inst/bin/mpirun" "$inst/bin/coll_perf" "$inst/bin/devcopy_bw" "$carry/lib" \
    "$carry/tests/gpu_p2p"; do
    [ -e "$need" ] || { echo "run-gpu-suite: $need is missing: carry _install and _carry (contrib/gpu-carry.sh)" >&2; exit 2; }
done
mkdir -p "$logs"

LD_LIBRARY_PATH=$inst/lib:$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
UCX_MODULE_DIR=$carry/lib/ucx
PATH=$inst/bin:$PATH
# What the test scripts expect from make check, pointed at the carried files.
top_builddir=$top
top_srcdir=$top
# --timeout: a hung job ends with mpirun's state report (in the log).
MPIRUN="$inst/bin/mpirun --oversubscribe --timeout 90"
GPU_TEST_BINDIR=$carry/tests
BENCH_BINDIR=$inst/bin
GPU_TEST_FULL=1
export LD_LIBRARY_PATH UCX_MODULE_DIR PATH top_builddir top_srcdir MPIRUN GPU_TEST_BINDIR \
    BENCH_BINDIR GPU_TEST_FULL

# limit SECONDS [RESERVE]: SECONDS, or what is left of the budget less
# RESERVE if that is less (at least 1).
limit() {
    left=$((budget - ${2:-0} - ($(date +%s) - start)))
    [ "$left" -gt "$1" ] && left=$1
    [ "$left" -ge 1 ] || left=1
    echo "$left"
}

elapsed() {
    echo $(($(date +%s) - start))
}

echo "# run-gpu-suite: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname); $(ldd --version 2>&1 | head -n 1)"
# The carried libraries need this system's C library to be as new as the
# build machine's (Debian 12: glibc 2.36, for libevent).
for f in "$inst/bin/mpirun" "$inst/libexec/ompi-lite-daemon" "$inst/lib/libmpi_abi.so.1" "$carry/tests/gpu_p2p"; do
    if ldd "$f" 2>&1 | grep -E 'not found|version .* not found'; then
        echo "run-gpu-suite: $f cannot load here (above); nothing run" >&2
        exit 2
    fi
done
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/# GPU: /'
"$inst/bin/ompi_lite_info" 2>&1 | grep -i -E 'cuda|gpu|version' | head -n 5 | sed 's/^/# /'

# ---- tests -----------------------------------------------------------------
passed='' failed='' skipped='' not_run=''
tests="gpu_query gpu_p2p gpu_p2p_semantics gpu_coll gpu_reduce gpu_old_driver gpu_allreduce_algos gpu_allreduce_ipc gpu_bad_input gpu_bench"
for t in $tests; do
    if [ "$((budget - bench_reserve - $(elapsed)))" -lt 10 ]; then
        not_run="$not_run $t"
        echo "NOT RUN: $t (out of time)"
        continue
    fi
    t0=$(date +%s)
    timeout --kill-after=5 "$(limit 180 "$bench_reserve")" sh "$top/test/gpu/$t.sh" >"$logs/$t.log" 2>&1
    rc=$?
    case $rc in
    0) passed="$passed $t"; verdict=PASS ;;
    77) skipped="$skipped $t"; verdict=SKIP ;;
    124|137) failed="$failed $t"; verdict="FAIL (timed out)" ;;
    *) failed="$failed $t"; verdict=FAIL ;;
    esac
    echo "$verdict: $t ($(($(date +%s) - t0)) s)"
    case $verdict in
    FAIL*) tail -n 25 "$logs/$t.log" | sed 's/^/    /' ;;
    SKIP) grep -E '^SKIP|skipped|no CUDA|no GPU' "$logs/$t.log" | head -n 3 | sed 's/^/    /' ;;
    esac
done

# ---- benchmarks ----------------------------------------------------------------
# bench NAME SECONDS COMMAND...: output in $logs/NAME.out; rc in $rc.
bench() {
    name=$1 secs=$2
    shift 2
    echo "+ $*" >"$logs/$name.out"
    timeout --kill-after=5 "$(limit "$secs")" "$@" >>"$logs/$name.out" 2>&1
    rc=$?
    [ "$rc" -eq 0 ] || echo "  ($name exited with status $rc; see $logs/$name.out)"
}

echo
echo "# ---- benchmarks ($(elapsed) s so far) ----"
bench devcopy 60 devcopy_bw -s 1G -n 11
copy_gbs=$(grep -v '^[#+]' "$logs/devcopy.out" | awk 'NF == 4 { print $1 }' | tail -n 1)
bench p2p_bw 90 "$inst/bin/mpirun" --oversubscribe -np 2 osu_bw -d cuda -m 64K:64M -W 16 -c
bench allreduce_np2 150 "$inst/bin/mpirun" --oversubscribe -np 2 coll_perf -C allreduce --device -b 8 -e 256M -f 2
bench allreduce_np4 150 "$inst/bin/mpirun" --oversubscribe -np 4 coll_perf -C allreduce --device -b 8 -e 256M -f 2
for run in 1 2; do
    bench "latency_plain_$run" 30 "$inst/bin/mpirun" --oversubscribe -np 2 osu_latency -m 0:4K -n 11
    bench "latency_context_$run" 30 "$inst/bin/mpirun" --oversubscribe -np 2 osu_latency -m 0:4K -n 11 -g
done

# ---- tables --------------------------------------------------------------------
rows() {
    grep -v '^+' "$logs/$1.out" | grep -v -E 'UCX +(WARN|INFO)'
}
for b in devcopy p2p_bw allreduce_np2 allreduce_np4; do
    echo
    echo "## $b"
    rows "$b"
done

# value FILE SIZE COLUMN: that column of the row of that size.
value() {
    grep -v '^[#+]' "$logs/$1.out" | awk -v s="$2" -v c="$3" '$1 == s { v = $c } END { print v }'
}
wrong_total() {
    grep -v '^[#+]' "$logs/$1.out" | awk 'NF >= 8 && $1 ~ /^[0-9]+$/ { n += $8; rows++ }
        END { print rows ? n : "no rows" }'
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2f", a / b }'
}
# latency SIZE KIND: mean of the two runs' medians.
latency() {
    a=$(value "latency_$2_1" "$1" 2)
    b=$(value "latency_$2_2" "$1" 2)
    awk -v a="$a" -v b="$b" 'BEGIN { if (a == "" || b == "") print ""; else printf "%.2f", (a + b) / 2 }'
}

p2p_mbs=$(value p2p_bw 67108864 2)
p2p_gbs=$(awk -v v="$p2p_mbs" 'BEGIN { if (v != "") printf "%.2f", v / 1000 }')
busbw2=$(value allreduce_np2 268435456 7)
busbw4=$(value allreduce_np4 268435456 7)

echo
echo "## summary ($(elapsed) s)"
count() {
    echo "$1" | wc -w
}
echo "tests passed: $(count "$passed")  failed: $(count "$failed")  skipped: $(count "$skipped")  not run: $(count "$not_run")"
[ -z "$failed" ] || echo "  failed:$failed"
[ -z "$skipped" ] || echo "  skipped:$skipped"
[ -z "$not_run" ] || echo "  not run (out of time):$not_run"
printf '%-52s %10s %8s %8s\n' "benchmark" "GB/s" "x copy" "goal"
printf '%-52s %10s %8s %8s\n' "device-to-device copy, 1 GiB (devcopy_bw)" "${copy_gbs:-n/a}" "1.00" ""
printf '%-52s %10s %8s %8s\n' "point-to-point 64 MiB, 2 ranks, device (osu_bw)" "${p2p_gbs:-n/a}" \
    "$(ratio "$p2p_gbs" "$copy_gbs")" ">= 0.80"
printf '%-52s %10s %8s %8s\n' "allreduce busbw 256 MiB, 2 ranks (coll_perf)" "${busbw2:-n/a}" \
    "$(ratio "$busbw2" "$copy_gbs")" ">= 0.25"
printf '%-52s %10s %8s %8s\n' "allreduce busbw 256 MiB, 4 ranks (coll_perf)" "${busbw4:-n/a}" \
    "$(ratio "$busbw4" "$copy_gbs")" ">= 0.25"
echo "allreduce #wrong over all sizes: 2 ranks $(wrong_total allreduce_np2), 4 ranks $(wrong_total allreduce_np4) (goal 0)"
printf '%-44s %12s %12s %8s %8s\n' "host-buffer latency, 2 ranks (osu_latency)" "plain (us)" "-g ctx (us)" "ratio" "goal"
for size in 0 8 1024 4096; do
    plain=$(latency "$size" plain)
    ctx=$(latency "$size" context)
    printf '%-44s %12s %12s %8s %8s\n' "  $size B" "${plain:-n/a}" "${ctx:-n/a}" "$(ratio "$ctx" "$plain")" "<= 1.05"
done
echo "logs: $logs"
[ -z "$failed" ] && [ -z "$not_run" ]
