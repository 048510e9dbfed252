! f_callbacks_f08: f_callbacks.F90's calls under `use mpi_f08`, with the
! standard's procedure interfaces (TYPE(MPI_Win) ... handles, TYPE(C_PTR)
! buffers of a data representation, TYPE(MPI_Status) of a generalized
! request's query) and TYPE(C_PTR) addresses from MPI_Alloc_mem and
! MPI_Buffer_detach. Each callback records what it was called with, and
! the test checks it.
module callbacks_f08
    use mpi_f08
    use, intrinsic :: iso_c_binding
    implicit none
    integer :: handler_calls = 0, handler_code = -1
    type(MPI_Win) :: handler_win
    type(MPI_File) :: handler_file
    type(MPI_Session) :: handler_session
    integer :: copy_calls = 0, delete_calls = 0, last_keyval = -1
    type(MPI_Datatype) :: last_type
    integer(kind=MPI_ADDRESS_KIND) :: last_extra = 0, last_value = 0
    integer :: query_calls = 0, free_calls = 0
    integer(kind=MPI_ADDRESS_KIND) :: greq_extra = 0
    ! a generalized request's extra_state, module data since its callbacks
    ! write it after MPI_Grequest_start (INTENT(IN)) returned
    integer(kind=MPI_ADDRESS_KIND) :: greq_state = 0
    integer :: conversions = 0
    ! module data, so that the compiler knows MPI may hold its address after
    ! MPI_Buffer_attach returns (a local's address would be assumed not to
    ! escape a dummy without TARGET)
    integer, target :: bsend_buffer(1000)
contains
    subroutine win_handler(win, code)
        type(MPI_Win) :: win
        integer :: code
        handler_win = win
        handler_code = code
        handler_calls = handler_calls + 1
    end subroutine

    subroutine file_handler(file, code)
        type(MPI_File) :: file
        integer :: code
        handler_file = file
        handler_code = code
        handler_calls = handler_calls + 1
    end subroutine

    subroutine session_handler(session, code)
        type(MPI_Session) :: session
        integer :: code
        handler_session = session
        handler_code = code
        handler_calls = handler_calls + 1
    end subroutine

    subroutine type_copy(oldtype, keyval, extra, val_in, val_out, flag, ierror)
        type(MPI_Datatype) :: oldtype
        integer :: keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
        logical :: flag
        copy_calls = copy_calls + 1
        last_type = oldtype
        last_keyval = keyval
        last_extra = extra
        val_out = val_in + 1
        flag = .true.
        ierror = MPI_SUCCESS
    end subroutine

    subroutine type_delete(datatype, keyval, val, extra, ierror)
        type(MPI_Datatype) :: datatype
        integer :: keyval, ierror
        integer(kind=MPI_ADDRESS_KIND) :: val, extra
        delete_calls = delete_calls + 1
        last_type = datatype
        last_value = val
        last_extra = extra
        ierror = MPI_SUCCESS
    end subroutine

    subroutine greq_query(extra, status, ierror)
        integer(kind=MPI_ADDRESS_KIND) :: extra
        type(MPI_Status) :: status
        integer :: ierror
        query_calls = query_calls + 1
        greq_extra = extra
        status%MPI_SOURCE = 2
        status%MPI_TAG = 55
        status%MPI_ERROR = MPI_SUCCESS
        call MPI_Status_set_elements(status, MPI_REAL, 3)
        call MPI_Status_set_cancelled(status, .false.)
        ierror = MPI_SUCCESS
    end subroutine

    subroutine greq_free(extra, ierror)
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer :: ierror
        free_calls = free_calls + 1
        greq_extra = extra
        extra = extra + 1
        ierror = MPI_SUCCESS
    end subroutine

    subroutine greq_cancel(extra, complete, ierror)
        integer(kind=MPI_ADDRESS_KIND) :: extra
        logical :: complete
        integer :: ierror
        greq_extra = extra + merge(1, 0, complete)
        ierror = MPI_SUCCESS
    end subroutine

    ! INTEGERs stored with 1000 added
    subroutine to_file(userbuf, datatype, count, filebuf, position, extra, ierror)
        type(c_ptr), value :: userbuf, filebuf
        type(MPI_Datatype) :: datatype
        integer :: count, ierror
        integer(kind=MPI_OFFSET_KIND) :: position
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer, pointer :: user(:), file(:)
        conversions = conversions + 1
        call c_f_pointer(userbuf, user, [position + count])
        call c_f_pointer(filebuf, file, [count])
        file = user(position + 1:position + count) + int(extra)
        ierror = merge(MPI_SUCCESS, MPI_ERR_CONVERSION, datatype == MPI_INTEGER)
    end subroutine

    subroutine from_file(userbuf, datatype, count, filebuf, position, extra, ierror)
        type(c_ptr), value :: userbuf, filebuf
        type(MPI_Datatype) :: datatype
        integer :: count, ierror
        integer(kind=MPI_OFFSET_KIND) :: position
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer, pointer :: user(:), file(:)
        conversions = conversions + 1
        call c_f_pointer(userbuf, user, [position + count])
        call c_f_pointer(filebuf, file, [count])
        user(position + 1:position + count) = file - int(extra)
        ierror = merge(MPI_SUCCESS, MPI_ERR_CONVERSION, datatype == MPI_INTEGER)
    end subroutine

    subroutine extent_of(datatype, extent, extra, ierror)
        type(MPI_Datatype) :: datatype
        integer(kind=MPI_ADDRESS_KIND) :: extent, extra
        integer :: ierror
        if (datatype /= MPI_INTEGER) extent = -1
        if (datatype == MPI_INTEGER) extent = 4
        ierror = MPI_SUCCESS
    end subroutine
