#!/bin/sh
# Side-by-side benchmarks: builds the sources of test/bench/ with ompi-lite's
# mpicc, mpicc.openmpi and mpicc.mpich, runs each benchmark under the three
# launchers alternately (A B C A B C ...) several times, and prints for each
# size the median of each MPI and ompi-lite's ratio to the faster peer, with
# the machine's memcpy bandwidth. Writes a CSV and a PNG plot (gnuplot) per
# benchmark and rank count into the results directory. See
# test/bench/README.md, "How to compare".
#
#   contrib/compare.sh [options]
#   -b LIST       benchmarks, comma separated (default: all): osu_latency osu_bw
#                 osu_bibw osu_mbw_mr osu_barrier osu_bcast osu_reduce
#                 osu_allreduce osu_allgather osu_alltoall osu_reduce_scatter
#                 coll_allreduce coll_allgather coll_reduce_scatter coll_bcast
#                 coll_alltoall (coll_X: coll_perf -C X, nccl-tests style)
#                 osu_put_latency osu_get_latency osu_put_bw osu_get_bw
#                 osu_acc_latency osu_fop_latency osu_cas_latency (one-sided;
#                 passive target with flush unless -a '-s fence')
#                 io_tile_shm io_tile_disk (MPI-IO: io_tile in /dev/shm, and in
#                 --io-dir on disk; compared with a dd-like reference)
#   -p NP,...     rank counts (default 2)
#   -n RUNS       runs per MPI, benchmark and rank count (default 3)
#   -a ARGS       extra arguments for the osu_* benchmarks, e.g. -a '-m 0:8K'
#   -A ARGS       extra arguments for coll_perf, e.g. -A '-b 8 -e 1M -d double'
#   -I ARGS       extra arguments for io_tile, e.g. -I '-b 16M -e 256M -f 16 -i 3'
#   --io-dir DIR  the disk directory of io_tile_disk (default: the results' build/)
#   -o DIR        results directory (default results/ at the top of the tree)
#   --hostfile F  passed to each launcher as -hostfile F
#   --netns N     run on N hosts made of network namespaces (root; see
#                 contrib/netns-hosts.sh): ranks talk over TCP on veth links,
#                 the launcher runs on the first host and reaches the others
#                 through a launch agent; NP ranks fill ceil(NP/N) slots per host
#                 (-p 4 --netns 4: one rank per host; --netns 2: two)
#   --mpirun P    ompi-lite's mpirun (default $PREFIX/bin/mpirun, else _install/bin/mpirun)
#   --mpicc P     ompi-lite's mpicc (default: next to --mpirun)
#   --only L      comma list of ompi-lite,openmpi,mpich (default: all found)
#   --busy N      N processes burn a core each (nice 0) while the benchmarks
#                 run, as another job's on a shared node; ended with the run
#   --ucx         osu_latency and osu_bw on 2 ranks of one host: also
#                 ucx_perftest's tag_lat / tag_bw at each size, the limit UCX
#                 reaches on this machine, in a column "ucx" with the ratios to it
#   --no-plot     no PNG files
#   -h            this help
# Environment: BENCH_TIMEOUT, the limit in seconds of one run (default 900).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
src=$top/test/bench
all_benches="osu_latency osu_bw osu_bibw osu_bw_vector osu_mbw_mr osu_barrier osu_bcast osu_reduce \
osu_allreduce osu_allgather osu_alltoall osu_reduce_scatter coll_allreduce coll_allgather \
coll_reduce_scatter coll_bcast coll_alltoall osu_put_latency osu_get_latency osu_put_bw osu_get_bw \
osu_acc_latency osu_fop_latency osu_cas_latency io_tile_shm io_tile_disk"

benches=$all_benches
nps=2
runs=3
args=
coll_args=
io_args=
io_dir=
out=$top/results
hostfile=
netns=
mpirun=
mpicc=
only=ompi-lite,openmpi,mpich
plot=1
busy=0
ucx=
while [ $# -gt 0 ]; do
    case $1 in
    -b) benches=$(echo "$2" | tr , ' '); shift 2 ;;
    -p) nps=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    -a) args=$2; shift 2 ;;
    -A) coll_args=$2; shift 2 ;;
    -I) io_args=$2; shift 2 ;;
    --io-dir) io_dir=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --hostfile|-hostfile) hostfile=$2; shift 2 ;;
    --netns) netns=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --mpicc) mpicc=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --no-plot) plot=; shift ;;
    --busy) busy=$2; shift 2 ;;
    --ucx) ucx=1; shift ;;
    -h|--help) sed -n '2,44p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown argument '$1' (see -h)" >&2; exit 2 ;;
    esac
