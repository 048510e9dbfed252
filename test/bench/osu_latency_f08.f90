! osu_latency_f08: osu_latency.c written in Fortran with `use mpi_f08`, to
! measure what the Fortran layer adds to a blocking ping-pong: the same
! sweep (sizes doubling from -m MIN to MAX, -x warm-up iterations, -n timed
! batches after a barrier, each of -i iterations, -I above 8 KiB, fewer
! where a batch would move more than -B bytes), the same rows (median, min
! and max of half the round trip, in microseconds) and the same -c check.
! Options take their value as the next argument (-m 0:8K, not -m0:8K).
! contrib/fortran-latency.sh runs it beside the C one.
module latency_f08
    use mpi_f08
    use, intrinsic :: iso_c_binding
    implicit none
    integer, parameter :: large = 8192      ! bench.h's BENCH_LARGE
    integer(kind=8) :: min_size = 0, max_size = 4194304, batch_bytes = 536870912
    integer :: iters = 1000, large_iters = 100, warmup = 100, batches = 5
    logical :: check = .false.
    integer :: rank, nranks
    integer(kind=1), pointer :: sbuf(:), rbuf(:)

    interface
        ! page-aligned buffers, as bench.c's
        integer(c_int) function posix_memalign(ptr, alignment, size) bind(C)
            import :: c_int, c_ptr, c_size_t
            type(c_ptr) :: ptr
            integer(c_size_t), value :: alignment, size
        end function
    end interface
