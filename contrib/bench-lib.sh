# Shell helpers shared by contrib/bench-startup.sh and contrib/compare.sh;
# sourced, not run. POSIX sh.
#
# The MPIs compared side by side: ompi-lite (its mpirun and mpicc), Debian's
# Open MPI (mpicc.openmpi, mpirun.openmpi) and MPICH (mpicc.mpich,
# mpiexec.mpich). Each one found is recorded under a NAME (ompi-lite,
# openmpi, mpich) with its compiler and launcher command:
#   bl_names          the NAMEs found, in the order added
#   bl_get cc NAME    its mpicc;  bl_get run NAME  its launcher command
#   bl_only           comma list of the NAMEs wanted (set before bl_add_all)

bl_names=
bl_only=${bl_only:-ompi-lite,openmpi,mpich}

# bl_var NAME: NAME as a shell variable suffix (ompi-lite -> ompi_lite).
bl_var() {
    echo "$1" | tr - _
}

# bl_get KIND NAME: what bl_add recorded (KIND cc or run).
bl_get() {
    eval "echo \"\$bl_${1}_$(bl_var "$2")\""
}

# bl_add NAME MPICC RUNNER...: records NAME if bl_only lists it and its
# launcher is installed (the compiler is checked when something is built).
bl_add() {
    _name=$1 _cc=$2
    shift 2
    case ",$bl_only," in *",$_name,"*) ;; *) return 0 ;; esac
    command -v "$1" >/dev/null 2>&1 || { echo "skipping $_name: $1 not found" >&2; return 0; }
    eval "bl_cc_$(bl_var "$_name")=\$_cc"
    eval "bl_run_$(bl_var "$_name")=\"\$*\""
    bl_names="$bl_names $_name"
}

# bl_add_all MPIRUN [MPICC]: ompi-lite (MPIRUN, and MPICC or the mpicc beside
# it; skipped when MPIRUN is empty), then the Debian peers. ompi-lite and
# Open MPI get --oversubscribe (Open MPI also --allow-run-as-root), so that
# they run as root and on more ranks than cores, as MPICH does.
bl_add_all() {
    if [ -n "$1" ]; then
        bl_add ompi-lite "${2:-$(dirname "$1")/mpicc}" "$1" --oversubscribe
    else
        echo "skipping ompi-lite: give --mpirun or set PREFIX" >&2
    fi
    bl_add openmpi mpicc.openmpi mpirun.openmpi --oversubscribe --allow-run-as-root
    bl_add mpich mpicc.mpich mpiexec.mpich
}

# bl_build NAME OUTPUT ARGS...: compiles with NAME's mpicc (-O2 -o OUTPUT
# ARGS), the compiler's messages to stderr. Fails if the compiler is missing
# or fails.
bl_build() {
    _cc=$(bl_get cc "$1")
    _out=$2
    shift 2
    command -v "$_cc" >/dev/null 2>&1 || { echo "$_cc not found" >&2; return 1; }
    "$_cc" -O2 -o "$_out" "$@"
}

# bl_median FILE [FORMAT]: the median of the numbers in FILE, one a line
# (the mean of the two middle ones for an even count), printed with the awk
# printf FORMAT (default %.6g).
bl_median() {
    sort -g "$1" | awk -v fmt="${2:-%.6g}" '{ a[NR] = $1 }
        END { if (NR) printf fmt "\n", NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