done
for b in $benches; do
    case " $all_benches " in *" $b "*) ;; *) echo "compare.sh: unknown benchmark '$b'" >&2; exit 2 ;; esac
done
if [ -z "$mpirun" ]; then
    for p in ${PREFIX:+$PREFIX/bin/mpirun} "$top/_install/bin/mpirun"; do
        [ -x "$p" ] && { mpirun=$p; break; }
    done
fi
[ -z "$hostfile" ] || [ -r "$hostfile" ] || { echo "compare.sh: cannot read $hostfile" >&2; exit 2; }
[ "$busy" -ge 0 ] 2>/dev/null || { echo "compare.sh: --busy wants a number of processes" >&2; exit 2; }
if [ -n "$ucx" ]; then
    command -v ucx_perftest >/dev/null || { echo "compare.sh: --ucx needs ucx_perftest (Debian's ucx-utils)" >&2; exit 2; }
    [ -z "$hostfile$netns" ] || { echo "compare.sh: --ucx compares on one host: leave out --hostfile and --netns" >&2; exit 2; }
fi
if [ -n "$netns" ]; then
    [ -z "$hostfile" ] || { echo "compare.sh: --netns writes its own hostfiles; leave out --hostfile" >&2; exit 2; }
    [ "$netns" -ge 1 ] 2>/dev/null || { echo "compare.sh: --netns wants a number of hosts" >&2; exit 2; }
    [ "$(id -u)" = 0 ] || { echo "compare.sh: --netns needs root (network namespaces)" >&2; exit 2; }
fi

# The peers and gnuplot come from Debian's packages.
if ! command -v mpicc.openmpi >/dev/null 2>&1 || ! command -v mpicc.mpich >/dev/null 2>&1 ||
    { [ -n "$plot" ] && ! command -v gnuplot >/dev/null 2>&1; }; then
    sh "$here/install-deps.sh" --peers || echo "compare.sh: could not install the peers; going on with what is there" >&2
fi

# shellcheck source=contrib/bench-lib.sh
. "$here/bench-lib.sh"
bl_only=$only
bl_add_all "$mpirun" "$mpicc"
[ -n "$bl_names" ] || { echo "compare.sh: no MPI to run" >&2; exit 1; }

mkdir -p "$out/raw" "$out/build"
io_dir=${io_dir:-$out/build}
if [ ! -d "$io_dir" ] || [ ! -w "$io_dir" ]; then
    echo "compare.sh: --io-dir $io_dir is not a writable directory" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ol-compare.XXXXXX")
netns_hosts=$here/netns-hosts.sh
# Host names unique to this invocation, so that neither the test suite's
# hosts nor another compare.sh are touched; the subnet exists only behind
# these hosts' own bridge, so it cannot clash either.
netns_prefix=olc$$h
job=
burners=
cleanup() {
    [ -z "$job" ] || kill -TERM "$job" 2>/dev/null || true
    # shellcheck disable=SC2086 # one PID per word
    [ -z "$burners" ] || kill -TERM $burners 2>/dev/null || true
    [ -z "$netns" ] || "$netns_hosts" down "$netns_prefix" "$netns" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# dash runs the EXIT trap on exit only: turn Ctrl-C and kills into one.
trap 'exit 130' INT TERM HUP

# normalize_hostfile FILE: FILE (either MPI's syntax) as "HOST SLOTS" lines.
normalize_hostfile() {
    sed 's/#.*//' "$1" | awk 'NF {
        n = split($1, hp, ":"); slots = n > 1 ? hp[2] : 1
        for (i = 2; i <= NF; i++) if ($i ~ /^slots=/) { sub(/.*=/, "", $i); slots = $i }
        print hp[1], slots }'
}
# write_hostfiles: $work/hosts in each launcher's syntax: Open MPI's "host
# slots=N" (ompi-lite takes it too) and MPICH's "host:N" (each peer rejects
# the other's).
write_hostfiles() {
    awk '{ print $1 " slots=" $2 }' "$work/hosts" >"$work/hosts.openmpi"
    awk '{ print $1 ":" $2 }' "$work/hosts" >"$work/hosts.mpich"
}
# netns_hostfiles NP: the namespace hosts NP ranks need, ceil(NP/N) slots
# each, so that ranks fill the hosts in blocks (by slot, every launcher's
# default) and a host the job does not need gets no daemon.
netns_hostfiles() {
    per=$((($1 + netns - 1) / netns))
    i=0
    while [ $((i * per)) -lt "$1" ]; do
        echo "$netns_prefix$i $per"
        i=$((i + 1))
    done >"$work/hosts"
    write_hostfiles
}
if [ -n "$hostfile" ]; then
    normalize_hostfile "$hostfile" >"$work/hosts"
    write_hostfiles