contains
    function page_aligned(bytes) result(buf)
        integer(kind=8), intent(in) :: bytes
        integer(kind=1), pointer :: buf(:)
        type(c_ptr) :: p
        if (posix_memalign(p, 4096_c_size_t, int(max(bytes, 4096_8), c_size_t)) /= 0) &
            call MPI_Abort(MPI_COMM_WORLD, 1)
        call c_f_pointer(p, buf, [max(bytes, 1_8)])
        buf = -91 ! 0xa5: every page faulted in now, not in the timed loop
    end function

    subroutine run(size, n)
        integer, intent(in) :: size, n
        integer :: i
        do i = 1, n
            if (rank == 0) then
                call MPI_Send(sbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD)
                call MPI_Recv(rbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
            else if (rank == 1) then
                call MPI_Recv(rbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
                call MPI_Send(sbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD)
            end if
        end do
    end subroutine

    ! bench.c's pattern: byte i (from 0) of message msg at size
    subroutine fill(buf, size, msg)
        integer(kind=1), intent(out) :: buf(:)
        integer, intent(in) :: size, msg
        integer(kind=8) :: i, v
        do i = 0, size - 1
            v = mod(i * 7 + int(size, 8) * 13 + int(msg, 8) * 29 + 1, 256_8)
            buf(i + 1) = int(v - merge(256, 0, v > 127), 1)
        end do
    end subroutine

    ! rank 0 sends message 0, rank 1 checks it and answers with message 1
    integer function wrong_bytes(size)
        integer, intent(in) :: size
        integer(kind=1), allocatable :: want(:)
        wrong_bytes = 0
        if (rank > 1) return
        allocate (want(max(size, 1)))
        rbuf(1:size) = 0
        call fill(sbuf, size, rank)
        if (rank == 0) then
            call MPI_Send(sbuf, size, MPI_BYTE, 1, 2, MPI_COMM_WORLD)
            call MPI_Recv(rbuf, size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        else
            call MPI_Recv(rbuf, size, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        end if
        call fill(want, size, 1 - rank)
        wrong_bytes = count(rbuf(1:size) /= want(1:size))
        if (rank == 1) call MPI_Send(sbuf, size, MPI_BYTE, 0, 2, MPI_COMM_WORLD)
    end function

    ! a size with an optional K, M or G suffix (powers of 1024); -1 if bad
    integer(kind=8) function parse_size(text)
        character(len=*), intent(in) :: text
        integer :: last, ios
        integer(kind=8) :: scale
        last = len_trim(text)
        scale = 1
        if (last > 0) then
            select case (text(last:last))
            case ('K', 'k')
                scale = 1024
            case ('M', 'm')
                scale = 1024**2
            case ('G', 'g')
                scale = 1024**3
            end select
        end if
        if (scale > 1) last = last - 1
        parse_size = -1
        if (last < 1 .or. verify(text(1:last), '0123456789') /= 0) return
        read (text(1:last), *, iostat=ios) parse_size
        if (ios /= 0) then
            parse_size = -1
        else
            parse_size = parse_size * scale
        end if
    end function

    integer function parse_count(text, least)
        character(len=*), intent(in) :: text
        integer, intent(in) :: least
        integer(kind=8) :: v
        v = -1
        if (verify(trim(text), '0123456789') == 0) v = parse_size(text)
        parse_count = int(min(v, 1000000000_8))
        if (v < least) parse_count = -1
    end function

    subroutine usage(unit)
        integer, intent(in) :: unit
        write (unit, '(a)') 'usage: osu_latency_f08 [options]', &
            'point-to-point latency (use mpi_f08): blocking ping-pong between ranks 0 and 1,' &
            // ' half the round trip', &
            '  -m MIN:MAX  message sizes in bytes, doubling (default 0:4194304; K M G suffixes)', &
            '  -i N        timed iterations per batch (default 1000, up to 8 KiB)', &
            '  -I N        the same above 8192 bytes (default 100)', &
            '  -x N        warm-up iterations before each size (default 100)', &
            '  -n N        timed batches per size: median, min and max over them (default 5)', &
            '  -B BYTES    at most this many bytes per batch at large sizes (default 536870912)', &
            '  -c          check the received data once per size (adds a #wrong column)', &
            '  -h          this help'
    end subroutine

    ! Every rank reads the same command line; false on a bad one.
    logical function parse_options(help)
        logical, intent(out) :: help
        character(len=64) :: opt, val
        integer :: i, colon
        parse_options = .true.
        help = .false.
        i = 1
        do while (i <= command_argument_count())
            call get_command_argument(i, opt)
            val = ''
            if (index('miIxnB', opt(2:2)) > 0 .and. len_trim(opt) == 2) then
                i = i + 1
                if (i > command_argument_count()) parse_options = .false.
                call get_command_argument(i, val)
            end if
            select case (trim(opt))
            case ('-m')
                colon = index(val, ':')
                if (colon == 0) then
                    max_size = parse_size(val)
                else
                    if (colon > 1) min_size = parse_size(val(1:colon - 1))
                    max_size = parse_size(val(colon + 1:))
                end if
                if (min_size < 0 .or. max_size < min_size .or. max_size > 2_8**30) &
                    parse_options = .false.
            case ('-i')
                iters = parse_count(val, 1)
                if (iters < 1) parse_options = .false.
            case ('-I')
                large_iters = parse_count(val, 1)
                if (large_iters < 1) parse_options = .false.
            case ('-x')
                warmup = parse_count(val, 0)
                if (warmup < 0) parse_options = .false.
            case ('-n')
                batches = parse_count(val, 1)
                if (batches < 1) parse_options = .false.
            case ('-B')
                batch_bytes = parse_size(val)
                if (batch_bytes < 0) parse_options = .false.
            case ('-c')
                check = .true.
            case ('-h')
                help = .true.
            case default
                parse_options = .false.
            end select
            i = i + 1
        end do
    end function

    ! bench.c's iterations(): -i or -I, fewer where a batch would move more
    ! than -B bytes (2 messages an iteration), at least one
    integer function iterations(size)
        integer(kind=8), intent(in) :: size
        iterations = merge(iters, large_iters, size <= large)
        if (size > 0 .and. iterations * size * 2 > batch_bytes) &
            iterations = int(batch_bytes / (size * 2))
        iterations = max(iterations, 1)
    end function

    subroutine header()
        character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
        integer :: length, newline
        character(len=10) :: size_label = '# Size' ! left-justified, as C's %-10s
        call MPI_Get_library_version(version, length)
        newline = index(version(1:length), new_line('a'))
        if (newline > 0) length = newline - 1
        print '(a)', '# osu_latency_f08: point-to-point latency (use mpi_f08): blocking ' // &
            'ping-pong between ranks 0 and 1, half the round trip'
        print '(a, i0, 2a)', '# ', nranks, ' ranks; ', version(1:length)
        print '(a, i0, a, i0, a, i0, a, i0)', '# median, min and max over ', batches, &
            ' batches; iterations per batch -i ', iters, ', -I ', large_iters, '; warm-up ', warmup
        if (check) then
            print '(a, 1x, a12, 1x, a12, 1x, a12, 1x, a8)', size_label, 'Median(us)', 'Min(us)', &
                'Max(us)', '#wrong'
        else
            print '(a, 1x, a12, 1x, a12, 1x, a12)', size_label, 'Median(us)', 'Min(us)', 'Max(us)'
        end if
    end subroutine

    ! one size's row: median, min and max of half the round trip
    subroutine row(bytes, t, wrong)
        integer(kind=8), intent(in) :: bytes
        real(kind=8), intent(inout) :: t(:)
        integer, intent(in) :: wrong
        character(len=10) :: size_text
        real(kind=8) :: median, swap
        integer :: i, j, n
        n = size(t)
        do i = 2, n ! insertion sort: a handful of batches
            swap = t(i)
            j = i - 1
            do while (j >= 1)
                if (t(j) <= swap) exit
                t(j + 1) = t(j)
                j = j - 1
            end do
            t(j + 1) = swap
        end do
        median = merge(t(n / 2 + 1), (t(n / 2) + t(n / 2 + 1)) / 2, mod(n, 2) == 1)
        write (size_text, '(i0)') bytes
        if (check) then
            print '(a10, 1x, f12.2, 1x, f12.2, 1x, f12.2, 1x, i8)', size_text, median * 0.5d6, &
                t(1) * 0.5d6, t(n) * 0.5d6, wrong
        else
            print '(a10, 1x, f12.2, 1x, f12.2, 1x, f12.2)', size_text, median * 0.5d6, &
                t(1) * 0.5d6, t(n) * 0.5d6
        end if
        flush (6)
    end subroutine
end module latency_f08

program osu_latency_f08
    use latency_f08
    implicit none
    logical :: good, help
    integer(kind=8) :: size
    integer :: n, i, wrong, mine_wrong, total_wrong
    real(kind=8), allocatable :: t(:)
    real(kind=8) :: t0, mine

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks)
    good = parse_options(help)
    if (help .or. .not. good) then
        if (rank == 0) call usage(merge(6, 0, good))
        call MPI_Finalize()
        if (.not. good) error stop 2
        stop
    end if
    if (nranks < 2) then
        if (rank == 0) write (0, '(a, i0)') 'osu_latency_f08: needs 2 ranks or more, not ', nranks
        call MPI_Finalize()
        error stop 2
    end if
    sbuf => page_aligned(max_size)
    rbuf => page_aligned(max_size)
    allocate (t(batches))
    if (rank == 0) call header()
    total_wrong = 0
    size = min_size
    do
        n = iterations(size)
        call run(int(size), min(warmup, n))
        do i = 1, batches
            call MPI_Barrier(MPI_COMM_WORLD)
            t0 = MPI_Wtime()
            call run(int(size), n)
            mine = (MPI_Wtime() - t0) / n
            call MPI_Reduce(mine, t(i), 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD)
        end do
        wrong = 0
        if (check) then
            call MPI_Barrier(MPI_COMM_WORLD)
            mine_wrong = wrong_bytes(int(size))
            call MPI_Reduce(mine_wrong, wrong, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
            total_wrong = total_wrong + wrong
        end if
        if (rank == 0) call row(size, t, wrong)
        if (size >= max_size) exit
        size = merge(2 * size, 1_8, size > 0)
    end do
    if (rank == 0 .and. total_wrong > 0) &
        write (0, '(a, i0, a)') 'osu_latency_f08: ', total_wrong, ' wrong bytes received'
    call MPI_Finalize()
end program
