! f_spawn_f08: the program of f_spawn.f90, which says what it checks, under
! use mpi_f08 (f_spawn_f08.sh): handles of TYPE(MPI_Comm) and
! TYPE(MPI_Info), the module's MPI_ARGV_NULL and MPI_ERRCODES_IGNORE,
! ierror left out where no check needs it.
program f_spawn_f08
    use mpi_f08
    implicit none
    integer :: ierr, rank, nprocs
    type(MPI_Comm) :: parent
    character(len=512) :: self

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call get_command_argument(0, self)
    call MPI_Comm_get_parent(parent, ierr)
    call check(ierr, 'MPI_Comm_get_parent')
    if (parent == MPI_COMM_NULL) then
        call spawn_argv()
        call spawn_argv_null()
        call spawn_multiple()
        if (nprocs >= 2) call meet_through_port()
        if (rank == 0) print '(a, i0, a)', 'f_spawn_f08: ', nprocs, ' ranks OK'
    else
        call child()
    end if
    call MPI_Finalize(ierr)

contains

    subroutine fail(what, got, want)
        use, intrinsic :: iso_fortran_env, only: error_unit
        character(len=*), intent(in) :: what
        integer, intent(in) :: got, want
        write (error_unit, '(a, i0, 3a, i0, a, i0)') 'f_spawn_f08 rank ', rank, ': ', what, &
            ': got ', got, ', expected ', want
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end subroutine fail

    subroutine check(code, call_name)
        integer, intent(in) :: code
        character(len=*), intent(in) :: call_name
        if (code /= MPI_SUCCESS) call fail(call_name, code, MPI_SUCCESS)
    end subroutine check

    ! Parents send their world rank to every child, children answer every
    ! parent with 1000 + their rank; the merged communicator (parents
    ! first) sums its ranks; then the intercommunicator is disconnected.
    subroutine talk(inter, parents)
        type(MPI_Comm), intent(inout) :: inter
        logical, intent(in) :: parents
        integer :: remote, i, token, got, mrank, msize, total
        type(MPI_Comm) :: merged

        call MPI_Comm_remote_size(inter, remote)
        do i = 0, remote - 1
            if (parents) then
                call MPI_Send(rank, 1, MPI_INTEGER, i, 1, inter, ierr)
                call check(ierr, 'MPI_Send to a child')
            else
                call MPI_Recv(got, 1, MPI_INTEGER, i, 1, inter, MPI_STATUS_IGNORE, ierr)
                if (got /= i) call fail('a parent''s token', got, i)
            end if
        end do
        do i = 0, remote - 1
            if (parents) then
                call MPI_Recv(got, 1, MPI_INTEGER, i, 2, inter, MPI_STATUS_IGNORE, ierr)
                if (got /= 1000 + i) call fail('a child''s answer', got, 1000 + i)
            else
                token = 1000 + rank
                call MPI_Send(token, 1, MPI_INTEGER, i, 2, inter, ierr)
            end if
        end do
        call MPI_Intercomm_merge(inter, .not. parents, merged, ierr)
        call check(ierr, 'MPI_Intercomm_merge')
        call MPI_Comm_rank(merged, mrank, ierr)
        call MPI_Comm_size(merged, msize, ierr)
        call MPI_Allreduce(mrank, total, 1, MPI_INTEGER, MPI_SUM, merged, ierr)
        if (total /= msize * (msize - 1) / 2) call fail('sum over the merged ranks', total, &
                                                        msize * (msize - 1) / 2)
        call MPI_Comm_free(merged)
        call MPI_Comm_disconnect(inter, ierr)
        call check(ierr, 'MPI_Comm_disconnect')
        if (inter /= MPI_COMM_NULL) call fail('the communicator after MPI_Comm_disconnect', &
                                              inter%MPI_VAL, MPI_COMM_NULL%MPI_VAL)
    end subroutine talk

    subroutine expect_codes(codes)
        integer, intent(in) :: codes(:)
        integer :: i
        do i = 1, size(codes)
            if (codes(i) /= MPI_SUCCESS) call fail('array_of_errcodes', codes(i), MPI_SUCCESS)
        end do
    end subroutine expect_codes

    subroutine spawn_argv()
        character(len=16) :: argv(6)
        character(len=514) :: command
        integer :: codes(2), root
        type(MPI_Comm) :: inter

        root = nprocs - 1
        command = '  '//self
        argv = [character(len=16) :: 'argv', 'two  words', 'trailing   ', '  leading', ' ', &
                                     'not seen']
        if (rank /= root) then
            command = 'f-spawn-no-such-program'
            argv = 'not significant'
        end if
        codes = -1
        call MPI_Comm_spawn(command, argv, 2, MPI_INFO_NULL, root, MPI_COMM_WORLD, inter, &
                            codes, ierr)
        call check(ierr, 'MPI_Comm_spawn with argv')
        call expect_codes(codes)
        call talk(inter, .true.)
    end subroutine spawn_argv

    subroutine spawn_argv_null()
        type(MPI_Comm) :: inter
        call MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                            MPI_ERRCODES_IGNORE, ierr)
        call check(ierr, 'MPI_Comm_spawn with MPI_ARGV_NULL')
        call talk(inter, .true.)
    end subroutine spawn_argv_null

    subroutine spawn_multiple()
        character(len=512) :: commands(2)
        character(len=12) :: argvs(2, 4)
        integer :: maxprocs(2), codes(3)
        type(MPI_Info) :: infos(2)
        type(MPI_Comm) :: inter

        commands = self
        argvs(1, :) = [character(len=12) :: 'multi', 'app zero', ' ', 'not seen']
        argvs(2, :) = [character(len=12) :: 'multi', 'app one', 'x y', ' ']
        maxprocs = [1, 2]
        infos(1) = MPI_INFO_NULL
        call MPI_Info_create(infos(2), ierr)
        call MPI_Info_set(infos(2), 'env', 'F_SPAWN_APP=one', ierr)
        codes = -1
        call MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &
                                     inter, codes, ierr)
        call check(ierr, 'MPI_Comm_spawn_multiple')
        call expect_codes(codes)
        call MPI_Info_free(infos(2))
        call talk(inter, .true.)
    end subroutine spawn_multiple

    subroutine meet_through_port()
        character(len=MPI_MAX_PORT_NAME) :: port
        integer :: color, remote, expected, total
        type(MPI_Comm) :: half, inter

        color = merge(0, 1, rank < nprocs / 2)
        call MPI_Comm_split(MPI_COMM_WORLD, color, rank, half, ierr)
        port = ' '
        if (rank == 0) then
            call MPI_Open_port(MPI_INFO_NULL, port, ierr)
            call check(ierr, 'MPI_Open_port')
        end if
        call MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
        if (len_trim(port) == 0) call fail('the port name''s length', 0, 1)
        if (color == 0) then
            call MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, inter, ierr)
            call check(ierr, 'MPI_Comm_accept')
            expected = nprocs - nprocs / 2
        else
            call MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, inter, ierr)
            call check(ierr, 'MPI_Comm_connect')
            expected = nprocs / 2
        end if
        call MPI_Comm_remote_size(inter, remote)
        if (remote /= expected) call fail('the other half''s size', remote, expected)
        ! over an intercommunicator, the sum of the other half's world ranks
        call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, inter, ierr)
        expected = (nprocs / 2) * (nprocs / 2 - 1) / 2
        if (color == 0) expected = nprocs * (nprocs - 1) / 2 - expected
        if (total /= expected) call fail('the other half''s ranks summed', total, expected)
        call MPI_Comm_disconnect(inter, ierr)
        call check(ierr, 'MPI_Comm_disconnect of the port''s communicator')
        if (rank == 0) call MPI_Close_port(port)
        call MPI_Comm_free(half)
    end subroutine meet_through_port

    ! Argument i is values(i), exactly: its length says whether trailing
    ! blanks were stripped.
    subroutine expect_arguments(values)
        character(len=*), intent(in) :: values(:)
        character(len=64) :: arg
        integer :: i, length

        if (command_argument_count() /= size(values)) &
            call fail('the number of arguments', command_argument_count(), size(values))
        do i = 1, size(values)
            call get_command_argument(i, arg, length)
            if (length /= len_trim(values(i))) call fail('an argument''s length', length, &
                                                         len_trim(values(i)))
            if (arg /= values(i)) call fail('an argument''s text ('//trim(arg)//')', i, i)
        end do
    end subroutine expect_arguments

    subroutine child()
        character(len=16) :: role, variable
        integer(kind=MPI_ADDRESS_KIND) :: appnum
        logical :: flag

        role = 'argv-null'
        if (command_argument_count() > 0) call get_command_argument(1, role)
        call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag, ierr)
        if (.not. flag) call fail('MPI_APPNUM is set', 0, 1)
        select case (role)
        case ('argv')
            call expect_arguments([character(len=16) :: 'argv', 'two  words', 'trailing', &
                                   'leading'])
            if (nprocs /= 2) call fail('the children''s world size', nprocs, 2)
            if (appnum /= 0) call fail('MPI_APPNUM', int(appnum), 0)
        case ('argv-null')
            if (command_argument_count() /= 0) call fail('arguments of MPI_ARGV_NULL', &
                                                         command_argument_count(), 0)
            if (nprocs /= 1) call fail('the children''s world size', nprocs, 1)
        case ('multi')
            if (nprocs /= 3) call fail('the children''s world size', nprocs, 3)
            if (appnum /= merge(0, 1, rank == 0)) call fail('MPI_APPNUM', int(appnum), &
                                                            merge(0, 1, rank == 0))
            call get_environment_variable('F_SPAWN_APP', variable)
            if (appnum == 0) then
                call expect_arguments([character(len=16) :: 'multi', 'app zero'])
                if (variable /= ' ') call fail('F_SPAWN_APP set in app 0', 1, 0)
            else
                call expect_arguments([character(len=16) :: 'multi', 'app one', 'x y'])
                if (variable /= 'one') call fail('F_SPAWN_APP=one in app 1', 0, 1)
            end if
        case default
            call fail('a child''s role ('//trim(role)//')', 0, 1)
        end select
        call talk(parent, .false.)
        print '(3a, i0, a)', 'f_spawn_f08 child ', trim(role), ' ', rank, ': OK'
    end subroutine child

end program f_spawn_f08
