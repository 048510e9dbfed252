#!/bin/sh
# dyn_spawn: MPI_Comm_spawn, MPI_Comm_spawn_multiple, MPI_Comm_get_parent
# (see dyn_spawn.c) on one host: the data both ways, merged communicators,
# argv and the env info key, APPNUM, nesting; a missing program and too
# many processes fail with MPI_ERR_SPAWN while the parents carry on; a
# child that dies ends the job, named by mpirun.
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

tag=ol-test-dyn_spawn-$$
for np in 1 2 3; do
    run_mpi "$np" parent 2 "$tag"
    expect_success
    expect_out '^dyn_spawn parent: OK'
    expect_out '^dyn_spawn child: OK'
done
run_mpi 2 multiple "$tag"
expect_success
expect_out '^dyn_spawn multiple: OK'
expect_out '^dyn_spawn child-app: OK'
run_mpi 2 nested "$tag"
expect_success
for who in nested nested-child nested-grandchild; do
    expect_out "^dyn_spawn $who: OK"
done

run_mpi 2 missing "$tag"
expect_success
expect_out '^dyn_spawn missing: OK'
expect_err 'ol-no-such-program.*No such file or directory'

# Without oversubscription: three slots, two taken, four more do not fit;
# five slots are MPI_UNIVERSE_SIZE 5, and three more fit.
OMPI_LITE_OVERSUBSCRIBE=0
export OMPI_LITE_OVERSUBSCRIBE
# shellcheck disable=SC2086
capture $MPIRUN --host localhost:3 -np 2 "$prog" toomany 4 "$tag"
expect_success
expect_out '^dyn_spawn toomany: OK'
expect_err 'need 3 more slots'
# shellcheck disable=SC2086
capture $MPIRUN --host localhost:5 -np 2 "$prog" universe 5 "$tag"
OMPI_LITE_OVERSUBSCRIBE=1
expect_success
expect_out '^dyn_spawn universe: OK'

run_mpi 2 crash "$tag"
expect_status 137
expect_err '^mpirun: rank 0 of spawn 1 .*killed by signal 9'
expect_no_survivors "$tag"
