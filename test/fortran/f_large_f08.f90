! f_large_f08: the mpi_f08 large-count procedures that take callbacks,
! MPI_Op_create_c and MPI_Register_datarep_c, whose procedures get their
! counts as INTEGER(KIND=MPI_COUNT_KIND): a user op in MPI_Allreduce_c
! across the ranks and in MPI_Reduce_local_c over more than 2**31
! elements (of a type of extent 0, so that the buffers are one byte), and
! a data representation whose _c conversions the file's bytes show.
module large_f08
    use mpi_f08
    use, intrinsic :: iso_c_binding
    implicit none
    integer(kind=MPI_COUNT_KIND) :: longest = 0
    integer :: conversions = 0
contains
    ! inoutvec = invec + inoutvec over DOUBLE PRECISION; the longest
    ! len seen is kept
    subroutine add_doubles(invec, inoutvec, len, datatype)
        type(c_ptr), value :: invec, inoutvec
        integer(kind=MPI_COUNT_KIND) :: len
        type(MPI_Datatype) :: datatype
        real(kind=8), pointer :: a(:), b(:)
        longest = max(longest, len)
        if (datatype /= MPI_DOUBLE_PRECISION) return
        call c_f_pointer(invec, a, [len])
        call c_f_pointer(inoutvec, b, [len])
        b = a + b
    end subroutine

    ! over a type of extent 0 every element is the same byte: adds the
    ! one byte once, keeps len
    subroutine add_byte(invec, inoutvec, len, datatype)
        type(c_ptr), value :: invec, inoutvec
        integer(kind=MPI_COUNT_KIND) :: len
        type(MPI_Datatype) :: datatype
        integer(kind=1), pointer :: a, b
        longest = len
        call c_f_pointer(invec, a)
        call c_f_pointer(inoutvec, b)
        b = a + b
    end subroutine

    ! INTEGERs stored with extra_state added
    subroutine to_file(userbuf, datatype, count, filebuf, position, extra, ierror)
        type(c_ptr), value :: userbuf, filebuf
        type(MPI_Datatype) :: datatype
        integer(kind=MPI_COUNT_KIND) :: count
        integer :: ierror
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
        integer(kind=MPI_COUNT_KIND) :: count
        integer :: ierror
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
        extent = merge(4_MPI_ADDRESS_KIND, -1_MPI_ADDRESS_KIND, datatype == MPI_INTEGER)
        ierror = MPI_SUCCESS
    end subroutine
end module large_f08

program f_large_f08
    use large_f08
    implicit none
    integer :: rank, nprocs, errors
    errors = 0
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

    call check_allreduce()
    call check_reduce_local_beyond_int()
    call check_datarep()

    call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (errors /= 0) call MPI_Abort(MPI_COMM_WORLD, 1)
    if (rank == 0) print '(a, i0, a)', 'f_large_f08: ', nprocs, ' ranks OK'
    call MPI_Finalize()
contains
    subroutine expect(what, got, want)
        character(len=*), intent(in) :: what
        integer(kind=MPI_COUNT_KIND), intent(in) :: got, want
        if (got /= want) then
            print '(a, i0, 3a, i0, a, i0)', 'rank ', rank, ': ', what, ': got ', got, &
                ', expected ', want
            errors = errors + 1
        end if
    end subroutine

    ! rank r contributes i + r to element i: the sum is n*i + n*(n-1)/2
    subroutine check_allreduce()
        integer, parameter :: n = 1000
        real(kind=8) :: x(n), y(n)
        type(MPI_Op) :: op
        integer(kind=MPI_COUNT_KIND) :: count, i
        integer :: ierror
        count = n
        x = [(real(i + rank, 8), i = 1, n)]
        y = -1
        call MPI_Op_create_c(add_doubles, .true., op, ierror)
        call expect('MPI_Op_create_c ierror', int(ierror, MPI_COUNT_KIND), int(MPI_SUCCESS, MPI_COUNT_KIND))
        call MPI_Allreduce_c(x, y, count, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD)
        do i = 1, n
            call expect('MPI_Allreduce_c with MPI_Op_create_c', int(y(i), MPI_COUNT_KIND), &
                        nprocs * i + nprocs * (nprocs - 1) / 2)
        end do
        if (nprocs > 1 .and. (longest < 1 .or. longest > count)) &
            call expect('len given to the op', longest, count)
        call MPI_Op_free(op)
        if (op /= MPI_OP_NULL) errors = errors + 1
    end subroutine

    ! 2**31 + 7 elements: len must reach the op whole, as an 8-byte count
    subroutine check_reduce_local_beyond_int()
        integer(kind=MPI_COUNT_KIND), parameter :: count = 2_MPI_COUNT_KIND**31 + 7
        type(MPI_Datatype) :: one_place
        type(MPI_Op) :: op
        integer(kind=1) :: a, b
        call MPI_Type_create_resized(MPI_BYTE, 0_MPI_ADDRESS_KIND, 0_MPI_ADDRESS_KIND, one_place)
        call MPI_Type_commit(one_place)
        call MPI_Op_create_c(add_byte, .true., op)
        a = 3
        b = 4
        longest = 0
        call MPI_Reduce_local_c(a, b, count, one_place, op)
        call expect('len of MPI_Reduce_local_c', longest, count)
        call expect('byte reduced', int(b, MPI_COUNT_KIND), 7_MPI_COUNT_KIND)
        call MPI_Op_free(op)
        call MPI_Type_free(one_place)
    end subroutine

    subroutine check_datarep()
        type(MPI_File) :: fh
        integer :: data(3), raw(3), i
        character(len=64) :: name

        call MPI_Register_datarep_c('plus2000', from_file, to_file, extent_of, &
                                    2000_MPI_ADDRESS_KIND)
        write (name, '(a, i0, a)') '/tmp/f_large_f08.', rank, '.rep'
        call MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                           MPI_INFO_NULL, fh)
        call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'plus2000', &
                               MPI_INFO_NULL)
        data = [(rank + i, i = 1, 3)]
        call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, data, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
        call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'native', &
                               MPI_INFO_NULL)
        call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, raw, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
        do i = 1, 3
            call expect('bytes in the file', int(raw(i), MPI_COUNT_KIND), &
                        int(rank + i + 2000, MPI_COUNT_KIND))
        end do
        call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, 'plus2000', &
                               MPI_INFO_NULL)
        data = 0
        call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, data, 3, MPI_INTEGER, MPI_STATUS_IGNORE)
        do i = 1, 3
            call expect('read back', int(data(i), MPI_COUNT_KIND), int(rank + i, MPI_COUNT_KIND))
        end do
        if (conversions < 2) call expect('conversions', int(conversions, MPI_COUNT_KIND), 2_MPI_COUNT_KIND)
        call MPI_File_close(fh)
        call MPI_File_delete(name, MPI_INFO_NULL)
    end subroutine
end program
