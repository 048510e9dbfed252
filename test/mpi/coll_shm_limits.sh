#!/bin/sh
# coll_shm_limits: coll_shm.c with a small odd limit, slicing from the
# first bytes on and a small limit of the pieces, so that the limit and one
# past it, pieces, one past their limit, and sliced reductions of odd
# counts, are cheap to reach; reduces on ranks that share cores (3 or more
# on this 2-core machine) both ways: the root combining alone (the
# default there) and sliced (COLL_SHM_ROOT_ALONE_BYTES=0, as where every
# rank has a core); then with the path off or without memory for a
# segment, where the log must never name it.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

P=OMPI_LITE_
for np in 2 3 5 8; do
    for root_alone in -1 0; do
        # shellcheck disable=SC2086 # $MPIRUN may carry options
        capture env ${P}COLL_SHM_MAX_BYTES=1000 ${P}COLL_SHM_SLICE_BYTES=8 \
            ${P}COLL_SHM_PIECES_BYTES=5000 ${P}COLL_SHM_REDUCE_PIECES_BYTES=5000 \
            ${P}COLL_SHM_ROOT_ALONE_BYTES=$root_alone $MPIRUN -np "$np" "$prog"
        expect_success
        expect_out "^coll_shm: $np ranks OK"
    done
done
# off, and no memory for segments (COLL_SHM_MEMORY_MIB): the same results
# through messages
for setting in COLL_SHM=0 COLL_SHM_MEMORY_MIB=0; do
    np=3
    # shellcheck disable=SC2086 # $MPIRUN may carry options
    capture env ${P}$setting ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN -np "$np" "$prog"
    expect_success
    expect_out "^coll_shm: $np ranks OK"
    expect_no_output ": shm \("
done
