#!/bin/sh
# p2p_truncate: MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN (Recv, Wait,
# Waitall's MPI_ERR_IN_STATUS) with the job going on, on 2, 3 and 5 ranks;
# and under the default handler the job ends and mpirun's output names
# MPI_Recv, on 2 and 3 ranks.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3 5; do
    run_mpi "$np"
    expect_success
    expect_out "^p2p_truncate: $np ranks OK"
done

tag=ol-test-p2p_truncate-$$
for np in 2 3; do
    run_mpi "$np" fatal "$tag"
    expect_failure
    expect_no_output 'returned under MPI_ERRORS_ARE_FATAL|the job went on'
    is_open_mpi || expect_err_line 'MPI_Recv' '[Tt][Rr][Uu][Nn][Cc]'
    expect_no_survivors "$tag"
done