fi
# hostopt NAME: the launcher's hostfile option, if any.
hostopt() {
    [ -n "$hostfile$netns" ] || return 0
    case $1 in
    mpich) echo "-hostfile $work/hosts.mpich" ;;
    *) echo "-hostfile $work/hosts.openmpi" ;;
    esac
}

if [ -n "$netns" ]; then
    "$netns_hosts" up "$netns_prefix" "$netns" 10.231.241
    # The agent as one word: Open MPI's plm_rsh_agent and hydra's
    # -launcher-exec take a program, and run() splits commands at spaces.
    printf '#!/bin/sh\nexec "%s" agent "$@"\n' "$netns_hosts" >"$work/agent"
    chmod +x "$work/agent"
fi
# netns_launch NAME: what runs NAME's launcher on the first namespace host
# and lets it reach the others, as from a cluster's first node. The host
# names do not resolve inside the namespaces (no DNS, no /etc/hosts entry),
# so every launcher must wire its daemons by address.
#  - Every host's daemon sees the whole machine as its own and would bind
#    its first rank to core 0: one rank per host would put every rank on
#    the same core. ompi-lite and Open MPI bind by default, hydra does not.
#  - For the same reason no launcher sees that the hosts' ranks share two
#    cores. Open MPI would then poll without ever yielding (it yields where
#    it sees more ranks than cores): 4 ranks on 4 hosts took 4-7 ms per
#    small osu_allreduce, 50 us with mpi_yield_when_idle. ompi-lite gets
#    its own setting for a host with more ranks than cores, no spin before
#    it yields (OMPI_LITE_SPIN_US=0: 4 ranks on 2 hosts, 8 B allreduce
#    39-58 us with the 5 us spin, 23-32 without). Both settings apply only
#    where the job has more ranks than the machine has cores; with a core
#    per rank both libraries spin, as on real hosts (2 ranks on 2 hosts,
#    ompi-lite's osu_latency 0-2 KiB 9.7-10.2 us against 10.3-10.9 without
#    a spin). MPICH has no such setting.
#  - Open MPI: ob1 over the TCP BTL on eth0 (its UCX PML selects itself only
#    on InfiniBand devices); its daemons' OOB on eth0 too. One-sided over
#    osc/pt2pt (messages through ob1): osc/rdma needs a BTL with RDMA, which
#    TCP is not, and MPI_Win_allocate failed with MPI_ERR_WIN.
#  - MPICH: hydra's rsh launcher, as its ssh launcher adds ssh's -x, which
#    the agent would take for a host; -iface makes the proxies connect back
#    to the address of eth0 instead of the host name. ch4:ucx picks TCP on
#    eth0 itself (UCX finds lo unreachable across boot ids).
netns_launch() {
    case $1 in
    ompi-lite) opts="--launch-agent $work/agent --bind-to none $(netns_spin "$2")" ;;
    openmpi) opts="--mca plm_rsh_agent $work/agent --bind-to none $(netns_yield "$2") \
--mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
--mca osc pt2pt" ;;
    mpich) opts="-launcher rsh -launcher-exec $work/agent -iface eth0" ;;
    esac
    echo "$netns_hosts run ${netns_prefix}0 $(bl_get run "$1") $opts"
}
# netns_yield NP: Open MPI yields when NP ranks outnumber the machine's
# cores, as ompi-lite does not spin then.
netns_yield() {
    [ "$1" -le "$(nproc)" ] || echo "--mca mpi_yield_when_idle 1"
}
# netns_spin NP: ompi-lite's spin for NP ranks on the namespace hosts: none
# when they outnumber the machine's cores, else the library's own (or the
# caller's OMPI_LITE_SPIN_US).
netns_spin() {
    if [ "$1" -gt "$(nproc)" ]; then
        echo "-x OMPI_LITE_SPIN_US=${OMPI_LITE_SPIN_US:-0}"
    elif [ -n "${OMPI_LITE_SPIN_US:-}" ]; then
        echo "-x OMPI_LITE_SPIN_US=$OMPI_LITE_SPIN_US"
    fi
}
# launcher NAME NP: NAME's launcher command, in the namespace hosts with --netns.
launcher() {
    if [ -n "$netns" ]; then netns_launch "$1" "$2"; else bl_get run "$1"; fi
}
# netns_sweep: kills what a failed run left on the namespace hosts, so that
# it does not slow the runs after it.
netns_sweep() {
    [ -n "$netns" ] || return 0
    i=0
    while [ "$i" -lt "$netns" ]; do
        pids=$(ip netns pids "$netns_prefix$i" 2>/dev/null || true)
        # shellcheck disable=SC2086
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
        i=$((i + 1))
    done
}
# where: how the ranks of the current rank count are placed, and what
# else runs, for titles (empty on a quiet host).
where() {
    w=
    [ -z "$netns" ] || w=" on $(wc -l <"$work/hosts") namespace hosts (TCP)"
    [ "$busy" -eq 0 ] || w="$w, --busy $busy"
    echo "$w"
}
# case_name BENCH NP: the name of a benchmark's files (raw runs, CSV, PNG);
# runs across namespace hosts are named apart from runs on one host.
case_name() {
    echo "$1-np$2${netns:+-netns$netns}$(busy_suffix)"
}
busy_suffix() {
    [ "$busy" -eq 0 ] || echo "-busy$busy"
}

