#!/bin/sh
# Runs MPICH's own test suite (test/mpi of Debian's mpich source package)
# against ompi-lite, to find where ompi-lite differs from what MPI programs
# in the wild expect. Not part of the test command: it downloads the mpich
# source with apt-get (adding a deb-src entry for Debian's archive when
# there is none), needs root, and takes 20-30 minutes on 2 cores.
#
#   contrib/mpich-testsuite.sh [-d DIRS] [-w WORKDIR] [-f] [-m MPI]
#   -d DIRS     directories of test/mpi, comma separated (default:
#               pt2pt,part,coll,datatype,comm,group,attr,errhan,topo,info,init,
#               threads,rma,io,spawn,mpi_t,errors: errors holds erroneous
#               calls that must return their error class, 10 more minutes
#               of which 5 are three tests of 200000 communicators that
#               time out); the Fortran ones are f77, f90, f08 or some
#               of their parts, e.g. -f -d f77/io,f90/io,f08/io for MPI-IO
#   -w WORKDIR  where the suite is unpacked and built (default
#               /tmp/mpich-testsuite, /tmp/mpich-testsuite-mpich with -m mpich)
#   -f          configure the suite with its Fortran tests (f77, f90, f08 and
#               the Fortran parts of other directories), built with mpifort;
#               the default leaves them out. WORKDIR's suite is configured
#               anew when this choice differs from its last run.
#   -m MPI      the MPI to test: ompi-lite (default), or mpich, Debian's
#               MPICH (mpicc.mpich, mpiexec.mpich), to tell the suite's own
#               failures from ompi-lite's (each of its failures is a FAIL line)
#
# Each test runs through the MPI's mpiexec with MPIEXEC_TIMEOUT and
# OMPI_LITE_OVERSUBSCRIBE=1 (the suite runs up to 10 ranks). A failure listed
# in contrib/mpich-testsuite.expected, with its reason, is counted apart;
# the last line is "N passed, N failed, N expected failures".
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$top/_install
dirs=pt2pt,part,coll,datatype,comm,group,attr,errhan,topo,info,init,threads,rma,io,spawn,mpi_t,errors
work=
fortran=--disable-fortran
mpi=ompi-lite
while [ $# -gt 0 ]; do
    case $1 in
    -d) dirs=$2; shift 2 ;;
    -w) work=$2; shift 2 ;;
    -f) fortran=--enable-fortran=all; shift ;;
    -m) mpi=$2; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "mpich-testsuite: unknown option '$1' (see -h)" >&2; exit 2 ;;
    esac
done
case $mpi in
ompi-lite)
    [ -x "$prefix/bin/mpicc" ] || { echo "mpich-testsuite: build ompi-lite first (contrib/build.sh)" >&2; exit 2; }
    work=${work:-/tmp/mpich-testsuite} ;;
mpich)
    command -v mpicc.mpich >/dev/null || { echo "mpich-testsuite: mpicc.mpich not found" >&2; exit 2; }
    work=${work:-/tmp/mpich-testsuite-mpich}
    # The suite wants one folder with bin/mpicc, bin/mpiexec...; Debian
    # names MPICH's with a suffix. mpiexec starts the hydra_pmi_proxy of
    # the folder it was started from.
    prefix=$work/mpich
    mkdir -p "$prefix/bin"
    for tool in mpicc mpicxx mpif77 mpifort mpiexec; do
        ln -sf "$(command -v "$tool.mpich")" "$prefix/bin/$tool"
    done
    ln -sf "$(command -v hydra_pmi_proxy)" "$prefix/bin/hydra_pmi_proxy" ;;
*) echo "mpich-testsuite: unknown MPI '$mpi' (ompi-lite, mpich)" >&2; exit 2 ;;
esac
. "$top/contrib/debian-source.sh"

# The suite's sources: test/mpi of the mpich source package.
fetch_suite() {
    [ -d "$work/src/test/mpi" ] && return 0
    fetch_debian_source mpich "$work/download"
    mkdir -p "$work/src"
    tar xJf "$work"/download/mpich_*.orig.tar.xz -C "$work/src" --strip-components=1 \
        --wildcards '*/test/mpi'
}