end module callbacks_f08

program f_callbacks_f08
    use callbacks_f08
    implicit none
    integer :: rank, nprocs, errors
    errors = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

    call check_errhandlers()
    call check_type_keyval()
    call check_grequest()
    call check_alltoallw()
    call check_memory()
    call check_datarep()
    call check_sizeof()
    call check_profiling_names()
    call check_large_counts()

    call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (errors /= 0) call MPI_Abort(MPI_COMM_WORLD, 1)
    if (rank == 0) print '(a, i0, a)', 'f_callbacks_f08: ', nprocs, ' ranks OK'
    call MPI_Finalize()
contains
    subroutine expect(what, got, want)
        character(len=*), intent(in) :: what
        integer, intent(in) :: got, want
        if (got /= want) then
            print '(a, i0, 3a, i0, a, i0)', 'rank ', rank, ': ', what, ': got ', got, &
                ', expected ', want
            errors = errors + 1
        end if
    end subroutine

    subroutine check_errhandlers()
        type(MPI_Errhandler) :: eh
        type(MPI_Win) :: win
        type(MPI_File) :: fh
        type(MPI_Session) :: session
        integer :: arr(2), ierr
        character(len=64) :: name

        call MPI_Win_create(arr, 8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
        call MPI_Win_create_errhandler(win_handler, eh, ierr)
        call expect('win_create_errhandler ierror', ierr, MPI_SUCCESS)
        call MPI_Win_set_errhandler(win, eh)
        call MPI_Win_call_errhandler(win, MPI_ERR_OTHER)
        call expect('win handler calls', handler_calls, 1)
        call expect('win handler object', merge(1, 0, handler_win == win), 1)
        call expect('win handler code', handler_code, MPI_ERR_OTHER)
        call MPI_Errhandler_free(eh)
        call MPI_Win_free(win)

        write (name, '(a, i0, a)') '/tmp/f_callbacks_f08.', rank, '.eh'
        call MPI_File_open(MPI_COMM_SELF, name, &
                           MPI_MODE_CREATE + MPI_MODE_WRONLY + MPI_MODE_DELETE_ON_CLOSE, &
                           MPI_INFO_NULL, fh)
        call MPI_File_create_errhandler(file_handler, eh)
        call MPI_File_set_errhandler(fh, eh)
        call MPI_File_read(fh, arr, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        call expect('file handler calls', handler_calls, 2)
        call expect('file handler object', merge(1, 0, handler_file == fh), 1)
        call MPI_Error_class(handler_code, handler_code)
        call expect('file handler class', handler_code, MPI_ERR_ACCESS)
        call MPI_File_close(fh)
        call MPI_Errhandler_free(eh)

        call MPI_Session_create_errhandler(session_handler, eh)
        call MPI_Session_init(MPI_INFO_NULL, eh, session)
        call MPI_Session_call_errhandler(session, MPI_ERR_ARG)
        call expect('session handler calls', handler_calls, 3)
        call expect('session handler object', merge(1, 0, handler_session == session), 1)
        call expect('session handler code', handler_code, MPI_ERR_ARG)
        call MPI_Session_finalize(session)
        call MPI_Errhandler_free(eh)
    end subroutine

    subroutine check_type_keyval()
        integer :: keyval
        type(MPI_Datatype) :: newtype
        integer(kind=MPI_ADDRESS_KIND) :: val
        logical :: flag

        call MPI_Type_create_keyval(type_copy, type_delete, keyval, 77_MPI_ADDRESS_KIND)
        call MPI_Type_set_attr(MPI_REAL, keyval, 10_MPI_ADDRESS_KIND)
        call MPI_Type_dup(MPI_REAL, newtype)
        call expect('copy calls', copy_calls, 1)
        call expect('copy oldtype', merge(1, 0, last_type == MPI_REAL), 1)
        call expect('copy keyval', last_keyval, keyval)
        call expect('copy extra_state', int(last_extra), 77)
        call MPI_Type_get_attr(newtype, keyval, val, flag)
        call expect('copied value', int(val), 11)
        call MPI_Type_free(newtype)
        call expect('delete calls', delete_calls, 1)
        call expect('deleted value', int(last_value), 11)
        call MPI_Type_delete_attr(MPI_REAL, keyval)
        call expect('delete calls', delete_calls, 2)
        call expect('delete datatype', merge(1, 0, last_type == MPI_REAL), 1)
        call MPI_Type_free_keyval(keyval)
    end subroutine

    subroutine check_grequest()
        type(MPI_Request) :: request
        type(MPI_Status) :: status
        integer :: count

        ! the callbacks get this variable itself: it must outlive the request
        greq_state = 99
        call MPI_Grequest_start(greq_query, greq_free, greq_cancel, greq_state, request)
        call MPI_Grequest_complete(request)
        call MPI_Wait(request, status)
        call expect('query calls', query_calls, 1)
        call expect('free calls', free_calls, 1)
        call expect('extra_state', int(greq_extra), 99)
        call expect('extra_state written by the free procedure', int(greq_state), 100)
        call expect('status tag', status%MPI_TAG, 55)
        call expect('status source', status%MPI_SOURCE, 2)
        call MPI_Get_count(status, MPI_REAL, count)
        call expect('status count', count, 3)
        call expect('request after wait', merge(1, 0, request == MPI_REQUEST_NULL), 1)
    end subroutine

    subroutine check_alltoallw()
        integer, allocatable :: sendbuf(:), recvbuf(:), counts(:), displs(:)
        type(MPI_Datatype), allocatable :: types(:)
        type(MPI_Request) :: request
        integer :: i

        allocate(sendbuf(nprocs), recvbuf(nprocs), counts(nprocs), displs(nprocs), types(nprocs))
        do i = 1, nprocs
            sendbuf(i) = rank * 100 + i - 1
        end do
        counts = 1
        displs = [(4 * (i - 1), i = 1, nprocs)]
        types = MPI_INTEGER
        recvbuf = -1
        call MPI_Alltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                           MPI_COMM_WORLD)
        do i = 1, nprocs
            call expect('alltoallw data', recvbuf(i), (i - 1) * 100 + rank)
        end do
        recvbuf = -1
        call MPI_Alltoallw_init(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                                MPI_COMM_WORLD, MPI_INFO_NULL, request)
        call MPI_Start(request)
        call MPI_Wait(request, MPI_STATUS_IGNORE)
        do i = 1, nprocs
            call expect('alltoallw_init data', recvbuf(i), (i - 1) * 100 + rank)
        end do
        call MPI_Request_free(request)
    end subroutine

    subroutine check_memory()
        type(c_ptr) :: base, detached
        integer, pointer :: mem(:)
        integer :: size, i
        logical :: same

        call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, base)
        call c_f_pointer(base, mem, [10])
        mem = [(i, i = 1, 10)]
        call expect('alloc_mem memory', sum(mem), 55)
        call MPI_Free_mem(mem)

        call MPI_Buffer_attach(bsend_buffer, 4000)
        call MPI_Buffer_detach(detached, size)
        call expect('buffer_detach size', size, 4000)
        ! the address attached comes back
        same = c_associated(detached, c_loc(bsend_buffer))
        call expect('buffer_detach address', merge(1, 0, same), 1)
    end subroutine

    subroutine check_datarep()
        type(MPI_File) :: fh
        integer :: data(3), raw(3), i
        character(len=64) :: name

        call MPI_Register_datarep('plus1000', from_file, to_file, extent_of, 1000_MPI_ADDRESS_KIND)
        write (name, '(a, i0, a)') '/tmp/f_callbacks_f08.', rank, '.rep'
        call MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                           MPI_INFO_NULL, fh)
        call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'plus1000', &
                               MPI_INFO_NULL)
        data = [(rank + i, i = 1, 3)]
        call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, data, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
        call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
                               MPI_INFO_NULL)
        call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
        do i = 1, 3
            call expect('bytes in the file', raw(i), rank + i + 1000)
        end do
        call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'plus1000', &
                               MPI_INFO_NULL)
        data = 0
        call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, data, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
        do i = 1, 3
            call expect('read back', data(i), rank + i)
        end do
        if (conversions < 2) call expect('conversions', conversions, 2)
        call MPI_File_close(fh)
        call MPI_File_delete(name, MPI_INFO_NULL)
    end subroutine

    ! the large-count forms: through the generic where a count of
    ! MPI_COUNT_KIND tells them apart, by their _c name where only address
    ! and count kinds differ
    subroutine check_large_counts()
        integer(kind=MPI_COUNT_KIND) :: count, lb, extent
        integer :: x(4), y(4), i
        type(MPI_Status) :: status
        x = [(rank * 10 + i, i = 1, 4)]
        y = -1
        count = 4
        call MPI_Sendrecv(x, count, MPI_INTEGER, rank, 3, y, count, MPI_INTEGER, rank, 3, &
                          MPI_COMM_WORLD, status)
        do i = 1, 4
            call expect('large-count sendrecv data', y(i), rank * 10 + i)
        end do
        call MPI_Get_count(status, MPI_INTEGER, count)
        call expect('large-count get_count', int(count), 4)
        call MPI_Type_get_extent_c(MPI_DOUBLE_PRECISION, lb, extent)
        call expect('MPI_Type_get_extent_c', int(extent), 8)
        y = -1
        call MPI_Allreduce(x, y, count, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
        call expect('large-count allreduce', y(4), (nprocs - 1) * 10 + 4)
    end subroutine

    ! PMPI_ generics, with choice buffers and without
    subroutine check_profiling_names()
        integer :: r, x(2)
        call PMPI_Comm_rank(MPI_COMM_WORLD, r)
        call expect('PMPI_Comm_rank', r, rank)
        x = [rank, 5]
        call PMPI_Sendrecv_replace(x, 2, MPI_INTEGER, rank, 9, rank, 9, MPI_COMM_WORLD, &
                                   MPI_STATUS_IGNORE)
        call expect('PMPI_Sendrecv_replace', x(2), 5)
        if (PMPI_Wtime() <= 0d0) call expect('PMPI_Wtime positive', 0, 1)
    end subroutine

    subroutine check_sizeof()
        integer(kind=2) :: i2(5)
        real(kind=4) :: r4
        integer :: size, ierr
        call MPI_Sizeof(i2, size)
        call expect('sizeof integer(2)', size, 2)
        call MPI_Sizeof(r4, size, ierr)
        call expect('sizeof real(4)', size, 4)
        call expect('sizeof ierror', ierr, MPI_SUCCESS)
    end subroutine
end program f_callbacks_f08
