! f_callbacks: the calls that take Fortran procedures or hand back
! addresses, under `use mpi` (USE_MPI_MODULE) or `include 'mpif.h'`:
! window, file and session error handlers; MPI-1, datatype and window
! keyvals with their copy and delete procedures and MPI-1 INTEGER
! attributes; a generalized request; a data representation of its own;
! MPI_Alltoallw, MPI_Ialltoallw, MPI_Neighbor_alltoallw; MPI_Alloc_mem and
! MPI_Free_mem; MPI_Buffer_detach; MPI_Info_create_env and
! MPI_Session_get_nth_pset (hidden lengths, blank padding); MPI_Sizeof and
! the PMPI_ names (module only). Each callback records what it was called
! with, and the test checks it.
module callbacks
#ifdef USE_MPI_MODULE
    use mpi
    implicit none
#else
    implicit none
    include 'mpif.h'
#endif
    integer :: handler_object = -1, handler_code = -1, handler_calls = 0
    integer :: copy_calls = 0, delete_calls = 0, last_keyval = -1, last_object = -1
    integer :: last_int_extra = 0, last_int_value = 0
    integer(kind=MPI_ADDRESS_KIND) :: last_extra = 0, last_value = 0
    integer :: query_calls = 0, free_calls = 0, cancel_calls = 0
    integer(kind=MPI_ADDRESS_KIND) :: greq_extra = 0
    integer :: conversions = 0, extents = 0
