#!/bin/sh
# Under `use mpi` the explicit interfaces make a wrong argument type or count
# a compile-time error with the compiler's own message, while any type and
# rank of buffer is still accepted for a choice argument.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

[ -n "$FC" ] || hard_error "FC is not set"
module_dir=$top_builddir/ompi-lite/fortran
[ -f "$module_dir/mpi.mod" ] || hard_error "$module_dir/mpi.mod was not built"

# compile NAME CALL: compiles a program that makes CALL, keeping the
# compiler's messages in $work/NAME.err; its status is the compiler's.
compile() {
    cat > "$work/$1.f90" <<PROGRAM
program $1
  use mpi
  implicit none
  integer :: ierr, ibuf(3, 2)
  double precision :: dbuf
  character(len=4) :: cbuf
  $2
end program $1
PROGRAM
    $FC -fsyntax-only -ffree-line-length-none -I"$module_dir" -J"$work" "$work/$1.f90" > "$work/$1.err" 2>&1
}

expect_compiles() {
    compile "$1" "$2" || { cat "$work/$1.err"; fail "$1 does not compile: $2"; }
}

# expect_rejected NAME CALL REGEX: the compiler refuses CALL saying REGEX.
expect_rejected() {
    if compile "$1" "$2"; then
        fail "$1 compiles, but should not: $2"
    fi
    cat "$work/$1.err"
    grep -Eq "$3" "$work/$1.err" || fail "$1: the compiler did not say /$3/"
}

expect_compiles any_buffer \
    "call MPI_Send(ibuf, 6, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr); \
call MPI_Send(dbuf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, ierr); \
call MPI_Send(cbuf, 4, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD, ierr)"
expect_rejected real_count "call MPI_Send(ibuf, 1.5, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)" \
    "Type mismatch|REAL\(4\) to INTEGER\(4\)"
expect_rejected character_comm "call MPI_Send(ibuf, 1, MPI_INTEGER, 0, 0, 'world', ierr)" \
    "Type mismatch|CHARACTER.* to INTEGER"
expect_rejected no_ierror "call MPI_Send(ibuf, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)" \
    "Missing actual argument for argument .*ierror"
expect_rejected array_tag "call MPI_Send(ibuf, 1, MPI_INTEGER, 0, ibuf, MPI_COMM_WORLD, ierr)" \
    "Rank mismatch"
