#!/bin/sh
# half: MPIX_C_FLOAT16, MPIX_C_BF16 and MPI_REAL2 in point-to-point,
# datatype calls and every reducing collective on 1 to 4 ranks, bit for bit
# against the program's reference; then reproducible mode, whose tree order
# the program's reference follows.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^half: OK"
done
for np in 3 4; do
    for algo in ring recursive_doubling; do
        OMPI_LITE_REPRODUCIBLE=1 OMPI_LITE_ALLREDUCE_ALGORITHM=$algo run_mpi "$np"
        expect_success
        expect_out "^half: OK .reproducible"
    done
done
