#!/bin/sh
# A rank that fails ends the job at once: mpirun prints one line naming the
# rank, its pid and host and how it ended, exits with the rank's code,
# 128+signal or the abort code (0 for MPI_Abort(comm, 0)), and no process of
# the job survives.
. "${top_srcdir:-.}/test/launcher/common.sh"
need_helpers "$PMIX_CLIENT"

# expect_failure STATUS REGEX ARGS...: the other ranks sleep 30 s unless
# killed, so a launcher that does not kill them fails the time bound.
expect_failure() {
    want=$1 pattern=$2
    shift 2
    start=$(now_ms)
    run_mpirun "$TMP/out" "$TMP/err" "$@"
    took=$(($(now_ms) - start))
    [ "$rc" -eq "$want" ] || fail "$*: exit status $rc, expected $want; stderr: $(cat "$TMP/err")"
    [ "$(grep -c '^mpirun: ' "$TMP/err")" -eq 1 ] || fail "$*: expected one mpirun line, got: $(cat "$TMP/err")"
    grep -Eq -- "$pattern" "$TMP/err" || fail "$*: message does not match '$pattern': $(cat "$TMP/err")"
    [ "$took" -lt 5000 ] || fail "$*: took $took ms; the other ranks were not killed"
    check_no_leftovers
}

host=$(hostname)
expect_failure 3 "^mpirun: rank 2 \(pid [0-9]+ on host $host\) exited with code 3$" \
    -np 4 "$PMIX_CLIENT" exit 3 2 "$MARKER"
grep -qx "rank 2 exits with 3" "$TMP/out" || fail "the failing rank's last output was lost"
expect_failure 137 "^mpirun: rank 1 \(pid [0-9]+ on host $host\) was killed by signal 9 \(Killed\)$" \
    -np 3 "$PMIX_CLIENT" signal 9 1 "$MARKER"
expect_failure 7 "^mpirun: rank 1 \(pid [0-9]+ on host $host\) called MPI_Abort with code 7$" \
    -np 3 "$PMIX_CLIENT" abort 7 1 "$MARKER"
expect_failure 1 "^mpirun: rank 0 \(pid [0-9]+ on host $host\) exited without calling MPI_Finalize$" \
    -np 2 "$PMIX_CLIENT" nofinalize 0 "$MARKER"
# MPI programs: the library's fatal-error path (MPI_ERRORS_ARE_FATAL) also
# ends in PMIx_Abort, but the rank did not call MPI_Abort, and mpirun must
# not say it did.
EXIT_AFTER="$HELPERS/exit_after"
need_helpers "$EXIT_AFTER"
expect_failure 6 "^mpirun: rank 1 \(pid [0-9]+ on host $host\) stopped on an error in MPI_Send: MPI_ERR_RANK: .*\(the error handler was fatal; exit code 6\)$" \
    -np 2 "$EXIT_AFTER" before mpierror 3 1 "$MARKER"
grep -q "called MPI_Abort" "$TMP/err" && fail "a fatal MPI error is reported as MPI_Abort: $(cat "$TMP/err")"
expect_failure 5 "^mpirun: rank 1 \(pid [0-9]+ on host $host\) called MPI_Abort with code 5$" \
    -np 2 "$EXIT_AFTER" before abort 5 1 "$MARKER"
# MPI_Abort(comm, 0) ends the job with status 0, as Open MPI and MPICH do
# (shmem_global_exit(0), and codes that stop every rank early with it).
expect_failure 0 "^mpirun: rank 1 \(pid [0-9]+ on host $host\) called MPI_Abort with code 0$" \
    -np 2 "$EXIT_AFTER" before abort 0 1 "$MARKER"
# Not a PMIx client: a non-zero exit still ends the job; sleepers are killed.
expect_failure 5 "^mpirun: rank [01] \(pid [0-9]+ on host $host\) exited with code 5$" \
    -np 2 sh -c 'if [ "$OMPI_LITE_RANK" = 1 ]; then exit 5; fi; sleep 30' "$MARKER"

# A rank that ignores SIGTERM is killed after the grace period.
expect_failure 4 "exited with code 4$" \
    -np 2 sh -c 'trap "" TERM; if [ "$OMPI_LITE_RANK" = 1 ]; then exit 4; fi; sleep 30 & wait' "$MARKER"
echo "failures: ok"
