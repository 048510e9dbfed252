#!/bin/sh
# The whole GPU suite on a machine with a GPU but no packages and no
# network: every test/gpu test with the real driver on 2, 3 and 4 ranks, then
# the GPU benchmarks (device copy bandwidth, device point-to-point bandwidth,
# nccl-tests style allreduce on device buffers on 2 and 4 ranks through
# ompi-lite and through NCCL, host-buffer latency without and with a CUDA
# context), a summary and the tables; about 10 minutes at most
# (SUITE_SECONDS, default 570, bounds it).
#
# It stops at once, non-zero, where it cannot run: carried files missing
# (2), a C library older than the carried files need (2, naming each file and
# the version it needs), no usable GPU or driver (3).
#
# Needs, carried from the build machine into the repository tree
# (contrib/gpu-carry.sh prepares them; see test/gpu/README.md):
#   _install/  ompi-lite installed by contrib/build.sh (mpirun, the library,
#              the benchmarks)
#   _carry/    lib/ (UCX, PMIx, hwloc, libevent and what they need), lib/ucx/
#              (UCX's modules) and tests/ (the test/gpu programs)
# NCCL (libnccl.so.2, too big to carry) is the GPU machine's own: see
# find_nccl below; without it the NCCL columns say n/a.
# Usage, from the repository root: sh test/gpu/run-gpu-suite.sh
# Logs: results/gpu-suite/ (one file per test and benchmark).
# SUITE_GLIBC=X.Y checks the carried files against that C library version
# instead of this machine's (to test the check); SUITE_NCCL_DIR: the
# directory of libnccl.so.2.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
inst=$top/_install
carry=$top/_carry
logs=$top/results/gpu-suite
budget=${SUITE_SECONDS:-570}
# The tests stop early enough to leave the benchmarks this long.
bench_reserve=${SUITE_BENCH_SECONDS:-240}
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

# ---- can it run here? ----------------------------------------------------------
# glibc_needed FILE: the newest GLIBC_x.y[.z] that FILE's dynamic symbols
# need (empty for a file that is not ELF).
glibc_needed() {
    if command -v objdump >/dev/null; then
        objdump -T "$1"
    else
        readelf --version-info --wide "$1"
    fi 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*[0-9]' | sed 's/^GLIBC_//' |
        sort -u -t. -k1,1n -k2,2n -k3,3n | tail -n 1
}

# version_newer A B: version A (x.y or x.y.z) is later than B.
version_newer() {
    awk -v a="$1" -v b="$2" 'BEGIN {
        na = split(a, x, "."); nb = split(b, y, ".")
        for (i = 1; i <= (na > nb ? na : nb); i++)
            if (x[i] + 0 != y[i] + 0) exit !(x[i] + 0 > y[i] + 0)
        exit 1 }'
}

# This machine's C library version (x.y).
machine_glibc() {
    getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }' | grep . ||
        ldd --version 2>&1 | head -n 1 | awk '{ print $NF }'
}