# program BENCH: the executable's name; sources BENCH: its sources;
# bench_args BENCH: what it always gets.
program() {
    case $1 in coll_*) echo coll_perf ;; io_tile_*) echo io_tile ;; *) echo "$1" ;; esac
}
sources() {
    case $1 in
    osu_latency) echo "$src/osu_latency.c $src/bench.c" ;;
    osu_bw|osu_bibw|osu_mbw_mr) echo "$src/$1.c $src/window.c $src/bench.c" ;;
    osu_bw_vector) echo "$src/osu_bw_vector.c $src/bench.c" ;;
    osu_put_*|osu_get_*|osu_acc_*|osu_fop_*|osu_cas_*) echo "$src/$1.c $src/osu_rma.c $src/bench.c" ;;
    osu_*) echo "$src/$1.c $src/osu_coll.c $src/bench.c" ;;
    coll_*) echo "$src/coll_perf.c $src/coll_mpi.c $src/devmem.c $src/bench.c -ldl" ;;
    io_tile_*) echo "$src/io_tile.c $src/bench.c" ;;
    esac
}
bench_args() {
    case $1 in
    coll_*) echo "-C ${1#coll_} $coll_args" ;;
    io_tile_shm) echo "-d /dev/shm $io_args" ;;
    io_tile_disk) echo "-d $io_dir $io_args" ;;
    *) echo "$(busy_batches) $args" ;;
    esac
}
# busy_batches: with --busy, the OSU-style programs' -T 100 (batches of 100
# ms at least; a later -T in -a wins). The burners and the ranks share the
# cores in time slices of some milliseconds, and a batch of about 3 ms
# (osu_bw's 20 windows of 32 KiB) measured whether a slice fell into it: the median
# of 5 such batches went from 3.4 to 13.6 GB/s from one run of MPICH to the
# next, 1.0 to 5.9 for Open MPI. Over 100 ms each batch holds its share.
busy_batches() {
    [ "$busy" -eq 0 ] || echo "-T 100"
}
# metrics BENCH: a line "TAG COLUMN UNIT BETTER REF" per value compared: OSU
# latencies in us (lower is better), OSU bandwidths in MB/s, coll_perf's
# busbw in GB/s, io_tile's four bandwidths in MB/s. TAG names the value in
# file names and titles ("-": the benchmark's only value); REF is the column
# of a reference that is no MPI (io_tile's dd), "-" for none.
metrics() {
    case $1 in
    osu_bw|osu_bibw|osu_bw_vector|osu_mbw_mr|osu_put_bw|osu_get_bw) echo "- 2 MB/s higher -" ;;
    osu_*) echo "- 2 us lower -" ;;
    coll_*) echo "- 7 GB/s higher -" ;;
    io_tile_*) printf '%s\n' "coll_wr 2 MB/s higher 6" "coll_rd 3 MB/s higher 7" \
        "indep_wr 4 MB/s higher 6" "indep_rd 5 MB/s higher 7" ;;
    esac
}
# value_name BENCH NP TAG: the name of one value's CSV and PNG.
value_name() {
    case $3 in -) case_name "$1" "$2" ;; *) case_name "$1-$3" "$2" ;; esac
}
# what BENCH TAG: the value in titles.
what() {
    case $1 in
    io_tile_shm) echo "$1 $2 (/dev/shm)" ;;
    io_tile_disk) echo "$1 $2 ($io_dir)" ;;
    *) echo "$1" ;;
    esac
}

