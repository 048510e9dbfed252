#!/bin/sh
# coll_shm: the blocking collectives of the shared-memory path (see
# coll_shm.c) on 2 to 8 ranks with the path's defaults. The info log must
# name the path for every collective it covers, so that a path that
# silently never runs fails here, and bcast and reduce of several slots on
# 3 or more ranks must go in pieces; on 2 ranks reduce takes the path at 4-8 KiB
# only, bcast above 8 KiB, allreduce below 16 KiB (shm_coll.c,
# messages_win_on_two).
# Small limits and the path off: coll_shm_limits.sh.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

P=OMPI_LITE_
for np in 2 3 4 5 6 7 8; do
    # shellcheck disable=SC2086 # $MPIRUN may carry options
    capture env ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN -np "$np" "$prog"
    expect_success
    expect_out "^coll_shm: $np ranks OK"
    if [ "$np" -eq 2 ]; then
        expect_no_output "[: ]reduce on MPI_COMM_WORLD \\(2 processes, ([0-9]{1,3}|[0-3][0-9]{3}|[0-9]{5,}) bytes[^)]*\\): shm \\("
        expect_no_output "[: ]bcast on MPI_COMM_WORLD \\(2 processes, ([0-9]{1,3}|[0-7][0-9]{3}|8[01][0-9]{2}|818[0-9]|819[0-2]) bytes[^)]*\\): shm \\("
        expect_err "[: ]bcast on MPI_COMM_WORLD \\(2 processes, 32768 bytes[^)]*\\): shm \\("
        expect_err "[: ]reduce on MPI_COMM_WORLD \\(2 processes, 8192 bytes[^)]*\\): shm \\("
        expect_err "[: ]allreduce on MPI_COMM_WORLD \\(2 processes, 8192 bytes[^)]*\\): shm \\("
        expect_no_output "[: ]allreduce on MPI_COMM_WORLD \\(2 processes, [0-9]{5,} bytes[^)]*\\): shm \\("
        rooted=
    else
        rooted="bcast reduce"
        # three slots and a rest: in pieces (shm_coll.c, in_pieces)
        expect_err "[: ]bcast on MPI_COMM_WORLD \\($np processes, 98324 bytes[^)]*\\): shm \\(blocking, all $np processes on this host, in pieces"
        expect_err "[: ]reduce on MPI_COMM_WORLD \\($np processes, 98384 bytes[^)]*\\): shm \\(blocking, all $np processes on this host, in pieces"
    fi
    for coll in barrier $rooted allreduce gather scatter allgather alltoall \
        reduce_scatter_block; do
        expect_err "[: ]$coll on MPI_COMM_WORLD .*: shm \("
    done
done