# Every carried program and library against the C library here: the
# dynamic linker refuses a file whose symbols need a newer one.
check_glibc() {
    have=${SUITE_GLIBC:-$(machine_glibc)}
    if ! command -v objdump >/dev/null && ! command -v readelf >/dev/null; then
        echo "# glibc $have; no objdump or readelf here to read what the carried files need (ldd checks below)"
        return
    fi
    newest=0 newest_file='' too_old=0
    for f in "$inst"/bin/* "$inst"/libexec/* "$inst"/lib/*.so* "$carry"/lib/*.so* \
        "$carry"/lib/ucx/*.so* "$carry"/tests/*; do
        if [ ! -f "$f" ] || [ -L "$f" ]; then
            continue # a symbolic link's file is checked under its own name
        fi
        need=$(glibc_needed "$f")
        [ -n "$need" ] || continue
        if version_newer "$need" "$newest"; then
            newest=$need newest_file=${f#"$top"/}
        fi
        if version_newer "$need" "$have"; then
            echo "run-gpu-suite: ${f#"$top"/} needs glibc $need (GLIBC_$need); this machine has $have" >&2
            too_old=1
        fi
    done
    if [ "$too_old" = 1 ]; then
        echo "run-gpu-suite: the C library here ($have) is older than the carried files need ($newest): build them on a machine with glibc $have or older; nothing run" >&2
        exit 2
    fi
    echo "# glibc $have here; the carried files need $newest at most ($newest_file)"
}

# A GPU and driver that work, found the way the tests and benchmarks find
# them (test/bench/devmem.c): one small device copy.
check_gpu() {
    probe=$(timeout 60 "$inst/bin/devcopy_bw" -s 1M -n 1 2>&1)
    case $? in
    0) ;;
    77)
        echo "run-gpu-suite: no usable GPU or CUDA driver here ($(echo "$probe" | tail -n 1)); nothing run" >&2
        exit 3 ;;
    *)
        echo "run-gpu-suite: the GPU does not work: devcopy_bw -s 1M -n 1 failed: $(echo "$probe" | tail -n 1); nothing run" >&2
        exit 3 ;;
    esac
}

# NCCL for coll_perf_nccl: libnccl.so.2 (over 200 MiB) is not carried. It is
# SUITE_NCCL_DIR's, else where coll_perf_nccl finds it by itself (its run
# path, /usr/local/cuda/lib64 on the build machine, or the system's library
# path), else the nvidia-nccl wheel of the machine's python3 (the GPU
# machines' PyTorch has one). Adds its directory to LD_LIBRARY_PATH. Sets
# have_nccl (1 or 0) and nccl: the library found, or why there is none.
find_nccl() {
    have_nccl=0
    if [ ! -x "$inst/bin/coll_perf_nccl" ]; then
        nccl="coll_perf_nccl not built (configure found no nccl.h and libnccl)"
        return
    fi
    for dir in "${SUITE_NCCL_DIR:-}" "" \
        "$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)"; do
        nccl=$(LD_LIBRARY_PATH=$dir${dir:+:}$LD_LIBRARY_PATH ldd "$inst/bin/coll_perf_nccl" 2>/dev/null |
            awk '$1 == "libnccl.so.2" && $3 ~ /^\// { print $3 }')
        if [ -n "$nccl" ]; then
            LD_LIBRARY_PATH=$LD_LIBRARY_PATH${dir:+:$dir}
            have_nccl=1
            return
        fi
    done
    nccl="no libnccl.so.2 on this machine (SUITE_NCCL_DIR names its directory)"
}

echo "# run-gpu-suite: $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname)"
check_glibc
check_gpu
# The libraries the programs need are all there (ldd names what is not).
for f in "$inst/bin/mpirun" "$inst/libexec/ompi-lite-daemon" "$inst/lib/libmpi_abi.so.1" "$carry/tests/gpu_p2p"; do
    if ldd "$f" 2>&1 | grep -E 'not found|version .* not found'; then
        echo "run-gpu-suite: $f cannot load here (above); nothing run" >&2
        exit 2
    fi
done
command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/# GPU: /'
"$inst/bin/ompi_lite_info" 2>&1 | grep -i -E 'cuda|gpu|version' | head -n 5 | sed 's/^/# /'
find_nccl
echo "# NCCL: $nccl"

# ---- tests -----------------------------------------------------------------
passed='' failed='' skipped='' not_run=''
# These first, in this order; then every other test/gpu/gpu_*.sh.
first="gpu_query gpu_p2p gpu_p2p_semantics gpu_coll gpu_reduce gpu_allreduce_algos gpu_allreduce_ipc gpu_bad_input gpu_bench"
tests=$first
for f in "$top"/test/gpu/gpu_*.sh; do
    t=$(basename "$f" .sh)
    case " $first " in *" $t "*) continue ;; esac
    case $t in *.fake) continue ;; esac
    tests="$tests $t"
done
for t in $tests; do
    if [ "$t" = gpu_nccl ] && [ "$have_nccl" = 0 ]; then
        skipped="$skipped $t"
        echo "SKIP: $t ($nccl)"
        continue
    fi
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
# The same through NCCL, one rank per GPU: it skips (77, saying why) where
# the machine has fewer GPUs than ranks.
if [ "$have_nccl" = 1 ]; then
    bench nccl_allreduce_np2 60 "$inst/bin/mpirun" --oversubscribe -np 2 coll_perf_nccl -C allreduce -b 8 -e 256M -f 2
    bench nccl_allreduce_np4 60 "$inst/bin/mpirun" --oversubscribe -np 4 coll_perf_nccl -C allreduce -b 8 -e 256M -f 2
fi
for run in 1 2; do
    bench "latency_plain_$run" 30 "$inst/bin/mpirun" --oversubscribe -np 2 osu_latency -m 0:4K -n 11
    bench "latency_context_$run" 30 "$inst/bin/mpirun" --oversubscribe -np 2 osu_latency -m 0:4K -n 11 -g
done

# ---- tables --------------------------------------------------------------------
rows() {
    grep -v '^+' "$logs/$1.out" | grep -v -E 'UCX +(WARN|INFO)'
}
for b in devcopy p2p_bw allreduce_np2 allreduce_np4 nccl_allreduce_np2 nccl_allreduce_np4; do
    [ -f "$logs/$b.out" ] || continue
    echo
    echo "## $b"
    rows "$b"
done

# value FILE SIZE COLUMN: that column of the row of that size (empty where
# the benchmark did not run or has no such row).
value() {
    [ -f "$logs/$1.out" ] || return 0
    grep -v '^[#+]' "$logs/$1.out" | awk -v s="$2" -v c="$3" '$1 == s { v = $c } END { print v }'
}
wrong_total() {
    [ -f "$logs/$1.out" ] || { echo "not run"; return; }
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

# ompi-lite's and NCCL's allreduce busbw per size, side by side, with why
# NCCL did not run where it did not.
echo
echo "## allreduce busbw (GB/s) on device buffers: ompi-lite and NCCL; device copy ${copy_gbs:-n/a} GB/s"
printf '%12s %13s %9s %7s %13s %9s %7s\n' "size (B)" "ompi-lite np2" "NCCL np2" "ratio" \
    "ompi-lite np4" "NCCL np4" "ratio"
for size in $(grep -v '^[#+]' "$logs/allreduce_np2.out" | awk '$1 ~ /^[0-9]+$/ { print $1 }'); do
    a2=$(value allreduce_np2 "$size" 7) n2=$(value nccl_allreduce_np2 "$size" 7)
    a4=$(value allreduce_np4 "$size" 7) n4=$(value nccl_allreduce_np4 "$size" 7)
    printf '%12s %13s %9s %7s %13s %9s %7s\n' "$size" "${a2:-n/a}" "${n2:-n/a}" "$(ratio "$a2" "$n2")" \
        "${a4:-n/a}" "${n4:-n/a}" "$(ratio "$a4" "$n4")"
done
if [ "$have_nccl" = 0 ]; then
    echo "  NCCL: $nccl"
else
    grep -h '^coll_perf_nccl: rank 0: ' "$logs"/nccl_allreduce_np*.out | sort -u | sed 's/^/  NCCL: /'
fi

p2p_mbs=$(value p2p_bw 67108864 2)
p2p_gbs=$(awk -v v="$p2p_mbs" 'BEGIN { if (v != "") printf "%.2f", v / 1000 }')
busbw2=$(value allreduce_np2 268435456 7)
busbw4=$(value allreduce_np4 268435456 7)
nccl2=$(value nccl_allreduce_np2 268435456 7)
nccl4=$(value nccl_allreduce_np4 268435456 7)

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
printf '%-52s %10s %8s %8s\n' "  NCCL, 2 ranks (coll_perf_nccl)" "${nccl2:-n/a}" \
    "$(ratio "$nccl2" "$copy_gbs")" ""
printf '%-52s %10s %8s %8s\n' "  NCCL, 4 ranks (coll_perf_nccl)" "${nccl4:-n/a}" \
    "$(ratio "$nccl4" "$copy_gbs")" ""
echo "allreduce busbw at 256 MiB, ompi-lite / NCCL: 2 ranks $(ratio "$busbw2" "$nccl2"), 4 ranks $(ratio "$busbw4" "$nccl4")"
echo "allreduce #wrong over all sizes: 2 ranks $(wrong_total allreduce_np2), 4 ranks $(wrong_total allreduce_np4) (goal 0); NCCL: $(wrong_total nccl_allreduce_np2), $(wrong_total nccl_allreduce_np4)"
printf '%-44s %12s %12s %8s %8s\n' "host-buffer latency, 2 ranks (osu_latency)" "plain (us)" "-g ctx (us)" "ratio" "goal"
for size in 0 8 1024 4096; do
    plain=$(latency "$size" plain)
    ctx=$(latency "$size" context)
    printf '%-44s %12s %12s %8s %8s\n' "  $size B" "${plain:-n/a}" "${ctx:-n/a}" "$(ratio "$ctx" "$plain")" "<= 1.05"
done
echo "logs: $logs"
[ -z "$failed" ] && [ -z "$not_run" ]