# Stand-ins that only let the suite's helper library link: dtpools uses the
# MPI-1 names MPI_Type_hvector/hindexed, which the standard ABI no longer has
# (they are the create_ calls).
link_stand_ins() {
    cat >"$work/stand_ins.c" <<'EOF'
#include <mpi.h>
int MPI_Type_hvector(int c, int b, MPI_Aint s, MPI_Datatype o, MPI_Datatype *n) { return MPI_Type_create_hvector(c, b, s, o, n); }
int MPI_Type_hindexed(int c, const int b[], const MPI_Aint d[], MPI_Datatype o, MPI_Datatype *n) { return MPI_Type_create_hindexed(c, b, d, o, n); }
EOF
    "$prefix/bin/mpicc" -c "$work/stand_ins.c" -o "$work/stand_ins.o"
    for lib in "$work"/src/test/mpi/util/.libs/*.a; do
        ar r "$lib" "$work/stand_ins.o" 2>/dev/null
    done
}

# The suite's configure line; io (MPI-IO) is in, which the suite calls
# "romio" whatever the MPI: it also makes io/async use MPI_Request, not
# ROMIO's own MPIO_Request, for the file's nonblocking calls.
configure_args="--with-mpi=$prefix $fortran --disable-cxx --disable-spawn --disable-ft-tests --enable-threads=multiple"

build_suite() {
    cd "$work/src/test/mpi"
    # Configured anew when the line differs from the last one (a suite
    # configured before io was in, or -f given or not), which rebuilds it.
    if [ ! -f Makefile ] || [ "$(cat "$work/configure.args" 2>/dev/null)" != "$configure_args" ]; then
        # mpif.h programs pass one routine buffers of different types, which
        # gfortran 10 and later refuse without this flag.
        # shellcheck disable=SC2086 # the line is split into its words
        F77=$prefix/bin/mpif77 FC=$prefix/bin/mpifort FFLAGS=-fallow-argument-mismatch \
            FCFLAGS=-fallow-argument-mismatch \
            ./configure $configure_args >"$work/configure.log" 2>&1
        echo "$configure_args" >"$work/configure.args"
    fi
    make -C util >"$work/util.log" 2>&1
    # The suite builds its mpi_f08 helpers only inside MPICH's own tree
    # (FROM_MPICH); the f08 directory needs them all the same.
    if [ "$fortran" != --disable-fortran ]; then
        make -C util libmtest_f08.la am_libmtest_f08_la_OBJECTS=mtest_f08.lo >>"$work/util.log" 2>&1
    fi
    [ "$mpi" = mpich ] || link_stand_ins
}

# Runs one directory (or a nested one, threads/part); its TAP file is
# $work/DIR.tap.
run_dir() {
    d=$1
    echo "mpich-testsuite: $d" >&2
    mkdir -p "$(dirname "$work/$d.tap")"
    cd "$work/src/test/mpi/$d"
    make -k -j2 >"$work/$d.build.log" 2>&1 || true
    PATH=$prefix/bin:$PATH OMPI_LITE_OVERSUBSCRIBE=1 MPITEST_TIMEOUT=90 \
        "$work/src/test/mpi/runtests" -srcdir=. -tests=testlist -mpiexec="$(launcher_for "$d")" \
        -tapfile="$work/$d.tap" >"$work/$d.run.log" 2>&1 || true
}

# The spawn tests spawn only while MPI_UNIVERSE_SIZE, the slots, exceeds
# their world (else they print "No Errors" and stop): ompi-lite's mpiexec
# gets 16 slots of this host for them, the slots of a small node.
launcher_for() {
    case $1 in
    spawn | */spawn) ;;
    *) echo "$prefix/bin/mpiexec"; return ;;
    esac
    [ "$mpi" = ompi-lite ] || { echo "$prefix/bin/mpiexec"; return; }
    printf '#!/bin/sh\nexec "%s" --host localhost:16 "$@"\n' "$prefix/bin/mpiexec" >"$work/mpiexec-16-slots"
    chmod +x "$work/mpiexec-16-slots"
    echo "$work/mpiexec-16-slots"
}

# ompi-lite's expected failures, with their reasons.
expected_list=$top/contrib/mpich-testsuite.expected
[ "$mpi" = ompi-lite ] || expected_list=/dev/null

fetch_suite
build_suite
passed=0 failed=0 expected=0
for d in $(echo "$dirs" | tr ',' ' '); do
    run_dir "$d"
    passed=$((passed + $(grep -c '^ok' "$work/$d.tap" || true)))
    for t in $(sed -n 's|^not ok  *- \./\([^ ]*\).*|\1|p' "$work/$d.tap" | sort -u); do
        if grep -q "^$d/$t " "$expected_list"; then
            expected=$((expected + 1))
        else
            failed=$((failed + 1))
            echo "FAIL: $d/$t (see $work/$d.tap)"
        fi
    done
    # runtests gives up on a directory after 5 timeouts that are more than
    # half its runs; the tests after them are in no TAP line.
    if grep -q 'too many timeout failures' "$work/$d.run.log"; then
        failed=$((failed + 1))
        echo "FAIL: $d stopped after too many timeouts, its last tests not run (see $work/$d.run.log)"
    fi
done
echo "$passed passed, $failed failed, $expected expected failures"
