! The mpi_f08 module over 1..4 ranks: what f_mpi.F90 checks under mpif.h and
! `use mpi`, written the mpi_f08 way (TYPE(MPI_Comm) handles compared with
! == and /=, TYPE(MPI_Status) components, ierror left out), plus
! non-contiguous array sections passed directly as buffers, to blocking and
! nonblocking calls, sending and receiving. A failed check prints one line;
! the program then ends with MPI_Abort, so the test sees a non-zero exit.
module f08_checks
  implicit none
  integer :: failures = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      print '(a, a)', 'f_mpi_f08: FAIL: ', what
    end if
  end subroutine check
end module f08_checks

module f08_callbacks
  use mpi_f08
  implicit none
  integer :: calls = 0, last_code = 0, deletes = 0
contains
  ! inoutvec = invec + inoutvec, for MPI_INTEGER only (MPI_User_function)
  subroutine add_integers(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: in(:), inout(:)
    if (datatype /= MPI_INTEGER) stop 'user op: not MPI_INTEGER'
    call c_f_pointer(invec, in, [len])
    call c_f_pointer(inoutvec, inout, [len])
    inout = in + inout
  end subroutine add_integers

  subroutine count_errors(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    calls = calls + 1
    last_code = error_code
  end subroutine count_errors

  subroutine copy_plus_one(oldcomm, comm_keyval, extra_state, attribute_val_in, &
      attribute_val_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    attribute_val_out = attribute_val_in + 1 + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine copy_plus_one

  subroutine count_deletes(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    ierror = MPI_SUCCESS
  end subroutine count_deletes
end module f08_callbacks

program f_mpi_f08
  use mpi_f08
  use f08_checks
  use f08_callbacks
  implicit none
  integer :: rank, nprocs, ierr

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_size with ierror')
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')

  call point_to_point()
  call nonblocking()
  call probe()
  call collectives()
  call vector_over_matrix()
  call sections_blocking()
  call sections_nonblocking()
  call communicators()
  call user_op()
  call errors_and_strings()
  call callbacks()

  if (failures > 0) then
    print '(a, i0, a, i0)', 'f_mpi_f08: rank ', rank, ' failures: ', failures
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end if
  call MPI_Finalize()
  if (rank == 0) print '(a, i0, a)', 'f_mpi_f08: ', nprocs, ' ranks OK'

contains

  integer function right()
    right = mod(rank + 1, nprocs)
  end function right

  integer function left()
    left = mod(rank - 1 + nprocs, nprocs)
  end function left

  subroutine point_to_point()
    integer :: out(10), in(10), i, count, seen
    type(MPI_Status) :: status
    out = [(rank * 100 + i, i = 1, 10)]
    in = -1
    call MPI_Sendrecv(out, 10, MPI_INTEGER, right(), 7, in, 10, MPI_INTEGER, left(), 7, &
                      MPI_COMM_WORLD, status)
    call check(all(in == [(left() * 100 + i, i = 1, 10)]), 'sendrecv data')
    call check(status%MPI_SOURCE == left() .and. status%MPI_TAG == 7, 'sendrecv status')
    call MPI_Get_count(status, MPI_INTEGER, count)
    call check(count == 10, 'sendrecv count')
    if (rank /= 0) then
      call MPI_Send(out, 3, MPI_INTEGER, 0, 8, MPI_COMM_WORLD)
    else
      seen = 0
      do i = 1, nprocs - 1
        call MPI_Recv(in, 10, MPI_INTEGER, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, status)
        call check(all(in(1:3) == status%MPI_SOURCE * 100 + [1, 2, 3]), 'any-source data')
        seen = seen + status%MPI_SOURCE
      end do
      call check(seen == nprocs * (nprocs - 1) / 2, 'any-source senders')
    end if
    call MPI_Recv(in, 10, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'recv from MPI_PROC_NULL with MPI_STATUS_IGNORE')
  end subroutine point_to_point

  subroutine nonblocking()
    type(MPI_Request) :: requests(4)
    type(MPI_Status) :: statuses(4)
    integer :: i
    double precision :: to_left(6), to_right(6), from_left(6), from_right(6)
    to_left = [(rank + i * 0.25d0, i = 1, 6)]
    to_right = -to_left
    call MPI_Irecv(from_left, 6, MPI_DOUBLE_PRECISION, left(), 21, MPI_COMM_WORLD, requests(1))
    call MPI_Irecv(from_right, 6, MPI_DOUBLE_PRECISION, right(), 22, MPI_COMM_WORLD, requests(2))
    call MPI_Isend(to_right, 6, MPI_DOUBLE_PRECISION, right(), 21, MPI_COMM_WORLD, requests(3))
    call MPI_Isend(to_left, 6, MPI_DOUBLE_PRECISION, left(), 22, MPI_COMM_WORLD, requests(4))
    call MPI_Waitall(4, requests, statuses)
    call check(all(requests == MPI_REQUEST_NULL), 'waitall leaves MPI_REQUEST_NULL')
    call check(all(from_left == [(-(left() + i * 0.25d0), i = 1, 6)]), 'irecv from left')
    call check(all(from_right == [(right() + i * 0.25d0, i = 1, 6)]), 'irecv from right')
    call check(statuses(2)%MPI_SOURCE == right() .and. statuses(2)%MPI_TAG == 22, 'statuses(2)')
    call MPI_Isend(to_left, 1, MPI_DOUBLE_PRECISION, rank, 23, MPI_COMM_WORLD, requests(1))
    call MPI_Irecv(from_left, 1, MPI_DOUBLE_PRECISION, rank, 23, MPI_COMM_WORLD, requests(2))
    call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE)
    call check(from_left(1) == to_left(1), 'waitall, MPI_STATUSES_IGNORE')
    ! Waitany's index counts from 1 in Fortran: the receive is requests(2)
    call MPI_Irecv(from_left, 1, MPI_DOUBLE_PRECISION, rank, 24, MPI_COMM_WORLD, requests(1))
    call MPI_Irecv(from_right, 1, MPI_DOUBLE_PRECISION, rank, 25, MPI_COMM_WORLD, requests(2))
    call MPI_Send(to_left, 1, MPI_DOUBLE_PRECISION, rank, 25, MPI_COMM_WORLD)
    call MPI_Waitany(2, requests, i, statuses(1))
    call check(i == 2 .and. requests(2) == MPI_REQUEST_NULL .and. requests(1) /= MPI_REQUEST_NULL, &
               'waitany index counts from 1')
    call MPI_Send(to_left, 1, MPI_DOUBLE_PRECISION, rank, 24, MPI_COMM_WORLD)
    call MPI_Wait(requests(1), MPI_STATUS_IGNORE)
  end subroutine nonblocking

  subroutine probe()
    type(MPI_Request) :: request
    type(MPI_Status) :: status
    integer :: count, i
    real :: sent(5), got(5)
    logical :: flag
    sent = [(real(rank) + i, i = 1, 5)]
    call MPI_Isend(sent, 3 + mod(rank, 3), MPI_REAL, right(), 31, MPI_COMM_WORLD, request)
    call MPI_Probe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, status)
    call MPI_Get_count(status, MPI_REAL, count)
    call check(count == 3 + mod(left(), 3), 'probe count')
    call MPI_Iprobe(left(), 31, MPI_COMM_WORLD, flag, status)
    call check(flag, 'iprobe flag (LOGICAL)')
    got = 0
    call MPI_Recv(got, count, MPI_REAL, status%MPI_SOURCE, 31, MPI_COMM_WORLD, status)
    call check(all(got(1:count) == [(real(left()) + i, i = 1, count)]), 'probed data')
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    call check(request == MPI_REQUEST_NULL, 'wait leaves MPI_REQUEST_NULL')
  end subroutine probe

  subroutine collectives()
    integer :: isum, pair(2), result(2), i, gathered(4)
    real :: rmax
    complex :: csum
    logical :: any_zero
    character(len=12) :: text
    call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call check(isum == nprocs * (nprocs + 1) / 2, 'allreduce MPI_INTEGER')
    isum = rank
    call MPI_Allreduce(MPI_IN_PLACE, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call check(isum == nprocs * (nprocs - 1) / 2, 'allreduce MPI_IN_PLACE')
    call MPI_Allreduce(real(rank) * 1.5, rmax, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD)
    call check(rmax == real(nprocs - 1) * 1.5, 'allreduce MPI_REAL')
    call MPI_Allreduce(cmplx(real(rank), 1.0), csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD)
    call check(csum == cmplx(real(nprocs * (nprocs - 1) / 2), real(nprocs)), 'allreduce MPI_COMPLEX')
    call MPI_Allreduce(rank == 0, any_zero, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD)
    call check(any_zero, 'MPI_LOR of rank == 0')
    text = ' '
    if (rank == 0) text = 'from rank 0!'
    call MPI_Bcast(text, 12, MPI_CHARACTER, 0, MPI_COMM_WORLD)
    call check(text == 'from rank 0!', 'bcast MPI_CHARACTER')
    pair = [10 + mod(rank + 1, 3), rank]
    call MPI_Allreduce(pair, result, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD)
    call check(result(1) == minval([(10 + mod(i + 1, 3), i = 0, nprocs - 1)]) .and. &
               result(2) == minloc([(10 + mod(i + 1, 3), i = 0, nprocs - 1)], 1) - 1, &
               'MPI_2INTEGER MINLOC')
    gathered = -1
    call MPI_Gather(rank * 3, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
    if (rank == 0) call check(all(gathered(1:nprocs) == [(i * 3, i = 0, nprocs - 1)]), 'gather')
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine collectives

  ! Row 2 of a 4 x 5 matrix through a vector type, as the mpi module does it.
  subroutine vector_over_matrix()
    type(MPI_Datatype) :: row_type
    integer :: i, j
    double precision :: a(4, 5), row(5)
    a = reshape([(dble(rank * 1000 + i), i = 1, 20)], [4, 5])
    call MPI_Type_vector(5, 1, 4, MPI_DOUBLE_PRECISION, row_type)
    call MPI_Type_commit(row_type)
    row = 0
    call MPI_Sendrecv(a(2, 1), 1, row_type, right(), 41, row, 5, MPI_DOUBLE_PRECISION, left(), &
                      41, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check(all(row == [(dble(left() * 1000 + 2 + 4 * j), j = 0, 4)]), 'row sent as a vector')
    call MPI_Type_free(row_type)
    call check(row_type == MPI_DATATYPE_NULL, 'type_free')
  end subroutine vector_over_matrix

  ! A row of a matrix, a(2, :), is a non-contiguous section: passed as it is,
  ! its elements go and arrive in order, and nothing else is touched.
  subroutine sections_blocking()
    integer :: a(4, 5), b(4, 5), i, j
    a = reshape([(rank * 1000 + i, i = 1, 20)], [4, 5])
    b = -1
    call MPI_Sendrecv(a(2, :), 5, MPI_INTEGER, right(), 51, b(3, :), 5, MPI_INTEGER, left(), 51, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call check(all(b(3, :) == [(left() * 1000 + 2 + 4 * j, j = 0, 4)]), 'blocking section both ways')
    call check(all(b(1:2, :) == -1) .and. all(b(4, :) == -1), 'blocking section: other rows untouched')
    b = 0
    call MPI_Allreduce(a(1, 2:5:2), b(4, 1:2), 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    call check(all(b(4, 1:2) == [(nprocs * (nprocs - 1) / 2 * 1000 + nprocs * (1 + 4 * j), &
                                  j = 1, 3, 2)]), 'allreduce of sections')
  end subroutine sections_blocking

  subroutine sections_nonblocking()
    real :: a(3, 4), b(3, 4)
    type(MPI_Request) :: requests(2)
    integer :: i
    a = reshape([(real(rank * 100 + i), i = 1, 12)], [3, 4])
    b = -1
    call MPI_Irecv(b(1, 1:4:2), 2, MPI_REAL, left(), 61, MPI_COMM_WORLD, requests(1))
    call MPI_Isend(a(3, :), 2, MPI_REAL, right(), 61, MPI_COMM_WORLD, requests(2))
    call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE)
    call check(b(1, 1) == real(left() * 100 + 3) .and. b(1, 3) == real(left() * 100 + 6), &
               'nonblocking section both ways')
    call check(count(b == -1) == 10, 'nonblocking section: other elements untouched')
  end subroutine sections_nonblocking

  subroutine communicators()
    type(MPI_Comm) :: half, twin
    integer :: size, half_rank, result, length
    character(len=MPI_MAX_OBJECT_NAME) :: name
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half)
    call MPI_Comm_size(half, size)
    call check(size == (nprocs + 1 - mod(rank, 2)) / 2, 'split size')
    call MPI_Comm_rank(half, half_rank)
    call check(half_rank == (size - 1) - rank / 2, 'split key orders ranks')
    call MPI_Comm_dup(half, twin)
    call check(twin /= half .and. twin /= MPI_COMM_NULL, 'dup is a new handle')
    call MPI_Comm_compare(half, twin, result)
    call check(result == MPI_CONGRUENT, 'dup is congruent')
    call MPI_Comm_set_name(twin, 'fortran twin   ')
    call MPI_Comm_get_name(twin, name, length)
    call check(name == 'fortran twin' .and. length == 12, 'comm name: trailing blanks dropped')
    call MPI_Comm_free(twin)
    call check(twin == MPI_COMM_NULL, 'comm_free')
    call MPI_Comm_free(half)
  end subroutine communicators

  subroutine user_op()
    type(MPI_Op) :: op
    integer :: in(3), out(3)
    call MPI_Op_create(add_integers, .true., op)
    in = [rank, 2 * rank, 1]
    call MPI_Allreduce(in, out, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
    call check(all(out == [nprocs * (nprocs - 1) / 2, nprocs * (nprocs - 1), nprocs]), &
               'user op with the mpi_f08 interface')
    call MPI_Op_free(op)
    call check(op == MPI_OP_NULL, 'op_free')
  end subroutine user_op

  subroutine errors_and_strings()
    integer :: class, length, value(1), code
    character(len=MPI_MAX_ERROR_STRING) :: text
    character(len=MPI_MAX_PROCESSOR_NAME) :: name
    real :: matrix(4, 4)
    type(MPI_Request) :: request
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
    call MPI_Send(value, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, code)
    call MPI_Error_class(code, class)
    call check(class == MPI_ERR_RANK, 'error class MPI_ERR_RANK through ierror')
    ! without ierror, MPI_ERRORS_RETURN lets the program go on
    call MPI_Send(value, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
    call MPI_Send(value, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, code)
    call MPI_Error_class(code, class)
    call check(class == MPI_ERR_COUNT, 'error class MPI_ERR_COUNT')
    ! a section that a datatype cannot describe, in a nonblocking call
    call MPI_Isend(matrix(1, :), 1, MPI_2REAL, 0, 0, MPI_COMM_WORLD, request, code)
    call MPI_Error_class(code, class)
    call check(class == MPI_ERR_BUFFER, 'a section of pairs in a nonblocking call: MPI_ERR_BUFFER')
    call MPI_Error_string(MPI_ERR_RANK, text, length)
    call check(length > 0 .and. len_trim(text) == length, 'error string length')
    call MPI_Get_processor_name(name, length)
    call check(length > 0 .and. name(length + 1:) == ' ', 'processor name padded')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  end subroutine errors_and_strings

  subroutine callbacks()
    type(MPI_Errhandler) :: handler
    type(MPI_Comm) :: twin, twin2
    integer :: keyval, value(1), class
    integer(kind=MPI_ADDRESS_KIND) :: attr
    logical :: found
    call MPI_Comm_dup(MPI_COMM_WORLD, twin)
    call MPI_Comm_create_errhandler(count_errors, handler)
    call MPI_Comm_set_errhandler(twin, handler)
    call MPI_Send(value, 1, MPI_INTEGER, nprocs + 5, 0, twin)
    call MPI_Error_class(last_code, class)
    call check(calls == 1 .and. class == MPI_ERR_RANK, 'error handler in Fortran')
    call MPI_Errhandler_free(handler)
    call MPI_Comm_create_keyval(copy_plus_one, count_deletes, keyval, 1000_MPI_ADDRESS_KIND)
    call MPI_Comm_set_attr(twin, keyval, 41_MPI_ADDRESS_KIND)
    call MPI_Comm_dup(twin, twin2)
    call MPI_Comm_get_attr(twin2, keyval, attr, found)
    call check(found .and. attr == 41 + 1 + 1000, 'attribute copy function in Fortran')
    call MPI_Comm_free(twin2)
    call MPI_Comm_free(twin)
    call check(deletes == 2, 'attribute delete function in Fortran')
    call MPI_Comm_free_keyval(keyval)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, attr, found)
    call check(found .and. attr >= 32767, 'MPI_TAG_UB is a value')
  end subroutine callbacks

end program f_mpi_f08