contains
    subroutine errhandler_fn(object, code)
        integer :: object, code
        handler_object = object
        handler_code = code
        handler_calls = handler_calls + 1
    end subroutine

    ! MPI-1 procedures: INTEGER extra_state and values
    subroutine int_copy(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
        integer :: oldcomm, keyval, extra, val_in, val_out, ierr
        logical :: flag
        copy_calls = copy_calls + 1
        last_object = oldcomm
        last_keyval = keyval
        last_int_extra = extra
        val_out = val_in - 1
        flag = .true.
        ierr = MPI_SUCCESS
    end subroutine

    subroutine int_delete(comm, keyval, val, extra, ierr)
        integer :: comm, keyval, val, extra, ierr
        delete_calls = delete_calls + 1
        last_object = comm
        last_keyval = keyval
        last_int_value = val
        last_int_extra = extra
        ierr = MPI_SUCCESS
    end subroutine

    ! datatype and window procedures: address-sized extra_state and values
    subroutine addr_copy(oldobj, keyval, extra, val_in, val_out, flag, ierr)
        integer :: oldobj, keyval, ierr
        integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
        logical :: flag
        copy_calls = copy_calls + 1
        last_object = oldobj
        last_keyval = keyval
        last_extra = extra
        val_out = val_in * 2
        flag = .true.
        ierr = MPI_SUCCESS
    end subroutine

    subroutine addr_delete(obj, keyval, val, extra, ierr)
        integer :: obj, keyval, ierr
        integer(kind=MPI_ADDRESS_KIND) :: val, extra
        delete_calls = delete_calls + 1
        last_object = obj
        last_keyval = keyval
        last_value = val
        last_extra = extra
        ierr = MPI_SUCCESS
    end subroutine

    subroutine greq_query(extra, status, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer :: status(MPI_STATUS_SIZE), ierr
        query_calls = query_calls + 1
        greq_extra = extra
        status(MPI_SOURCE) = 3
        status(MPI_TAG) = 77
        status(MPI_ERROR) = MPI_SUCCESS
        call MPI_Status_set_elements(status, MPI_INTEGER, 5, ierr)
        call MPI_Status_set_cancelled(status, .false., ierr)
        ierr = MPI_SUCCESS
    end subroutine

    subroutine greq_free(extra, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer :: ierr
        free_calls = free_calls + 1
        greq_extra = extra
        ierr = MPI_SUCCESS
    end subroutine

    subroutine greq_cancel(extra, complete, ierr)
        integer(kind=MPI_ADDRESS_KIND) :: extra
        logical :: complete
        integer :: ierr
        cancel_calls = cancel_calls + 1
        if (complete) cancel_calls = cancel_calls + 100
        greq_extra = extra
        ierr = MPI_SUCCESS
    end subroutine

    ! A representation that stores each INTEGER negated: both directions
    ! negate, the file extent of an INTEGER is 4.
    subroutine negate(userbuf, datatype, count, filebuf, position, extra, ierr)
        integer :: userbuf(*), datatype, count, filebuf(*), ierr
        integer(kind=MPI_OFFSET_KIND) :: position
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer :: i
        conversions = conversions + 1
        if (datatype /= MPI_INTEGER .or. extra /= 5) then
            ierr = MPI_ERR_CONVERSION
            return
        end if
        do i = 1, count
            filebuf(i) = -userbuf(position + i)
        end do
        ierr = MPI_SUCCESS
    end subroutine

    subroutine unnegate(userbuf, datatype, count, filebuf, position, extra, ierr)
        integer :: userbuf(*), datatype, count, filebuf(*), ierr
        integer(kind=MPI_OFFSET_KIND) :: position
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer :: i
        conversions = conversions + 1
        do i = 1, count
            userbuf(position + i) = -filebuf(i)
        end do
        ierr = MPI_SUCCESS
    end subroutine

    subroutine file_extent(datatype, extent, extra, ierr)
        integer :: datatype, ierr
        integer(kind=MPI_ADDRESS_KIND) :: extent, extra
        extents = extents + 1
        extent = 4
        ierr = MPI_SUCCESS
    end subroutine
end module callbacks

program f_callbacks
    use callbacks
    use, intrinsic :: iso_c_binding
    implicit none
    integer :: rank, nprocs, ierr, errors
    errors = 0
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

    call check_errhandlers()
    call check_mpi1_attributes()
    call check_type_and_win_keyvals()
    call check_grequest()
    call check_alltoallw()
    call check_memory()
    call check_datarep()
    call check_env_and_psets()
#ifdef USE_MPI_MODULE
    call check_sizeof()
    call check_profiling_names()
#endif

    call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (errors /= 0) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    if (rank == 0) print '(a, i0, a)', 'f_callbacks: ', nprocs, ' ranks OK'
    call MPI_Finalize(ierr)
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

    subroutine expect_a(what, got, want)
        character(len=*), intent(in) :: what
        integer(kind=MPI_ADDRESS_KIND), intent(in) :: got, want
        call expect(what, int(got), int(want))
    end subroutine

    subroutine check_errhandlers()
        integer :: eh, win, fh, session, arr(4)
        integer(kind=MPI_ADDRESS_KIND) :: wsize
        character(len=64) :: name

        wsize = 16
        call MPI_Win_create(arr, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
        call MPI_Win_create_errhandler(errhandler_fn, eh, ierr)
        call expect('win_create_errhandler ierror', ierr, MPI_SUCCESS)
        call MPI_Win_set_errhandler(win, eh, ierr)
        call MPI_Win_call_errhandler(win, MPI_ERR_OTHER, ierr)
        call expect('win handler calls', handler_calls, 1)
        call expect('win handler object', handler_object, win)
        call expect('win handler code', handler_code, MPI_ERR_OTHER)
        call MPI_Errhandler_free(eh, ierr)
        call MPI_Win_free(win, ierr)

        write (name, '(a, i0, a)') '/tmp/f_callbacks.', rank, '.eh'
        call MPI_File_open(MPI_COMM_SELF, name, &
                           MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                           MPI_INFO_NULL, fh, ierr)
        call expect('file_open ierror', ierr, MPI_SUCCESS)
        call MPI_File_create_errhandler(errhandler_fn, eh, ierr)
        call MPI_File_set_errhandler(fh, eh, ierr)
        call MPI_File_call_errhandler(fh, MPI_ERR_IO, ierr)
        call expect('file handler calls', handler_calls, 2)
        call expect('file handler object', handler_object, fh)
        call expect('file handler code', handler_code, MPI_ERR_IO)
        ! a real error reaches it too: reading a file opened write-only
        call MPI_File_close(fh, ierr)
        call MPI_File_open(MPI_COMM_SELF, name, &
                           MPI_MODE_CREATE + MPI_MODE_WRONLY + MPI_MODE_DELETE_ON_CLOSE, &
                           MPI_INFO_NULL, fh, ierr)
        call MPI_File_set_errhandler(fh, eh, ierr)
        call MPI_File_read(fh, arr, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        call expect('file handler calls after a read', handler_calls, 3)
        call expect('file handler object after a read', handler_object, fh)
        call MPI_Error_class(handler_code, handler_code, ierr)
        call expect('file handler class after a read', handler_code, MPI_ERR_ACCESS)
        call MPI_File_close(fh, ierr)
        call MPI_Errhandler_free(eh, ierr)

        call MPI_Session_create_errhandler(errhandler_fn, eh, ierr)
        call MPI_Session_init(MPI_INFO_NULL, eh, session, ierr)
        call expect('session_init ierror', ierr, MPI_SUCCESS)
        call MPI_Session_call_errhandler(session, MPI_ERR_ARG, ierr)
        call expect('session handler calls', handler_calls, 4)
        call expect('session handler object', handler_object, session)
        call expect('session handler code', handler_code, MPI_ERR_ARG)
        call MPI_Session_finalize(session, ierr)
        call MPI_Errhandler_free(eh, ierr)
    end subroutine

    subroutine check_mpi1_attributes()
        integer :: keyval, dup, val
        logical :: flag

        copy_calls = 0
        delete_calls = 0
        call MPI_Keyval_create(int_copy, int_delete, keyval, 21, ierr)
        call expect('keyval_create ierror', ierr, MPI_SUCCESS)
        call MPI_Attr_put(MPI_COMM_WORLD, keyval, -7, ierr)
        call MPI_Attr_get(MPI_COMM_WORLD, keyval, val, flag, ierr)
        call expect('attr_get flag', merge(1, 0, flag), 1)
        call expect('attr_get value', val, -7)
        call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
        call expect('copy calls', copy_calls, 1)
        call expect('copy oldcomm', last_object, MPI_COMM_WORLD)
        call expect('copy keyval', last_keyval, keyval)
        call expect('copy extra_state', last_int_extra, 21)
        call MPI_Attr_get(dup, keyval, val, flag, ierr)
        call expect('copied value', val, -8)
        call MPI_Attr_delete(dup, keyval, ierr)
        call expect('delete calls', delete_calls, 1)
        call expect('delete comm', last_object, dup)
        call expect('delete value', last_int_value, -8)
        call expect('delete extra_state', last_int_extra, 21)
        call MPI_Comm_free(dup, ierr)
        ! the predefined ones: MPI_DUP_FN copies, MPI_NULL_DELETE_FN does nothing
        call MPI_Keyval_free(keyval, ierr)
        call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, keyval, 0, ierr)
        call MPI_Attr_put(MPI_COMM_WORLD, keyval, 12345, ierr)
        call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
        call MPI_Attr_get(dup, keyval, val, flag, ierr)
        call expect('MPI_DUP_FN value', val, 12345)
        call MPI_Comm_free(dup, ierr)
        call MPI_Attr_delete(MPI_COMM_WORLD, keyval, ierr)
        call MPI_Keyval_free(keyval, ierr)
        ! a predefined attribute read through MPI_ATTR_GET is its value
        call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
        if (.not. flag .or. val < 32767) call expect('MPI_TAG_UB', val, 32767)
    end subroutine

    subroutine check_type_and_win_keyvals()
        integer :: keyval, newtype, wkeyval, win, arr(2)
        integer(kind=MPI_ADDRESS_KIND) :: extra, val, wsize
        logical :: flag

        copy_calls = 0
        delete_calls = 0
        extra = 1000
        call MPI_Type_create_keyval(addr_copy, addr_delete, keyval, extra, ierr)
        call expect('type_create_keyval ierror', ierr, MPI_SUCCESS)
        val = 33
        call MPI_Type_set_attr(MPI_INTEGER, keyval, val, ierr)
        call MPI_Type_dup(MPI_INTEGER, newtype, ierr)
        call expect('type copy calls', copy_calls, 1)
        call expect('type copy oldtype', last_object, MPI_INTEGER)
        call expect('type copy keyval', last_keyval, keyval)
        call expect_a('type copy extra_state', last_extra, extra)
        call MPI_Type_get_attr(newtype, keyval, val, flag, ierr)
        call expect_a('type copied value', val, 66_MPI_ADDRESS_KIND)
        call MPI_Type_free(newtype, ierr)
        call expect('type delete calls', delete_calls, 1)
        call expect_a('type delete value', last_value, 66_MPI_ADDRESS_KIND)
        call MPI_Type_delete_attr(MPI_INTEGER, keyval, ierr)
        call expect('type delete calls', delete_calls, 2)
        call expect('type delete object', last_object, MPI_INTEGER)
        call MPI_Type_free_keyval(keyval, ierr)

        extra = 2000
        call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, addr_delete, wkeyval, extra, ierr)
        call expect('win_create_keyval ierror', ierr, MPI_SUCCESS)
        wsize = 8
        call MPI_Win_create(arr, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
        val = 44
        call MPI_Win_set_attr(win, wkeyval, val, ierr)
        call MPI_Win_get_attr(win, wkeyval, val, flag, ierr)
        call expect_a('win attribute', val, 44_MPI_ADDRESS_KIND)
        last_object = -1
        call MPI_Win_delete_attr(win, wkeyval, ierr)
        call expect('win delete calls', delete_calls, 3)
        call expect('win delete object', last_object, win)
        call expect('win delete keyval', last_keyval, wkeyval)
        call expect_a('win delete value', last_value, 44_MPI_ADDRESS_KIND)
        call expect_a('win delete extra_state', last_extra, extra)
        call MPI_Win_free(win, ierr)
        call MPI_Win_free_keyval(wkeyval, ierr)
    end subroutine

    subroutine check_grequest()
        integer :: request, status(MPI_STATUS_SIZE), count
        integer(kind=MPI_ADDRESS_KIND) :: extra
        logical :: flag

        extra = 4242
        call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, request, ierr)
        call expect('grequest_start ierror', ierr, MPI_SUCCESS)
        call MPI_Test(request, flag, status, ierr)
        call expect('grequest done before complete', merge(1, 0, flag), 0)
        call MPI_Grequest_complete(request, ierr)
        call MPI_Wait(request, status, ierr)
        call expect('grequest wait ierror', ierr, MPI_SUCCESS)
        call expect('query calls', query_calls, 1)
        call expect('free calls', free_calls, 1)
        call expect('cancel calls', cancel_calls, 0)
        call expect_a('callbacks extra_state', greq_extra, extra)
        call expect('status tag from query', status(MPI_TAG), 77)
        call expect('status source from query', status(MPI_SOURCE), 3)
        call MPI_Get_count(status, MPI_INTEGER, count, ierr)
        call expect('status count from query', count, 5)
        call expect('request after wait', request, MPI_REQUEST_NULL)

        ! cancel before completion: told the request is not complete
        call MPI_Grequest_start(greq_query, greq_free, greq_cancel, extra, request, ierr)
        call MPI_Cancel(request, ierr)
        call expect('cancel calls', cancel_calls, 1)
        call MPI_Grequest_complete(request, ierr)
        call MPI_Wait(request, status, ierr)
        call expect('free calls', free_calls, 2)
    end subroutine

    subroutine check_alltoallw()
        integer, allocatable :: sendbuf(:), recvbuf(:), counts(:), displs(:), types(:)
        integer :: i, request, cart, sb(2), rb(2), left, right
        integer(kind=MPI_ADDRESS_KIND) :: adispls(2)

        allocate(sendbuf(nprocs), recvbuf(nprocs), counts(nprocs), displs(nprocs), types(nprocs))
        do i = 1, nprocs
            sendbuf(i) = rank * 100 + i - 1
            counts(i) = 1
            displs(i) = 4 * (i - 1)
            types(i) = MPI_INTEGER
        end do
        recvbuf = -1
        call MPI_Alltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                           MPI_COMM_WORLD, ierr)
        call expect('alltoallw ierror', ierr, MPI_SUCCESS)
        do i = 1, nprocs
            call expect('alltoallw data', recvbuf(i), (i - 1) * 100 + rank)
        end do
        recvbuf = -1
        call MPI_Ialltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
                            MPI_COMM_WORLD, request, ierr)
        call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
        do i = 1, nprocs
            call expect('ialltoallw data', recvbuf(i), (i - 1) * 100 + rank)
        end do

        ! a ring: neighbours left (first) and right
        call MPI_Cart_create(MPI_COMM_WORLD, 1, [nprocs], [.true.], .false., cart, ierr)
        call MPI_Cart_shift(cart, 0, 1, left, right, ierr)
        sb = [rank * 10 + 1, rank * 10 + 2]
        rb = -1
        adispls = [0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND]
        call MPI_Neighbor_alltoallw(sb, [1, 1], adispls, [MPI_INTEGER, MPI_INTEGER], rb, &
                                    [1, 1], adispls, [MPI_INTEGER, MPI_INTEGER], cart, ierr)
        call expect('neighbor_alltoallw ierror', ierr, MPI_SUCCESS)
        ! from the left its second block, from the right its first
        call expect('neighbor_alltoallw from left', rb(1), left * 10 + 2)
        call expect('neighbor_alltoallw from right', rb(2), right * 10 + 1)
        call MPI_Comm_free(cart, ierr)
    end subroutine

    subroutine check_memory()
        integer(kind=MPI_ADDRESS_KIND) :: bytes, base
        integer, pointer :: mem(:)
        integer :: i, size
        integer :: bsend_buffer(1000)

        bytes = 40
        call MPI_Alloc_mem(bytes, MPI_INFO_NULL, base, ierr)
        call expect('alloc_mem ierror', ierr, MPI_SUCCESS)
        call c_f_pointer(transfer(base, c_null_ptr), mem, [10])
        do i = 1, 10
            mem(i) = i
        end do
        call expect('alloc_mem memory', sum(mem), 55)
        call MPI_Free_mem(mem, ierr)
        call expect('free_mem ierror', ierr, MPI_SUCCESS)

        call MPI_Buffer_attach(bsend_buffer, 4000, ierr)
        call MPI_Bsend(rank, 1, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, ierr)
        call MPI_Recv(i, 1, MPI_INTEGER, rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call expect('bsend data', i, rank)
        call MPI_Buffer_detach(bsend_buffer, size, ierr)
        call expect('buffer_detach ierror', ierr, MPI_SUCCESS)
        call expect('buffer_detach size', size, 4000)
    end subroutine

    subroutine check_datarep()
        integer :: fh, data(4), back(4), raw(4), i
        integer(kind=MPI_ADDRESS_KIND) :: extra
        integer(kind=MPI_OFFSET_KIND) :: disp
        character(len=64) :: name

        extra = 5
        ! registered once per process; every rank works on a file of its own
        call MPI_Register_datarep('negated', unnegate, negate, file_extent, extra, ierr)
        call expect('register_datarep ierror', ierr, MPI_SUCCESS)
        write (name, '(a, i0, a)') '/tmp/f_callbacks.', rank, '.rep'
        call MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                           MPI_INFO_NULL, fh, ierr)
        disp = 0
        call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'negated', MPI_INFO_NULL, ierr)
        call expect('set_view negated ierror', ierr, MPI_SUCCESS)
        data = [(rank * 10 + i, i = 1, 4)]
        call MPI_File_write(fh, data, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        call expect('write negated ierror', ierr, MPI_SUCCESS)
        call expect('data untouched by the write', data(4), rank * 10 + 4)
        call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
        call MPI_File_read_at(fh, disp, raw, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        do i = 1, 4
            call expect('bytes in the file', raw(i), -(rank * 10 + i))
        end do
        call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'negated', MPI_INFO_NULL, ierr)
        back = 0
        call MPI_File_read_at(fh, disp, back, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
        do i = 1, 4
            call expect('read back through the representation', back(i), rank * 10 + i)
        end do
        if (conversions < 2 .or. extents < 1) call expect('conversions and extents', 0, 1)
        call MPI_File_close(fh, ierr)
        call MPI_File_delete(name, MPI_INFO_NULL, ierr)
    end subroutine

    subroutine check_env_and_psets()
        integer :: info, session, npsets, i, length
        character(len=MPI_MAX_INFO_VAL) :: value
        character(len=64) :: pset
        logical :: flag, world

        call MPI_Info_create_env(info, ierr)
        call expect('info_create_env ierror', ierr, MPI_SUCCESS)
        call MPI_Info_get(info, 'maxprocs', MPI_MAX_INFO_VAL, value, flag, ierr)
        call expect('info_create_env has maxprocs', merge(1, 0, flag), 1)
        read (value, *) i
        call expect('maxprocs', i, nprocs)
        call MPI_Info_free(info, ierr)

        call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
        call MPI_Session_get_num_psets(session, MPI_INFO_NULL, npsets, ierr)
        world = .false.
        do i = 0, npsets - 1
            length = 0
            call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, length, pset, ierr)
            call expect('get_nth_pset length query', ierr, MPI_SUCCESS)
            pset = 'x'
            call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, length, pset, ierr)
            call expect('get_nth_pset length', length, len_trim(pset))
            if (pset == 'mpi://WORLD') world = .true.
        end do
        call expect('mpi://WORLD among the process sets', merge(1, 0, world), 1)
        ! too short a variable: truncated, the length still the name's
        do i = 0, npsets - 1
            length = 5
            call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, length, pset, ierr)
            if (pset(1:5) == 'mpi:/') then
                call expect('truncated name is blank-padded', len_trim(pset), 5)
            end if
        end do
        call MPI_Session_finalize(session, ierr)
    end subroutine

