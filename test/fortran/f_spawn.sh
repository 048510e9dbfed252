#!/bin/sh
# f_spawn: test/fortran/f_spawn.f90 on 1 and 2 parent ranks: spawns with argv
# (blanks inside an element kept, leading and trailing ones stripped, the
# list ended by a blank element, only the root's command and argv read),
# with MPI_ARGV_NULL, and MPI_COMM_SPAWN_MULTIPLE of two commands whose
# argv rows and info differ; every child says it checked its arguments,
# world and MPI_APPNUM and talked to its parents. On 2 ranks the two
# halves of the job meet through a port as well.
# shellcheck source=test/fortran/common.sh
. "$(dirname "$0")/common.sh"

for np in 1 2; do
    run_mpi "$np"
    expect_success
    expect_out "^f_spawn: $np ranks OK"
    for child in 'argv 0' 'argv 1' 'argv-null 0' 'multi 0' 'multi 1' 'multi 2'; do
        expect_out "^f_spawn child $child: OK"
    done
done
