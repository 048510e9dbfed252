#!/bin/sh
# Under `use mpi_f08` a handle of the wrong kind, an INTEGER where a handle
# belongs, or a wrong argument type is a compile-time error with the
# compiler's message; any type and rank of buffer, array sections included,
# and a call without ierror still compile.
# shellcheck source=test/harness.sh
. "$(dirname "$0")/../harness.sh"

[ -n "$FC" ] || hard_error "FC is not set"
module_dir=$top_builddir/ompi-lite/fortran
[ -f "$module_dir/mpi_f08.mod" ] || hard_error "$module_dir/mpi_f08.mod was not built"

# compile NAME CALL: compiles a program that makes CALL, keeping the
# compiler's messages in $work/NAME.err; its status is the compiler's.
compile() {
    cat > "$work/$1.f90" <<PROGRAM
program $1
  use mpi_f08
  implicit none
  integer :: ierr, ibuf(3, 2), icomm
  double precision :: dbuf
  character(len=4) :: cbuf
  type(MPI_Comm) :: comm
  type(MPI_Datatype) :: dtype
  type(MPI_Request) :: request
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
call MPI_Send(dbuf, 1, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD); \
call MPI_Isend(ibuf(2, :), 2, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, request); \
call MPI_Send(cbuf, 4, MPI_CHARACTER, 0, 0, MPI_COMM_WORLD)"
expect_compiles handles_compare \
    "comm = MPI_COMM_WORLD; if (comm == MPI_COMM_WORLD .and. comm /= MPI_COMM_NULL) icomm = comm%MPI_VAL"
expect_rejected integer_comm "call MPI_Send(ibuf, 1, MPI_INTEGER, 0, 0, icomm, ierr)" \
    "no specific subroutine for the generic|Type mismatch"
expect_rejected type_for_comm "call MPI_Comm_rank(MPI_INTEGER, ierr)" \
    "no specific subroutine for the generic|Type mismatch"
expect_rejected comm_for_type "call MPI_Send(ibuf, 1, MPI_COMM_WORLD, 0, 0, comm)" \
    "no specific subroutine for the generic|Type mismatch"
expect_rejected real_count "call MPI_Send(ibuf, 1.5, MPI_INTEGER, 0, 0, comm)" \
    "no specific subroutine for the generic|Type mismatch"
expect_rejected compare_kinds "if (comm == dtype) ierr = 1" \
    "Operands of comparison operator|no.*operator"
