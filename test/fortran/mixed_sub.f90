! The Fortran half of mixed_main.c: an allreduce of the ranks of MPI_COMM_WORLD
! on the communicator C passed, a duplicate of it for C to use, and the
! INTEGERs of two predefined handles.
subroutine fortran_side(comm, sum, dup, world, integer_type)
  use mpi
  implicit none
  integer, intent(in) :: comm
  integer, intent(out) :: sum, dup, world, integer_type
  integer :: rank, ierr
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  world = MPI_COMM_WORLD
  integer_type = MPI_INTEGER
end subroutine fortran_side