# The machine's memcpy bandwidth: the ceiling for a copy through memory.
${CC:-cc} -O2 -o "$out/build/memcpy_bw" "$src/memcpy_bw.c"
memcpy_mbs=$("$out/build/memcpy_bw" | awk '!/^#/ { print $1 }')
echo "memcpy bandwidth: $memcpy_mbs MB/s (median of 11 copies of 256 MiB)" | tee "$out/memcpy.txt"
# And a cache line's round trip between the first two cores, before each
# run (run, core_round_trip_range): a virtual machine's host may move its
# cores, and every shared-memory figure with them (test/bench/README.md,
# "Core round trip").
${CC:-cc} -O2 -o "$out/build/core_round_trip" "$src/core_round_trip.c"

# Build every benchmark with every MPI; one that does not build is skipped
# for that MPI (ompi-lite lacks the collectives but barrier for now).
for name in $bl_names; do
    mkdir -p "$out/build/$name"
    for b in $benches; do
        exe=$out/build/$name/$(program "$b")
        # shellcheck disable=SC2046
        if ! bl_build "$name" "$exe" $(sources "$b") >"$work/cc.log" 2>&1; then
            rm -f "$exe"
            why=$(grep -m 1 -o "undefined reference to .[A-Za-z_]*" "$work/cc.log" || head -n 1 "$work/cc.log")
            echo "compare.sh: $name cannot build $(program "$b"): ${why:-see its compiler}; skipped" >&2
        fi
    done
done

# round_trip_ns: core_round_trip's median in ns, nothing where it cannot
# run (one CPU) or beside the --busy processes (it would measure their
# share of the cores instead).
round_trip_ns() {
    [ "$busy" -eq 0 ] || return 0
    "$out/build/core_round_trip" -n 3 2>/dev/null | awk '!/^#/ { print $1 }'
}

# run NAME BENCH NP RUN: one run into raw/, with the core round trip
# measured just before it as its last line; fails if the job fails.
run() {
    exe=$out/build/$1/$(program "$2")
    log=$out/raw/$(case_name "$2" "$3")-$1-$4.txt
    [ -x "$exe" ] || return 1
    round_trip=$(round_trip_ns)
    # shellcheck disable=SC2046,SC2086
    timeout "${BENCH_TIMEOUT:-900}" $(launcher "$1" "$3") $(hostopt "$1") -np "$3" "$exe" $(bench_args "$2") \
        >"$log" 2>&1 </dev/null &
    # In the background, so that a signal reaches the trap at once (the
    # shell would first wait for a foreground job, which timeout puts in a
    # process group of its own, out of Ctrl-C's reach); cleanup ends it.
    job=$!
    status=0
    wait "$job" || status=$?
    job=
    [ -z "$round_trip" ] || echo "# core round trip before this run: $round_trip ns" >>"$log"
    return "$status"
}

