#!/bin/sh
# The installed mpifort as build systems ask it: -show, -compile_info and
# -link_info (what CMake's FindMPI reads), the ompi-lite-fortran pkg-config
# file, and a CMake project with find_package(MPI COMPONENTS C Fortran)
# whose C and mpi_f08 programs, linked to MPI::MPI_C and MPI::MPI_Fortran,
# run with the mpiexec FindMPI found. Needs `make install` first
# (test/run-tests.sh does it); skipped where it was not run or where
# cmake is absent (contrib/install-deps.sh installs it).
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

bin=$OL_PREFIX/bin
if [ ! -x "$bin/mpifort" ]; then
    echo "SKIP: $bin/mpifort is not installed yet (run make install first)"
    exit 77
fi

# expect_words TEXT WHAT WORD...: each WORD is in TEXT.
expect_words() {
    text=$1 what=$2
    shift 2
    for word in "$@"; do
        case "$text" in *"$word"*) ;; *) fail "$what: '$word' missing from: $text" ;; esac
    done
}

expect_words "$("$bin/mpifort" -show -o x x.f90)" "mpifort -show" \
    "-I$OL_PREFIX/include" "-o x x.f90" "-lmpi_abi_f -lmpi_abi" "-Wl,-rpath,$OL_PREFIX/lib"
expect_words "$("$bin/mpifort" -compile_info)" "mpifort -compile_info" "-I$OL_PREFIX/include"
expect_words "$("$bin/mpifort" -link_info)" "mpifort -link_info" "-lmpi_abi_f -lmpi_abi"
expect_words "$("$bin/mpif90" --showme:compile)" "mpif90 --showme:compile" "-I$OL_PREFIX/include"
pc=$(PKG_CONFIG_PATH="$OL_PREFIX/lib/pkgconfig" pkg-config --cflags --libs ompi-lite-fortran) ||
    fail "pkg-config does not know ompi-lite-fortran"
expect_words "$pc" "pkg-config --cflags --libs ompi-lite-fortran" \
    "-I$OL_PREFIX/include" "-lmpi_abi_f" "-lmpi_abi"

if ! command -v cmake >/dev/null; then
    echo "SKIP: cmake is not installed (contrib/install-deps.sh installs it)"
    exit 77
fi

cat >"$work/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.10)
project(findmpi_fortran C Fortran)
find_package(MPI REQUIRED COMPONENTS C Fortran)
if(NOT MPI_Fortran_HAVE_F77_HEADER OR NOT MPI_Fortran_HAVE_F90_MODULE
   OR NOT MPI_Fortran_HAVE_F08_MODULE)
  message(FATAL_ERROR "FindMPI: mpif.h ${MPI_Fortran_HAVE_F77_HEADER}, "
          "mpi ${MPI_Fortran_HAVE_F90_MODULE}, mpi_f08 ${MPI_Fortran_HAVE_F08_MODULE}")
endif()
add_executable(sum_c sum.c)
target_link_libraries(sum_c MPI::MPI_C)
add_executable(sum_f08 sum.f90)
target_link_libraries(sum_f08 MPI::MPI_Fortran)
file(WRITE ${CMAKE_BINARY_DIR}/mpiexec.txt "${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}")
CMAKE
cat >"$work/sum.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("c: rank %d sum %d\n", rank, sum);
    return MPI_Finalize();
}
C
cat >"$work/sum.f90" <<'FORTRAN'
program sum_f08
  use mpi_f08
  implicit none
  integer :: rank, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  print '(a, i0, a, i0)', 'f08: rank ', rank, ' sum ', total
  call MPI_Finalize()
end program
FORTRAN

# FindMPI finds the wrappers on PATH, as a user who installed ompi-lite has them.
capture env PATH="$bin:$PATH" cmake -S "$work" -B "$work/build"
expect_success
expect_out "Found MPI_Fortran: $OL_PREFIX/lib/libmpi_abi_f.so"
capture cmake --build "$work/build"
expect_success

read -r mpiexec np_flag <"$work/build/mpiexec.txt"
case $mpiexec in
"$bin"/mpiexec | "$bin"/mpirun) ;;
*) fail "FindMPI's MPIEXEC_EXECUTABLE is '$mpiexec', not $bin's" ;;
esac
for prog in sum_c sum_f08; do
    capture env -u LD_LIBRARY_PATH "$mpiexec" "$np_flag" 3 "$work/build/$prog"
    expect_success
    for rank in 0 1 2; do
        expect_out ": rank $rank sum 3\$"
    done
done