#ifdef USE_MPI_MODULE
    ! the module has the PMPI_ names too (a tool written in Fortran calls them)
    subroutine check_profiling_names()
        integer :: r, x(2)
        double precision :: t
        call PMPI_Comm_rank(MPI_COMM_WORLD, r, ierr)
        call expect('PMPI_Comm_rank', r, rank)
        t = PMPI_Wtime()
        if (t <= 0d0) call expect('PMPI_Wtime positive', 0, 1)
        x = [rank, 5]
        call PMPI_Sendrecv_replace(x, 2, MPI_INTEGER, rank, 9, rank, 9, MPI_COMM_WORLD, &
                                   MPI_STATUS_IGNORE, ierr)
        call expect('PMPI_Sendrecv_replace', x(2), 5)
    end subroutine

    subroutine check_sizeof()
        integer(kind=1) :: i1
        integer(kind=8) :: i8(3, 2)
        real(kind=8) :: r8
        complex(kind=8) :: c16(4)
        logical :: l4
        character(len=7) :: s
        integer :: size

        call MPI_Sizeof(i1, size, ierr)
        call expect('sizeof integer(1)', size, 1)
        call MPI_Sizeof(i8, size, ierr)
        call expect('sizeof integer(8) array', size, 8)
        call MPI_Sizeof(r8, size, ierr)
        call expect('sizeof real(8)', size, 8)
        call MPI_Sizeof(c16, size, ierr)
        call expect('sizeof complex(8) array', size, 16)
        call MPI_Sizeof(l4, size, ierr)
        call expect('sizeof logical', size, 4)
        call MPI_Sizeof(s, size, ierr)
        call expect('sizeof character(len=7)', size, 7)
    end subroutine
#endif
end program f_callbacks
