#!/bin/sh
# coll_perf: each collective, 8 B to 64 KiB on 2 and 3 ranks, one call per
# size checked (-c): every row's #wrong must be 0. Times are not asserted.
# shellcheck source=test/bench/common.sh
. "$(dirname "$0")/common.sh"

for np in 2 3; do
    for coll in allreduce bcast allgather alltoall reduce_scatter; do
        echo "+ $MPIRUN -np $np $prog -C $coll -b 8 -e 64K -c 1"
        # shellcheck disable=SC2086
        $MPIRUN -np "$np" "$prog" -C "$coll" -b 8 -e 64K -c 1 -n 2 -w 1 -r 1 >"$work/out" 2>"$work/err"
        rc=$?
        sed 's/^/  out: /' "$work/out"
        sed 's/^/  err: /' "$work/err"
        [ "$rc" -eq 0 ] || fail "$coll on $np ranks: the job exited with status $rc"
        # 14 sizes; a size too small to split among the ranks has no row.
        rows=$(grep -cv '^#' "$work/out")
        [ "$rows" -ge 12 ] || fail "$coll on $np ranks: $rows rows, expected 12 to 14 (8 B .. 64 KiB)"
        wrong=$(grep -v '^#' "$work/out" | awk '$NF != 0 { n++ } END { print n + 0 }')
        [ "$wrong" -eq 0 ] || fail "$coll on $np ranks: $wrong rows with a non-zero #wrong"
    done
done
