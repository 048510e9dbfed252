#!/bin/sh
# dyn_connect: ports, MPI_Comm_accept/connect, published names and
# MPI_Comm_join (see dyn_connect.c): within one job on 2-5 ranks, between
# two mpiruns, and the error classes. Names are published in a directory
# of the test's own (OMPI_LITE_NAME_DIR).
# shellcheck source=test/mpi/common.sh
. "$(dirname "$0")/common.sh"

OMPI_LITE_NAME_DIR=$work/names
export OMPI_LITE_NAME_DIR
mkdir -m 700 "$OMPI_LITE_NAME_DIR"
tag=ol-test-dyn_connect-$$

for np in 2 3 4 5; do
    run_mpi "$np" split "svc-$np-$tag"
    expect_success
    expect_out '^dyn_connect split: OK$'
done
for np in 1 3; do
    run_mpi "$np" errors "$tag"
    expect_success
    expect_out '^dyn_connect errors: OK$'
done

# Two jobs: MODE_A on NP_A ranks in the background, MODE_B on NP_B here.
two_jobs() {
    # shellcheck disable=SC2086
    $MPIRUN -np "$2" "$prog" "$1" "$5" "$tag" >"$work/first.out" 2>"$work/first.err" &
    first=$!
    run_mpi "$4" "$3" "$5" "$tag"
    wait "$first"
    first_rc=$?
    sed 's/^/  first job: /' "$work/first.out" "$work/first.err"
    [ "$first_rc" -eq 0 ] || fail "the $1 job exited with status $first_rc"
    grep -q "^dyn_connect $1: OK\$" "$work/first.out" || fail "the $1 job did not say OK"
    expect_success
    expect_out "^dyn_connect $3: OK\$"
}
two_jobs server 2 client 3 "service-$tag"
two_jobs client 1 server 2 "other-$tag"
two_jobs join-server 2 join-client 1 "$work/join-port"
[ -z "$(ls -A "$OMPI_LITE_NAME_DIR")" ] || fail "names left published: $(ls -A "$OMPI_LITE_NAME_DIR")"
expect_no_survivors "$tag"