# core_round_trip_range BENCH NP: under a table, the least and most core
# round trip before each MPI's runs, so that a run on other cores shows.
core_round_trip_range() {
    line=$(for name in $bl_names; do
        cat "$out/raw/$(case_name "$1" "$2")-$name-"*.txt 2>/dev/null |
            awk -v n="$name" '/^# core round trip before this run:/ { v = $(NF - 1) + 0
                if (!c++ || v < lo) lo = v; if (v > hi) hi = v }
                END { if (c) printf "%s %d-%d, ", n, lo, hi }'
    done)
    [ -z "$line" ] || echo "core round trip before the runs, ns: ${line%, }" | tee -a "$out/summary.txt"
}

# ucx_run BENCH NP RUN: ucx_perftest's tag_lat (osu_latency) or tag_bw
# (osu_bw) between two processes on cores 0 and 1, at each size the MPIs'
# run RUN measured, into raw/ as "size value" lines in the OSU units (us,
# and MB/s of 10^6 bytes: ucx_perftest's MB are 2^20), with up to 64 sends
# outstanding as in osu_bw's windows. Fails when the benchmark has no UCX
# counterpart here.
ucx_run() {
    case $1 in
    osu_latency) test=tag_lat column=3 scale=1 ;;
    osu_bw) test=tag_bw column=7 scale=1.048576 ;;
    *) return 1 ;;
    esac
    [ -n "$ucx" ] && [ "$2" -eq 2 ] || return 1
    sizes=$(for name in $bl_names; do
        f=$out/raw/$(case_name "$1" "$2")-$name-$3.txt
        [ -f "$work/ok-$1-$2-$name-$3" ] && awk '!/^#/ && $1 ~ /^[0-9]+$/ && $1 > 0 { print $1 }' "$f"
    done | sort -n -u)
    log=$out/raw/$(case_name "$1" "$2")-ucx-$3.txt
    echo "# ucx_perftest -t $test -c 0 / -c 1 (size, ${test#tag_})" >"$log"
    for s in $sizes; do
        n=$((s <= 65536 ? 20000 : 2000))
        v=$(ucx_pair "$test" "$s" "$n" | awk -v c="$column" -v k="$scale" '/^Final:/ { printf "%.3f", $c * k }')
        [ -z "$v" ] || echo "$s $v" >>"$log"
    done
    [ "$(grep -vc '^#' "$log")" -gt 0 ]
}
# ucx_pair TEST SIZE ITERS: a ucx_perftest server on core 0 and its client
# on core 1 (the client retries while the server starts listening).
ucx_pair() {
    port=$((20000 + ($$ * 7 + $2) % 30000))
    timeout 120 ucx_perftest -p "$port" -c 0 >/dev/null 2>&1 &
    server=$!
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        if timeout 120 ucx_perftest 127.0.0.1 -p "$port" -c 1 -t "$1" -s "$2" -n "$3" \
            -w $(($3 / 10)) -O 64 2>/dev/null; then
            break
        fi
        sleep 0.2
    done
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
}

# start_burners: the --busy processes, each a shell loop that ends when
# compare.sh does (it looks every few thousand iterations), so that none
# outlives a killed run. Each in a session of its own, as another job's
# process: where the kernel shares the CPUs among sessions (autogroup), a
# burner in compare.sh's session would share that session's part with the
# launchers whose ranks stay in it (Open MPI's) and not with the others'.
start_burners() {
    i=0
    while [ "$i" -lt "$busy" ]; do
        nice -n 0 setsid sh -c 'while kill -0 "$1" 2>/dev/null; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; done' \
            burner $$ &
        burners="$burners $!"
        i=$((i + 1))
    done
}

