#!/bin/sh
# coll_reduce: the reduction collectives with the automatic algorithm
# choice on 1 to 8 ranks (the whole grid in one job per rank count), the
# nonblocking and persistent forms, and bad arguments. Forced algorithms:
# coll_reduce_algos.sh; reproducible mode: coll_reduce_repro.sh.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4 5 6 7 8; do
    run_mpi "$np" grid
    expect_success
    expect_out "^coll_reduce grid: OK"
done
for np in 1 3 4; do
    run_mpi "$np" nonblocking
    expect_success
    expect_out "^coll_reduce nonblocking: OK"
done
for np in 1 3; do
    run_mpi "$np" errors
    expect_success
    expect_out "^coll_reduce errors: OK"
done
