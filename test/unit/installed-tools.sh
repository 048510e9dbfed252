#!/bin/sh
# The installed compiler wrappers, library names and pkg-config file work as
# a user would use them: a program built with the installed mpicc runs with
# no LD_LIBRARY_PATH. Needs `make install` first (test/run-tests.sh does it).
set -u
bin="$OL_PREFIX/bin"
if [ ! -x "$bin/mpicc" ]; then
    echo "SKIP: $bin/mpicc is not installed yet (run make install first)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_in() { # expect_in TEXT WORD WHAT
    case "$1" in *"$2"*) ;; *) fail "$3: '$2' missing from: $1" ;; esac
}

cat > "$work/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("hello from %d of %d\n", rank, size);
    return MPI_Finalize();
}
C
cp "$work/hello.c" "$work/hello.cc"

show=$("$bin/mpicc" -show -o x hello.c)
expect_in "$show" "-I$OL_PREFIX/include" "mpicc -show"
expect_in "$show" "-lmpi_abi" "mpicc -show"
expect_in "$("$bin/mpicc" --showme -c hello.c)" "-c hello.c" "mpicc --showme -c"
expect_in "$("$bin/mpicc" -compile_info)" "-I$OL_PREFIX/include" "mpicc -compile_info"
expect_in "$("$bin/mpicc" -link_info)" "-Wl,-rpath,$OL_PREFIX/lib" "mpicc -link_info"
expect_in "$(OMPI_LITE_CC=echo "$bin/mpicc" marker.c)" "marker.c" "OMPI_LITE_CC=echo mpicc"

if "$bin/mpicc" -o "$work/hello" "$work/hello.c"; then
    out=$(env -u LD_LIBRARY_PATH "$work/hello") || fail "hello built by mpicc did not run"
    [ "$out" = "hello from 0 of 1" ] || fail "hello printed '$out'"
    readelf -d "$work/hello" | grep -q "RUNPATH.*$OL_PREFIX/lib" || fail "no RUNPATH in the program"
else
    fail "mpicc could not build hello.c"
fi
"$bin/mpicxx" -o "$work/hello_cxx" "$work/hello.cc" && "$work/hello_cxx" >/dev/null ||
    fail "mpicxx could not build and run hello.cc"

readelf -d "$OL_PREFIX/lib/libmpi_abi.so" | grep -q "SONAME.*libmpi_abi.so.1" ||
    fail "libmpi_abi.so has no soname libmpi_abi.so.1"
cc -I"$OL_PREFIX/include" -o "$work/hello_lmpi" "$work/hello.c" -L"$OL_PREFIX/lib" -lmpi \
    -Wl,-rpath,"$OL_PREFIX/lib" && "$work/hello_lmpi" >/dev/null ||
    fail "linking with -lmpi (the alias of libmpi_abi) failed"

pc_flags=$(PKG_CONFIG_PATH="$OL_PREFIX/lib/pkgconfig" pkg-config --cflags --libs ompi-lite) ||
    fail "pkg-config does not know ompi-lite"
expect_in "${pc_flags:-}" "-lmpi_abi" "pkg-config --libs ompi-lite"

info=$("$bin/ompi_lite_info") || fail "ompi_lite_info failed"
for word in "ompi-lite" "UCX" "PMIx" "hwloc" "libevent" "CUDA support" "OMPI_LITE_SPIN_US"; do
    expect_in "${info:-}" "$word" "ompi_lite_info"
done
"$bin/ompi_lite_info" --bogus >/dev/null 2>&1 && fail "ompi_lite_info accepted --bogus"

[ $failures -eq 0 ] && echo "PASS: installed tools" && exit 0
exit 1
