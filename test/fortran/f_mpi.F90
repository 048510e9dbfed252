! The Fortran bindings over 1..4 ranks, one source for both interfaces:
! built with -DUSE_MPI_MODULE it is f_use_mpi (`use mpi`), without it
! f_mpif_h (`include 'mpif.h'`). Every check compares the data that
! arrived with what was sent; a failed check prints one line and the
! program ends with MPI_Abort, so the test sees a non-zero exit.
module checks
  implicit none
  integer :: failures = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      failures = failures + 1
      print '(a, a)', 'f_mpi: FAIL: ', what
    end if
  end subroutine check
end module checks

program f_mpi
#ifdef USE_MPI_MODULE
  use mpi
  use checks
  implicit none
#else
  use checks
  implicit none
  include 'mpif.h'
#endif
  integer :: rank, nprocs, ierr

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  call point_to_point()
  call nonblocking()
  call probe()
  call collectives()
  call column_section()
  call communicators()
  call user_op()
  call errors_and_strings()
  call callbacks()

  if (failures > 0) then
    print '(a, i0, a, i0)', 'f_mpi: rank ', rank, ' failures: ', failures
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'f_mpi: ', nprocs, ' ranks OK'

contains

  integer function right()
    right = mod(rank + 1, nprocs)
  end function right

  integer function left()
    left = mod(rank - 1 + nprocs, nprocs)
  end function left

  ! Sendrecv round the ring, then every rank to rank 0 with MPI_ANY_SOURCE.
  subroutine point_to_point()
    integer :: out(10), in(10), status(MPI_STATUS_SIZE), i, count, seen, src
    out = [(rank * 100 + i, i = 1, 10)]
    in = -1
    call MPI_Sendrecv(out, 10, MPI_INTEGER, right(), 7, in, 10, MPI_INTEGER, left(), 7, &
                      MPI_COMM_WORLD, status, ierr)
    call check(ierr == MPI_SUCCESS, 'sendrecv')
    call check(all(in == [(left() * 100 + i, i = 1, 10)]), 'sendrecv data')
    call check(status(MPI_SOURCE) == left() .and. status(MPI_TAG) == 7, 'sendrecv status')
    call MPI_Get_count(status, MPI_INTEGER, count, ierr)
    call check(count == 10, 'sendrecv count')
    if (rank /= 0) then
      call MPI_Send(out, 3, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, ierr)
    else
      seen = 0
      do i = 1, nprocs - 1
        call MPI_Recv(in, 10, MPI_INTEGER, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, status, ierr)
        src = status(MPI_SOURCE)
        call check(src > 0 .and. src < nprocs, 'any-source source')
        call check(all(in(1:3) == [src * 100 + 1, src * 100 + 2, src * 100 + 3]), 'any-source data')
        seen = seen + src
      end do
      call check(seen == nprocs * (nprocs - 1) / 2, 'any-source senders')
    end if
    ! MPI_STATUS_IGNORE and MPI_PROC_NULL
    call MPI_Recv(in, 10, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'recv from MPI_PROC_NULL with MPI_STATUS_IGNORE')
  end subroutine point_to_point

  ! Isend/irecv both ways round the ring, completed by one MPI_Waitall.
  subroutine nonblocking()
    integer :: requests(4), statuses(MPI_STATUS_SIZE, 4), i, count
    double precision :: to_left(6), to_right(6), from_left(6), from_right(6)
    to_left = [(rank + i * 0.25d0, i = 1, 6)]
    to_right = -to_left
    from_left = 0
    from_right = 0
    call MPI_Irecv(from_left, 6, MPI_DOUBLE_PRECISION, left(), 21, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Irecv(from_right, 6, MPI_DOUBLE_PRECISION, right(), 22, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Isend(to_right, 6, MPI_DOUBLE_PRECISION, right(), 21, MPI_COMM_WORLD, requests(3), ierr)
    call MPI_Isend(to_left, 6, MPI_DOUBLE_PRECISION, left(), 22, MPI_COMM_WORLD, requests(4), ierr)
    call MPI_Waitall(4, requests, statuses, ierr)
    call check(ierr == MPI_SUCCESS, 'waitall')
    call check(all(requests == MPI_REQUEST_NULL), 'waitall leaves MPI_REQUEST_NULL')
    call check(all(from_left == [(-(left() + i * 0.25d0), i = 1, 6)]), 'irecv from left')
    call check(all(from_right == [(right() + i * 0.25d0, i = 1, 6)]), 'irecv from right')
    call check(statuses(MPI_SOURCE, 1) == left() .and. statuses(MPI_TAG, 1) == 21, 'status 1')
    call check(statuses(MPI_SOURCE, 2) == right() .and. statuses(MPI_TAG, 2) == 22, 'status 2')
    call MPI_Get_count(statuses(:, 2), MPI_DOUBLE_PRECISION, count, ierr)
    call check(count == 6, 'waitall count')
    call MPI_Isend(to_left, 1, MPI_DOUBLE_PRECISION, rank, 23, MPI_COMM_WORLD, requests(1), ierr)
    call MPI_Irecv(from_left, 1, MPI_DOUBLE_PRECISION, rank, 23, MPI_COMM_WORLD, requests(2), ierr)
    call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS .and. from_left(1) == to_left(1), 'waitall, MPI_STATUSES_IGNORE')
  end subroutine nonblocking

  ! A message of unknown length: probe, count, then receive.
  subroutine probe()
    integer :: request, status(MPI_STATUS_SIZE), count, i
    real :: sent(5), got(5)
    logical :: flag
    sent = [(real(rank) + i, i = 1, 5)]
    call MPI_Isend(sent, 3 + mod(rank, 3), MPI_REAL, right(), 31, MPI_COMM_WORLD, request, ierr)
    call MPI_Probe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, status, ierr)
    call check(status(MPI_SOURCE) == left(), 'probe source')
    call MPI_Get_count(status, MPI_REAL, count, ierr)
    call check(count == 3 + mod(left(), 3), 'probe count')
    call MPI_Iprobe(left(), 31, MPI_COMM_WORLD, flag, status, ierr)
    call check(flag, 'iprobe flag (LOGICAL)')
    got = 0
    call MPI_Recv(got, count, MPI_REAL, status(MPI_SOURCE), 31, MPI_COMM_WORLD, status, ierr)
    call check(all(got(1:count) == [(real(left()) + i, i = 1, count)]), 'probed data')
    call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
    call check(request == MPI_REQUEST_NULL, 'wait leaves MPI_REQUEST_NULL')
  end subroutine probe

  ! Reductions and moves with the Fortran types.
  subroutine collectives()
    integer :: isum, pair(2), result(2), i, gathered(4), expected_min, expected_at
    real :: rmax
    double precision :: dsum
    complex :: csum
    logical :: all_true, all_zero, any_zero
    character(len=12) :: text

    call MPI_Allreduce(rank + 1, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(isum == nprocs * (nprocs + 1) / 2, 'allreduce MPI_INTEGER')
    isum = rank
    call MPI_Allreduce(MPI_IN_PLACE, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(isum == nprocs * (nprocs - 1) / 2, 'allreduce MPI_IN_PLACE')
    call MPI_Allreduce(real(rank) * 1.5, rmax, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
    call check(rmax == real(nprocs - 1) * 1.5, 'allreduce MPI_REAL')
    call MPI_Reduce((rank + 1) * 0.5d0, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, &
                    MPI_COMM_WORLD, ierr)
    if (rank == 0) call check(dsum == nprocs * (nprocs + 1) * 0.25d0, 'reduce MPI_DOUBLE_PRECISION')
    call MPI_Allreduce(cmplx(real(rank), 1.0), csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD, ierr)
    call check(csum == cmplx(real(nprocs * (nprocs - 1) / 2), real(nprocs)), 'allreduce MPI_COMPLEX')
    call MPI_Allreduce(.true., all_true, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    call check(all_true, 'MPI_LAND of .TRUE.')
    call MPI_Allreduce(rank == 0, all_zero, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
    call check(all_zero .eqv. (nprocs == 1), 'MPI_LAND of rank == 0')
    call MPI_Allreduce(rank == 0, any_zero, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
    call check(any_zero, 'MPI_LOR of rank == 0')
    text = ' '
    if (rank == 0) text = 'from rank 0!'
    call MPI_Bcast(text, 12, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
    call check(text == 'from rank 0!', 'bcast MPI_CHARACTER')
    ! MINLOC over (value, rank) pairs: value 10 + mod(rank + 1, 3)
    pair = [10 + mod(rank + 1, 3), rank]
    call MPI_Allreduce(pair, result, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
    expected_min = minval([(10 + mod(i + 1, 3), i = 0, nprocs - 1)])
    expected_at = minloc([(10 + mod(i + 1, 3), i = 0, nprocs - 1)], 1) - 1
    call check(result(1) == expected_min .and. result(2) == expected_at, 'MPI_2INTEGER MINLOC')
    gathered = -1
    call MPI_Gather(rank * 3, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) call check(all(gathered(1:nprocs) == [(i * 3, i = 0, nprocs - 1)]), 'gather')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call check(ierr == MPI_SUCCESS, 'barrier')
  end subroutine collectives

  ! Row 2 of a 4 x 5 matrix is strided in Fortran's column-major order:
  ! a vector type sends it, and receives into a row of another matrix.
  subroutine column_section()
    integer :: row_type, i, j
    double precision :: a(4, 5), b(4, 5), row(5)
    a = reshape([(dble(rank * 1000 + i), i = 1, 20)], [4, 5])
    call MPI_Type_vector(5, 1, 4, MPI_DOUBLE_PRECISION, row_type, ierr)
    call MPI_Type_commit(row_type, ierr)
    call check(ierr == MPI_SUCCESS, 'type_vector and commit')
    row = 0
    call MPI_Sendrecv(a(2, 1), 1, row_type, right(), 41, row, 5, MPI_DOUBLE_PRECISION, left(), &
                      41, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(all(row == [(dble(left() * 1000 + 2 + 4 * j), j = 0, 4)]), 'row sent as a vector')
    b = 0
    call MPI_Sendrecv(row, 5, MPI_DOUBLE_PRECISION, right(), 42, b(3, 1), 1, row_type, left(), &
                      42, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(all(b(3, :) == [(dble(mod(left() - 1 + nprocs, nprocs) * 1000 + 2 + 4 * j), &
                                j = 0, 4)]), 'row received as a vector')
    call check(all(b(1:2, :) == 0) .and. all(b(4, :) == 0), 'vector leaves other rows alone')
    call MPI_Type_free(row_type, ierr)
    call check(row_type == MPI_DATATYPE_NULL, 'type_free')
  end subroutine column_section

  ! Split, dup, compare, names as strings.
  subroutine communicators()
    integer :: half, twin, size, half_rank, result, length, sum
    character(len=MPI_MAX_OBJECT_NAME) :: name
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
    call MPI_Comm_size(half, size, ierr)
    call check(size == (nprocs + 1 - mod(rank, 2)) / 2, 'split size')
    call MPI_Comm_rank(half, half_rank, ierr)
    call check(half_rank == (size - 1) - rank / 2, 'split key orders ranks')
    call MPI_Allreduce(rank, sum, 1, MPI_INTEGER, MPI_SUM, half, ierr)
    call check(mod(sum, 2) == mod(rank * size, 2), 'allreduce on a split communicator')
    call MPI_Comm_dup(half, twin, ierr)
    call MPI_Comm_compare(half, twin, result, ierr)
    call check(result == MPI_CONGRUENT, 'dup is congruent')
    call MPI_Comm_set_name(twin, 'fortran twin   ', ierr)
    name = 'x'
    call MPI_Comm_get_name(twin, name, length, ierr)
    call check(name == 'fortran twin' .and. length == 12, 'comm name: trailing blanks dropped')
    call MPI_Comm_get_name(MPI_COMM_WORLD, name, length, ierr)
    call check(name(1:length) == 'MPI_COMM_WORLD' .and. name(length + 1:) == ' ', 'MPI_COMM_WORLD name')
    call MPI_Comm_free(twin, ierr)
    call check(twin == MPI_COMM_NULL, 'comm_free')
    call MPI_Comm_free(half, ierr)
  end subroutine communicators

  ! A reduction written in Fortran.
  subroutine user_op()
    external :: add_scaled
    integer :: op, in(3), out(3)
    call MPI_Op_create(add_scaled, .true., op, ierr)
    call check(ierr == MPI_SUCCESS, 'op_create')
    in = [rank, 2 * rank, 1]
    call MPI_Allreduce(in, out, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
    call check(all(out == [nprocs * (nprocs - 1) / 2, nprocs * (nprocs - 1), nprocs]), &
               'user op in Fortran')
    call MPI_Op_free(op, ierr)
    call check(op == MPI_OP_NULL, 'op_free')
  end subroutine user_op

  ! Errors return through ierror with the C classes; strings come back
  ! blank-padded.
  subroutine errors_and_strings()
    integer :: class, length, value(1), code
    character(len=MPI_MAX_ERROR_STRING) :: text
    character(len=MPI_MAX_PROCESSOR_NAME) :: name
    character(len=256) :: host
    character(len=5) :: short
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
    call MPI_Send(value, 1, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, code)
    call check(code /= MPI_SUCCESS, 'send to a bad rank fails')
    call MPI_Error_class(code, class, ierr)
    call check(class == MPI_ERR_RANK, 'error class MPI_ERR_RANK')
    call MPI_Send(value, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, code)
    call MPI_Error_class(code, class, ierr)
    call check(class == MPI_ERR_COUNT, 'error class MPI_ERR_COUNT')
    call MPI_Error_string(MPI_ERR_RANK, text, length, ierr)
    call check(length > 0 .and. len_trim(text) == length, 'error string length')
    call MPI_Error_string(MPI_ERR_RANK, short, length, ierr)
    call check(short == text(1:5), 'error string truncated to the variable')
    call MPI_Get_processor_name(name, length, ierr)
    call hostnm(host)
    call check(length > 0 .and. name(1:length) == trim(host) .and. name(length + 1:) == ' ', &
               'processor name is the host name')
    call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  end subroutine errors_and_strings

  ! Error handler and attribute callbacks written in Fortran.
  subroutine callbacks()
    external :: count_errors, copy_plus_one, count_deletes
    integer :: handler, twin, twin2, keyval, value(1), calls, last_code, deletes, class
    integer(kind=MPI_ADDRESS_KIND) :: attr, extra
    logical :: found
    common /callback_counts/ calls, last_code, deletes
    calls = 0
    deletes = 0
    call MPI_Comm_dup(MPI_COMM_WORLD, twin, ierr)
    call MPI_Comm_create_errhandler(count_errors, handler, ierr)
    call MPI_Comm_set_errhandler(twin, handler, ierr)
    call MPI_Send(value, 1, MPI_INTEGER, nprocs + 5, 0, twin, ierr)
    call MPI_Error_class(last_code, class, ierr)
    call check(calls == 1 .and. class == MPI_ERR_RANK, 'error handler in Fortran')
    call MPI_Errhandler_free(handler, ierr)
    extra = 1000
    call MPI_Comm_create_keyval(copy_plus_one, count_deletes, keyval, extra, ierr)
    call MPI_Comm_set_attr(twin, keyval, 41_MPI_ADDRESS_KIND, ierr)
    call MPI_Comm_dup(twin, twin2, ierr)
    call MPI_Comm_get_attr(twin2, keyval, attr, found, ierr)
    call check(found .and. attr == 41 + 1 + 1000, 'attribute copy function in Fortran')
    call MPI_Comm_free(twin2, ierr)
    call MPI_Comm_free(twin, ierr)
    call check(deletes == 2, 'attribute delete function in Fortran')
    call MPI_Comm_free_keyval(keyval, ierr)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, attr, found, ierr)
    call check(found .and. attr >= 32767, 'MPI_TAG_UB is a value')
  end subroutine callbacks

end program f_mpi

! inoutvec = invec + inoutvec, for MPI_INTEGER only
subroutine add_scaled(invec, inoutvec, len, datatype)
#ifdef USE_MPI_MODULE
  use mpi
  implicit none
#else
  implicit none
  include 'mpif.h'
#endif
  integer, intent(in) :: len, datatype
  integer, intent(in) :: invec(len)
  integer, intent(inout) :: inoutvec(len)
  if (datatype /= MPI_INTEGER) stop 'user op: not MPI_INTEGER'
  inoutvec = invec + inoutvec
end subroutine add_scaled

subroutine count_errors(comm, code)
  implicit none
  integer :: comm, code, calls, last_code, deletes
  common /callback_counts/ calls, last_code, deletes
  calls = calls + 1
  last_code = code
end subroutine count_errors

subroutine copy_plus_one(oldcomm, keyval, extra, value_in, value_out, flag, ierror)
  implicit none
  integer :: oldcomm, keyval, ierror
  integer(kind=8) :: extra, value_in, value_out
  logical :: flag
  value_out = value_in + 1 + extra
  flag = .true.
  ierror = 0
end subroutine copy_plus_one

subroutine count_deletes(comm, keyval, value, extra, ierror)
  implicit none
  integer :: comm, keyval, ierror, calls, last_code, deletes
  integer(kind=8) :: value, extra
  common /callback_counts/ calls, last_code, deletes
  deletes = deletes + 1
  ierror = 0
end subroutine count_deletes
