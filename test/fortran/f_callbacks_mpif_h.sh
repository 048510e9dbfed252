#!/bin/sh
# f_callbacks_mpif_h: test/fortran/f_callbacks.F90 built with `include 'mpif.h'` on 1 to 4 ranks:
# window, file and session error handlers, datatype/window/MPI-1 keyvals
# with their copy and delete procedures, a generalized request, a data
# representation of the program's own, the alltoallw forms, MPI_Alloc_mem,
# MPI_Buffer_detach, MPI_Sizeof; each callback's arguments are checked.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2 3 4; do
    run_mpi "$np"
    expect_success
    expect_out "^f_callbacks: $np ranks OK"
done
