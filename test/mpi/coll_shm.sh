#!/bin/sh
# coll_shm: the blocking collectives of the shared-memory path (see
# coll_shm.c) on 2 to 8 ranks: with the defaults; with a small odd limit
# and slicing from the first bytes on, so that the limit and one past it,
# and sliced reductions of odd counts, are cheap to reach; and with the
# path off. The info log must name the path for every collective it
# covers, so that a path that silently never runs fails here.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

P=OMPI_LITE_
for np in 2 3 4 5 6 7 8; do
    capture env ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN -np "$np" "$prog"
    expect_success
    expect_out "^coll_shm: $np ranks OK"
    for coll in barrier bcast reduce allreduce gather scatter allgather alltoall \
        reduce_scatter_block; do
        expect_err "[: ]$coll on MPI_COMM_WORLD .*: shm \("
    done
done
for np in 2 3 5 8; do
    capture env ${P}COLL_SHM_MAX_BYTES=1000 ${P}COLL_SHM_SLICE_BYTES=8 $MPIRUN -np "$np" "$prog"
    expect_success
    expect_out "^coll_shm: $np ranks OK"
done
for np in 2 3; do
    capture env ${P}COLL_SHM=0 ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN -np "$np" "$prog"
    expect_success
    expect_out "^coll_shm: $np ranks OK"
    expect_no_output ": shm \("
done