# table BENCH NP TAG COLUMN UNIT BETTER REF: the medians per size of one
# value (a line of metrics) of raw/ into its CSV and the summary. With a
# reference column (REF, io_tile's dd), the reference's median over every
# finished run of every MPI is a column "dd" beside the MPIs', and the
# ratios of ompi-lite and of the faster peer to it follow.
table() {
    csv=$out/$(value_name "$1" "$2" "$3").csv
    for name in $bl_names; do
        for r in $(seq "$runs"); do
            f=$out/raw/$(case_name "$1" "$2")-$name-$r.txt
            [ -f "$work/ok-$1-$2-$name-$r" ] || continue
            # Numbers only: io_tile prints '-' for a mode it did not run.
            awk -v n="$name" -v c="$4" -v ref="$7" '!/^#/ && NF >= c {
                if ($c ~ /^[0-9]/) print n, $1, $c
                if (ref != "-" && $ref ~ /^[0-9]/) print "dd", $1, $ref }' "$f"
        done
    done >"$work/values"
    refname=$(case $7 in -) ;; *) echo dd ;; esac)
    if [ "$7" = - ] && [ -n "$(find "$work" -name "ok-$1-$2-ucx-*")" ]; then
        refname=ucx
        for r in $(seq "$runs"); do
            [ -f "$work/ok-$1-$2-ucx-$r" ] || continue
            awk '!/^#/ && NF >= 2 { print "ucx", $1, $2 }' "$out/raw/$(case_name "$1" "$2")-ucx-$r.txt"
        done >>"$work/values"
    fi
    awk -v names="$bl_names" -v ref="$refname" -v better="$6" \
        -v unit="$5" -v runs="$runs" -v csv="$csv" -v title="$(what "$1" "$3"), $2 ranks$(where)" '
    function median(s,   v, n, i, j, x) {
        n = split(s, v, " ")
        for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    # ratio(a, b, label): a / b as a column of the CSV, and of the table
    # under label unless label is empty; empty without both.
    function ratio(a, b, label,   w) {
        w = length(label)
        if (a != "" && b != "" && b > 0) { if (w) printf "   %" w ".2f", a / b; printf ",%.3f", a / b > csv }
        else { if (w) printf "   %" w "s", ""; printf "," > csv }
    }
    { vals[$1, $2] = vals[$1, $2] " " $3; if (!($2 in seen)) { seen[$2] = 1; sizes[++ns] = $2 + 0 } }
    END {
        nn = split(names (ref != "" ? " " ref : ""), nm, " ")
        lite = " " names " " ~ / ompi-lite /
        for (i = 2; i <= ns; i++) { x = sizes[i]; for (j = i - 1; j >= 1 && sizes[j] > x; j--) sizes[j + 1] = sizes[j]; sizes[j + 1] = x }
        printf "%s: median of %d runs, %s (%s is better)\n", title, runs, unit, better
        printf "%10s", "size"; for (k = 1; k <= nn; k++) printf " %12s", nm[k]
        peer_label = lite ? "ompi-lite/faster peer" : ""
        ref_label = lite && ref != "" ? "ompi-lite/" ref : ""
        best_label = ref != "" ? "faster peer/" ref : ""
        if (peer_label != "") printf "   %s", peer_label
        if (ref_label != "") printf "   %s", ref_label
        if (best_label != "") printf "   %s", best_label
        printf "\n"
        head = "size"; for (k = 1; k <= nn; k++) head = head "," nm[k]
        print head ",ratio" (ref != "" ? ",ratio_" ref ",ratio_peer_" ref : "") > csv
        for (i = 1; i <= ns; i++) {
            s = sizes[i]; best = ""; lm = ""; rm = ""
            printf "%10d", s; printf "%d", s > csv
            for (k = 1; k <= nn; k++) {
                if ((nm[k], s) in vals) {
                    m = median(vals[nm[k], s]); printf (m < 1 ? " %12.3f" : " %12.2f"), m
                    printf ",%g", m > csv
                    if (nm[k] == "ompi-lite") lm = m
                    else if (nm[k] == ref) rm = m
                    else if (best == "" || (better == "lower" ? m < best : m > best)) best = m
                } else { printf " %12s", "-"; printf "," > csv }
            }
            ratio(lm, best, peer_label)
            if (ref != "") { ratio(lm, rm, ref_label); ratio(best, rm, best_label) }
            printf "\n"; printf "\n" > csv
        }
    }' "$work/values" | tee -a "$out/summary.txt"
    # The medians of an MPI with failed runs come from fewer runs: say so.
    for name in $bl_names; do
        ok=$(find "$work" -name "ok-$1-$2-$name-*" | wc -l)
        [ "$ok" -eq "$runs" ] || echo "($name: $ok of $runs runs finished)" | tee -a "$out/summary.txt"
    done
}

