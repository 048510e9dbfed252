#!/bin/sh
# coll_move: the data-movement collectives' grid (see coll_move.c) on 1 to 8
# ranks, odd counts too, once with the automatic choice and once under each
# set of forced algorithms, so that every algorithm of every collective runs
# at every rank count. The forced sets also cut broadcasts in odd-sized
# segments (inside the derived type's elements).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

P=OMPI_LITE_
set_a="${P}BARRIER_ALGORITHM=dissemination ${P}BCAST_ALGORITHM=binomial
    ${P}GATHER_ALGORITHM=binomial ${P}SCATTER_ALGORITHM=binomial
    ${P}ALLGATHER_ALGORITHM=ring ${P}ALLGATHERV_ALGORITHM=ring
    ${P}ALLTOALL_ALGORITHM=pairwise ${P}ALLTOALLV_ALGORITHM=pairwise
    ${P}ALLTOALLW_ALGORITHM=pairwise"
set_b="${P}BARRIER_ALGORITHM=linear ${P}BCAST_ALGORITHM=scatter_allgather
    ${P}GATHER_ALGORITHM=linear ${P}SCATTER_ALGORITHM=linear
    ${P}ALLGATHER_ALGORITHM=recursive_doubling ${P}ALLGATHERV_ALGORITHM=linear
    ${P}ALLTOALL_ALGORITHM=bruck ${P}ALLTOALLV_ALGORITHM=linear
    ${P}ALLTOALLW_ALGORITHM=linear"
set_c="${P}BCAST_ALGORITHM=pipeline ${P}BCAST_SEGMENT_SIZE=1001
    ${P}ALLGATHER_ALGORITHM=bruck ${P}ALLTOALL_ALGORITHM=linear"
set_d="${P}BCAST_ALGORITHM=linear ${P}ALLGATHER_ALGORITHM=linear"
# The chain chosen, not forced, in segments of 16 bytes: two-process
# broadcasts of contiguous data then take the direct path (pair.c) on one
# rank while the rank with the derived type takes the chain.
set_e="${P}BCAST_PIPELINE_BYTES=1 ${P}BCAST_SEGMENT_SIZE=16"

for np in 1 2 3 4 5 6 7 8; do
    for set in "" "$set_a" "$set_b" "$set_c" "$set_d" "$set_e"; do
        # shellcheck disable=SC2086 # one VAR=VALUE per word
        capture env $set $MPIRUN -np "$np" "$prog"
        expect_success
        expect_out "^coll_move: $np ranks OK"
    done
done

# The forcing is what it says: the log names the forced algorithm.
# shellcheck disable=SC2086
capture env $set_b ${P}DEBUG=info ${P}DEBUG_SUBSYS=coll $MPIRUN -np 5 "$prog"
expect_success
expect_err 'alltoall on .*: bruck \(forced'
expect_err 'bcast on .*: scatter_allgather \(forced'
