! f_rma: one-sided communication from Fortran through `use mpi`: a window
! of MPI_Win_allocate (its address mapped with C_F_POINTER), a ring of puts
! between fences; a window over a Fortran array with MPI_Win_create,
! written under exclusive locks; a counter at rank 0 incremented by every
! rank with MPI_Fetch_and_op under MPI_Win_lock_all; the window
! attributes. Every value that arrived is checked.
program f_rma
    use mpi
    use, intrinsic :: iso_c_binding
    implicit none
    integer, parameter :: n = 10
    integer :: rank, size, ierr, win, win2, i, right, left, one, old, flavor
    integer(kind=MPI_ADDRESS_KIND) :: base, disp, attr
    integer, pointer :: mem(:)
    integer :: local(n), arr(n)
    logical :: flag
    integer :: errors

    errors = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
    right = mod(rank + 1, size)
    left = mod(rank + size - 1, size)

    ! MPI_Win_allocate, fence, a ring of puts
    call MPI_Win_allocate(int(n * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                          base, win, ierr)
    call c_f_pointer(transfer(base, c_null_ptr), mem, [n])
    mem = -1
    do i = 1, n
        local(i) = rank * 100 + i
    end do
    call MPI_Win_fence(0, win, ierr)
    disp = 0
    call MPI_Put(local, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win, ierr)
    call MPI_Win_fence(0, win, ierr)
    do i = 1, n
        if (mem(i) /= left * 100 + i) call fail('fence put', i, mem(i), left * 100 + i)
    end do

    call MPI_Win_get_attr(win, MPI_WIN_SIZE, attr, flag, ierr)
    if (.not. flag .or. attr /= n * 4) call fail('MPI_WIN_SIZE', 0, int(attr), n * 4)
    call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, attr, flag, ierr)
    if (.not. flag .or. attr /= 4) call fail('MPI_WIN_DISP_UNIT', 0, int(attr), 4)
    call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, attr, flag, ierr)
    flavor = int(attr)
    if (flavor /= MPI_WIN_FLAVOR_ALLOCATE) call fail('MPI_WIN_CREATE_FLAVOR', 0, flavor, &
                                                     MPI_WIN_FLAVOR_ALLOCATE)

    ! a counter at rank 0 under lock_all
    if (rank == 0) mem(1) = 0
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    one = 1
    call MPI_Win_lock_all(0, win, ierr)
    do i = 1, 20
        call MPI_Fetch_and_op(one, old, MPI_INTEGER, 0, disp, MPI_SUM, win, ierr)
        call MPI_Win_flush(0, win, ierr)
    end do
    call MPI_Win_unlock_all(win, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        call MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win, ierr)
        if (mem(1) /= 20 * size) call fail('fetch_and_op counter', 1, mem(1), 20 * size)
        call MPI_Win_unlock(0, win, ierr)
    end if
    call MPI_Win_free(win, ierr)

    ! MPI_Win_create over a Fortran array, exclusive locks
    arr = 0
    call MPI_Win_create(arr, int(n * 4, MPI_ADDRESS_KIND), 4, MPI_INFO_NULL, MPI_COMM_WORLD, &
                        win2, ierr)
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win2, ierr)
    disp = 2
    call MPI_Put(local, 3, MPI_INTEGER, right, disp, 3, MPI_INTEGER, win2, ierr)
    call MPI_Win_unlock(right, win2, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win2, ierr)
    do i = 1, n
        if (i >= 3 .and. i <= 5) then
            if (arr(i) /= left * 100 + i - 2) call fail('lock put', i, arr(i), left * 100 + i - 2)
        else if (arr(i) /= 0) then
            call fail('outside the put', i, arr(i), 0)
        end if
    end do
    call MPI_Win_unlock(rank, win2, ierr)
    call MPI_Win_free(win2, ierr)

    call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0 .and. errors == 0) print '(a, i0, a)', 'f_rma: ', size, ' ranks OK'
    call MPI_Finalize(ierr)
    if (errors /= 0) stop 1

contains

    subroutine fail(what, i, got, expected)
        character(len=*), intent(in) :: what
        integer, intent(in) :: i, got, expected
        print '(a, i0, 4a, i0, a, i0, a, i0)', 'f_rma: rank ', rank, ': ', what, ': element ', &
            '', i, ' is ', got, ', expected ', expected
        errors = errors + 1
    end subroutine fail
end program f_rma