# plot BENCH NP TAG COLUMN UNIT BETTER REF: one value's CSV as a PNG, value
# against size on log axes, one line per MPI (and the reference's);
# bandwidth plots show the memcpy bandwidth as a dashed line.
plot() {
    csv=$out/$(value_name "$1" "$2" "$3").csv
    [ "$(wc -l <"$csv")" -gt 1 ] || return 0
    lines=
    i=1
    for name in $(head -n 1 "$csv" | tr , ' '); do
        # not the sizes nor the ratios; an MPI without numbers (skipped,
        # failed) gets no line
        case $name in size|ratio*) i=$((i + 1)); continue ;; esac
        if awk -F, -v c="$i" 'NR > 1 && $c != "" { found = 1 } END { exit !found }' "$csv"; then
            lines="$lines${lines:+, }'$csv' using (\$1 > 0 ? \$1 : NaN):$i with linespoints title '$name'"
        fi
        i=$((i + 1))
    done
    [ -n "$lines" ] || return 0
    case $5 in
    MB/s) lines="$lines, $memcpy_mbs with lines dashtype 2 lc rgb 'gray' title 'memcpy'" ;;
    GB/s) lines="$lines, $memcpy_mbs / 1000 with lines dashtype 2 lc rgb 'gray' title 'memcpy'" ;;
    esac
    case $5 in us) ylabel="latency (us)" ;; *) ylabel="bandwidth ($5)" ;; esac
    case $1 in io_tile_*) xlabel="bytes of the array" ;; *) xlabel="message size" ;; esac
    gnuplot <<EOF
set terminal pngcairo noenhanced size 900,600 font ',11'
set output '$out/$(value_name "$1" "$2" "$3").png'
set datafile separator ','
set key autotitle columnhead top left
set logscale x 2
set logscale y
set format x '%.0b%B'
set xlabel '$xlabel (bytes; ki = 2^10, Mi = 2^20)'
set ylabel '$ylabel'
set title '$(what "$1" "$3"), $2 ranks$(where): median of $runs runs ($6 is better)'
set grid
plot $lines
EOF
}

# summary.txt collects the tables of every invocation, each under a header.
{
    # shellcheck disable=SC2016 # the single quotes are text
    echo "=== $(date '+%Y-%m-%d %H:%M'), $(hostname), $(nproc) cores: -b $(echo "$benches" | tr ' ' ,) -p $nps -n $runs${args:+ -a '$args'}${coll_args:+ -A '$coll_args'}${io_args:+ -I '$io_args'}${hostfile:+ --hostfile $hostfile}${netns:+ --netns $netns}$([ "$busy" -eq 0 ] || echo " --busy $busy")${ucx:+ --ucx}"
    cat "$out/memcpy.txt"
} >>"$out/summary.txt"
start_burners
for b in $benches; do
    for np in $(echo "$nps" | tr , ' '); do
        [ -z "$netns" ] || netns_hostfiles "$np"
        for r in $(seq "$runs"); do
            for name in $bl_names; do
                [ -x "$out/build/$name/$(program "$b")" ] || continue
                printf 'compare.sh: %s -np %s, run %s of %s, %s\n' "$b" "$np" "$r" "$runs" "$name" >&2
                if run "$name" "$b" "$np" "$r"; then
                    : >"$work/ok-$b-$np-$name-$r"
                else
                    echo "compare.sh: $name failed on $b -np $np (see $out/raw/$(case_name "$b" "$np")-$name-$r.txt):" >&2
                    tail -n 5 "$out/raw/$(case_name "$b" "$np")-$name-$r.txt" | sed 's/^/  /' >&2
                    netns_sweep
                fi
            done
            if ucx_run "$b" "$np" "$r" 2>/dev/null; then
                : >"$work/ok-$b-$np-ucx-$r"
            fi
        done
        echo
        for name in $bl_names; do
            [ -x "$out/build/$name/$(program "$b")" ] ||
                echo "($name skipped: its $(program "$b") does not build)" | tee -a "$out/summary.txt"
        done
        # shellcheck disable=SC2086 # a line of metrics is the arguments
        metrics "$b" | while read -r m; do
            table "$b" "$np" $m
            [ -z "$plot" ] || plot "$b" "$np" $m
        done
        core_round_trip_range "$b" "$np"
    done
done
echo
echo "results in $out: summary.txt, <benchmark>-np<N>.csv${plot:+ and .png}, raw/ (every run)"
