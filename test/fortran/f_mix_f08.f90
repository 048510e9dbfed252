! `use mpi` and `use mpi_f08` in one program: handles cross between them
! through MPI_VAL (MPI-4.1 19.2.4), in both directions, and work on either
! side: a communicator made under `use mpi` carries a reduction under
! mpi_f08, and one made under mpi_f08 a reduction under `use mpi`.
module old_side
  use mpi
  implicit none
contains
  ! A duplicate of the INTEGER communicator, and the sum of the ranks on it.
  subroutine dup_and_sum(comm, dup, sum)
    integer, intent(in) :: comm
    integer, intent(out) :: dup, sum
    integer :: rank, ierr
    call MPI_Comm_dup(comm, dup, ierr)
    call MPI_Comm_rank(dup, rank, ierr)
    call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  end subroutine dup_and_sum

  logical function is_world(comm)
    integer, intent(in) :: comm
    is_world = comm == MPI_COMM_WORLD
  end function is_world
end module old_side

program f_mix_f08
  use mpi_f08
  use old_side, only: dup_and_sum, is_world
  implicit none
  type(MPI_Comm) :: dup, reversed
  integer :: rank, nprocs, sum_old, sum_new, dup_integer, failures

  failures = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (.not. is_world(MPI_COMM_WORLD%MPI_VAL)) failures = failures + 1
  call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, reversed)
  call dup_and_sum(reversed%MPI_VAL, dup_integer, sum_old)
  if (sum_old /= nprocs * (nprocs - 1) / 2) failures = failures + 1
  dup%MPI_VAL = dup_integer
  call MPI_Allreduce(rank, sum_new, 1, MPI_INTEGER, MPI_MAX, dup)
  if (sum_new /= nprocs - 1) failures = failures + 1
  call MPI_Comm_rank(dup, sum_new)
  if (sum_new /= nprocs - 1 - rank) failures = failures + 1
  call MPI_Comm_free(dup)
  call MPI_Comm_free(reversed)
  if (failures > 0) then
    print '(a, i0, a, i0)', 'f_mix_f08: rank ', rank, ' failures: ', failures
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Finalize()
  if (rank == 0) print '(a, i0, a)', 'f_mix_f08: ', nprocs, ' ranks OK'
end program f_mix_f08
