! f_spawn: MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE through mpif.h
! (f_spawn.sh; f_spawn_f08.f90 is the same program under use mpi_f08).
! One program is parents and children, told apart by MPI_COMM_GET_PARENT.
! The parents
! - spawn 2 copies (the command with leading blanks) with argv ('argv',
!   'two  words', 'trailing   ', '  leading', a blank element, then one
!   that must not be seen) from the last rank as root, whose command and
!   argv alone count (the others pass a missing program and an argv
!   without a blank element);
! - spawn 1 copy with MPI_ARGV_NULL and MPI_ERRCODES_IGNORE;
! - spawn two commands in one MPI_COMM_SPAWN_MULTIPLE (1 and 2 processes)
!   whose argv rows differ, the second with an info that sets a variable
!   in its environment;
! - on 2 or more ranks, split the job in two halves that meet through a
!   port opened at world rank 0 and broadcast as MPI_MAX_PORT_NAME
!   characters (MPI_OPEN_PORT, MPI_COMM_ACCEPT, MPI_COMM_CONNECT).
! Children check each argument and its length (no leading or trailing
! blanks), their world size and MPI_APPNUM. Every pair of groups exchanges
! tokens over its intercommunicator, merges it, reduces over the merged
! communicator and disconnects.
program f_spawn
    implicit none
    include 'mpif.h'
    integer :: ierr, rank, nprocs, parent
    character(len=512) :: self

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call get_command_argument(0, self)
    call MPI_Comm_get_parent(parent, ierr)
    call check(ierr, 'MPI_COMM_GET_PARENT')
    if (parent == MPI_COMM_NULL) then
        call spawn_argv()
        call spawn_argv_null()
        call spawn_multiple()
        if (nprocs >= 2) call meet_through_port()
        if (rank == 0) print '(a, i0, a)', 'f_spawn: ', nprocs, ' ranks OK'
    else
        call child()
    end if
    call MPI_Finalize(ierr)

contains

    subroutine fail(what, got, want)
        use, intrinsic :: iso_fortran_env, only: error_unit
        character(len=*), intent(in) :: what
        integer, intent(in) :: got, want
        integer :: ignored
        write (error_unit, '(a, i0, 3a, i0, a, i0)') 'f_spawn rank ', rank, ': ', what, &
            ': got ', got, ', expected ', want
        call MPI_Abort(MPI_COMM_WORLD, 1, ignored)
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
        integer, intent(inout) :: inter
        logical, intent(in) :: parents
        integer :: remote, i, token, got, merged, mrank, msize, total

        call MPI_Comm_remote_size(inter, remote, ierr)
        do i = 0, remote - 1
            if (parents) then
                call MPI_Send(rank, 1, MPI_INTEGER, i, 1, inter, ierr)
                call check(ierr, 'MPI_SEND to a child')
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
        call check(ierr, 'MPI_INTERCOMM_MERGE')
        call MPI_Comm_rank(merged, mrank, ierr)
        call MPI_Comm_size(merged, msize, ierr)
        call MPI_Allreduce(mrank, total, 1, MPI_INTEGER, MPI_SUM, merged, ierr)
        if (total /= msize * (msize - 1) / 2) call fail('sum over the merged ranks', total, &
                                                        msize * (msize - 1) / 2)
        call MPI_Comm_free(merged, ierr)
        call MPI_Comm_disconnect(inter, ierr)
        call check(ierr, 'MPI_COMM_DISCONNECT')
        if (inter /= MPI_COMM_NULL) call fail('the communicator after MPI_COMM_DISCONNECT', &
                                              inter, MPI_COMM_NULL)
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
        integer :: inter, codes(2), root

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
        call check(ierr, 'MPI_COMM_SPAWN with argv')
        call expect_codes(codes)
        call talk(inter, .true.)
    end subroutine spawn_argv

    subroutine spawn_argv_null()
        integer :: inter
        call MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                            MPI_ERRCODES_IGNORE, ierr)
        call check(ierr, 'MPI_COMM_SPAWN with MPI_ARGV_NULL')
        call talk(inter, .true.)
    end subroutine spawn_argv_null

    subroutine spawn_multiple()
        character(len=512) :: commands(2)
        character(len=12) :: argvs(2, 4)
        integer :: maxprocs(2), infos(2), codes(3), inter

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
        call check(ierr, 'MPI_COMM_SPAWN_MULTIPLE')
        call expect_codes(codes)
        call MPI_Info_free(infos(2), ierr)
        call talk(inter, .true.)
    end subroutine spawn_multiple

    subroutine meet_through_port()
        character(len=MPI_MAX_PORT_NAME) :: port
        integer :: half, color, inter, remote, expected, total

        color = merge(0, 1, rank < nprocs / 2)
        call MPI_Comm_split(MPI_COMM_WORLD, color, rank, half, ierr)
        port = ' '
        if (rank == 0) then
            call MPI_Open_port(MPI_INFO_NULL, port, ierr)
            call check(ierr, 'MPI_OPEN_PORT')
        end if
        call MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
        if (len_trim(port) == 0) call fail('the port name''s length', 0, 1)
        if (color == 0) then
            call MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, inter, ierr)
            call check(ierr, 'MPI_COMM_ACCEPT')
            expected = nprocs - nprocs / 2
        else
            call MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, inter, ierr)
            call check(ierr, 'MPI_COMM_CONNECT')
            expected = nprocs / 2
        end if
        call MPI_Comm_remote_size(inter, remote, ierr)
        if (remote /= expected) call fail('the other half''s size', remote, expected)
        ! over an intercommunicator, the sum of the other half's world ranks
        call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, inter, ierr)
        expected = (nprocs / 2) * (nprocs / 2 - 1) / 2
        if (color == 0) expected = nprocs * (nprocs - 1) / 2 - expected
        if (total /= expected) call fail('the other half''s ranks summed', total, expected)
        call MPI_Comm_disconnect(inter, ierr)
        call check(ierr, 'MPI_COMM_DISCONNECT of the port''s communicator')
        if (rank == 0) call MPI_Close_port(port, ierr)
        call MPI_Comm_free(half, ierr)
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
        print '(3a, i0, a)', 'f_spawn child ', trim(role), ' ', rank, ': OK'
    end subroutine child

end program f_spawn
